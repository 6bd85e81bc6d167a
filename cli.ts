/**
 * callbench: tests voice and conversational agents by simulating calls.
 *
 * A thin dispatcher: `cli.ts <command> [flags]` imports only
 * `src/commands/<command>.ts` and exits with its code: 0 success, 1 failure or bug,
 * 2 usage or input error.
 *
 * @module
 */
import { type Command, type Io, processIo } from "./src/cli/io.ts";
import { closest, InputError } from "./src/problem/problem.ts";
import { cliError } from "./src/cli/problem.ts";

/**
 * Every subcommand and its one-line summary: the command module's own `summary`,
 * repeated here so that `--help` loads no command (a test keeps the two equal).
 */
export const COMMANDS: Record<
  string,
  { summary: string; load: () => Promise<{ command: Command }> }
> = {
  list: lazy("list", "list scenarios (one JSON reference per line)"),
  eval: lazy("eval", "run trials and print one trial record per line"),
  score: lazy("score", "trial records in, one verdict per trial out"),
  report: lazy("report", "verdicts in, a summary out (json, md, html)"),
  compare: lazy("compare", "two runs side by side: deltas, significance, flipped scenarios"),
  explain: lazy(
    "explain",
    "why a trial failed: state diff, unmet assertion, missing action, flow node",
  ),
  gold: lazy("gold", "expected hashes and reference calls per scenario"),
  replay: lazy("replay", "run tool calls from stdin against a world"),
  tools: lazy("tools", "a domain's tools with their arguments, descriptions and side"),
  hash: lazy("hash", "the reference's canonical DB hash of JSON documents"),
  validate: lazy("validate", "check scenario and flow files; located errors"),
  scaffold: lazy("scaffold", "write editable scenario files from a dataset"),
  serve: lazy("serve", "serve built-in agents over RTVI WebSocket"),
  demo: lazy("demo", "run the bundled scenarios end to end"),
  schema: lazy(
    "schema",
    "write JSON Schemas for scenario and flow files, trial records, verdicts, reports and wire messages",
  ),
};

/**
 * A command whose module `src/commands/<name>.ts` is imported only when it runs. The
 * specifier is built at run time on purpose: Deno fetches and parses every literal
 * `import()` of a module at start-up, so literal paths would load all commands (zod,
 * hono, yaml...) even for `--help`. `deno compile` then needs
 * `--include src/commands`; `deno check cli.ts` still checks each command through
 * the type-only imports below.
 */
function lazy(name: string, summary: string): (typeof COMMANDS)[string] {
  const url = new URL(`./src/commands/${name}.ts`, import.meta.url);
  const load = async () => {
    try {
      return await import(url.href);
    } catch (e) {
      // A specifier built at run time is read like a file: it needs --allow-read.
      if (!/Requires read access/.test(String(e))) throw e;
      throw new InputError({
        file: url.protocol === "file:" ? decodeURIComponent(url.pathname) : url.href,
        message: `this run may not read the module of the ${name} command`,
        hint: "run cli.ts with --allow-read, as every deno task does",
      });
    }
  };
  return { summary, load };
}

// Type-only: erased at run time, so `deno run` loads none of them.
export type CommandModules = [
  typeof import("./src/commands/list.ts"),
  typeof import("./src/commands/eval.ts"),
  typeof import("./src/commands/score.ts"),
  typeof import("./src/commands/report.ts"),
  typeof import("./src/commands/compare.ts"),
  typeof import("./src/commands/explain.ts"),
  typeof import("./src/commands/gold.ts"),
  typeof import("./src/commands/replay.ts"),
  typeof import("./src/commands/tools.ts"),
  typeof import("./src/commands/hash.ts"),
  typeof import("./src/commands/validate.ts"),
  typeof import("./src/commands/scaffold.ts"),
  typeof import("./src/commands/serve.ts"),
  typeof import("./src/commands/demo.ts"),
  typeof import("./src/commands/schema.ts"),
];

const USAGE = `callbench: test voice agents by simulating calls

Usage: cli.ts <command> [flags]    (cli.ts <command> --help for its flags; --version)

Pipeline: list | eval | score | report   (JSON Lines on stdout, logs on stderr)

Commands:`;

/** Runs one command line; returns the exit code. */
export async function run(argv: string[], io: Io): Promise<number> {
  const verbose = argv.includes("--verbose");
  const args = argv.filter((a) => a !== "--verbose");
  const [name, ...rest] = args;
  if (name === undefined) {
    io.err(usage()); // a usage error: the text goes to stderr, stdout stays data-only
    return 2;
  }
  if (name === "--version" || name === "-V") {
    const { CALLBENCH_VERSION } = await import("./src/runner/version.ts");
    io.out(`callbench ${CALLBENCH_VERSION}`);
    return 0;
  }
  if (name === "--help" || name === "-h" || name === "help") {
    io.out(usage());
    return 0;
  }
  const entry = COMMANDS[name];
  if (!entry) {
    const hint = closest(name, Object.keys(COMMANDS));
    io.err(`Unknown command "${name}"${hint ? `: did you mean "${hint}"?` : ""} (see --help)`);
    return 2;
  }
  let command: Command;
  try {
    ({ command } = await entry.load());
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    io.err(e.message);
    return 2;
  }
  if (rest.includes("--help") || rest.includes("-h")) {
    io.out(command.help);
    return 0;
  }
  try {
    return await command.main(rest, io);
  } catch (e) {
    // The reader of our stdout went away (`list | head`): nothing left to say.
    if (e instanceof Deno.errors.BrokenPipe) return 0;
    if (e instanceof InputError) {
      // Library problems name options and codes: say them as flags and hints.
      io.err(cliError(e).message);
      return 2;
    }
    io.err(
      verbose
        ? String((e as Error)?.stack ?? e)
        : `Error: ${(e as Error)?.message ?? e} (--verbose for details)`,
    );
    return 1;
  }
}

function usage(): string {
  const lines = [USAGE];
  for (const [name, { summary }] of Object.entries(COMMANDS)) {
    lines.push(`  ${name.padEnd(10)} ${summary}`);
  }
  return lines.join("\n");
}

if (import.meta.main) {
  Deno.exit(await run(Deno.args, processIo()));
}

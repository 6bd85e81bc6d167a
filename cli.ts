/**
 * callbench: tests voice and conversational agents by simulating calls.
 *
 * A thin dispatcher: `cli.ts <command> [flags]` lazily imports
 * `src/commands/<command>.ts` and exits with its code: 0 success, 1 failure or bug,
 * 2 usage or input error.
 *
 * @module
 */
import { type Command, type Io, processIo } from "./src/cli/io.ts";
import { closest, InputError } from "./src/cli/problem.ts";

/** Every subcommand: its one-line summary and the module that implements it. */
export const COMMANDS: Record<
  string,
  { summary: string; load: () => Promise<{ command: Command }> }
> = {
  list: {
    summary: "list scenarios (one JSON reference per line)",
    load: () => import("./src/commands/list.ts"),
  },
  eval: {
    summary: "run trials and print one trial record per line",
    load: () => import("./src/commands/eval.ts"),
  },
  score: {
    summary: "trial records in, one verdict per trial out",
    load: () => import("./src/commands/score.ts"),
  },
  report: {
    summary: "verdicts in, a summary out (json, md, html)",
    load: () => import("./src/commands/report.ts"),
  },
  gold: {
    summary: "expected hashes and reference calls per scenario",
    load: () => import("./src/commands/gold.ts"),
  },
  replay: {
    summary: "run tool calls from stdin against a world",
    load: () => import("./src/commands/replay.ts"),
  },
  hash: {
    summary: "the reference's canonical DB hash of JSON documents",
    load: () => import("./src/commands/hash.ts"),
  },
  validate: {
    summary: "check scenario and flow files; located errors",
    load: () => import("./src/commands/validate.ts"),
  },
  scaffold: {
    summary: "write editable scenario files from a dataset",
    load: () => import("./src/commands/scaffold.ts"),
  },
  serve: {
    summary: "serve built-in agents over RTVI WebSocket",
    load: () => import("./src/commands/serve.ts"),
  },
  demo: {
    summary: "run the bundled scenarios end to end",
    load: () => import("./src/commands/demo.ts"),
  },
  schema: {
    summary: "write JSON Schemas of the record formats",
    load: () => import("./src/commands/schema.ts"),
  },
};

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
    const { CALLBENCH_VERSION } = await import("./src/cli/version.ts");
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
  const { command } = await entry.load();
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
      io.err(e.message);
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

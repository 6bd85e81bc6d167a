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

/** Every subcommand and the module that implements it. */
export const COMMANDS: Record<string, () => Promise<{ command: Command }>> = {
  list: () => import("./src/commands/list.ts"),
  scaffold: () => import("./src/commands/scaffold.ts"),
  hash: () => import("./src/commands/hash.ts"),
  gold: () => import("./src/commands/gold.ts"),
  replay: () => import("./src/commands/replay.ts"),
  eval: () => import("./src/commands/eval.ts"),
  score: () => import("./src/commands/score.ts"),
  report: () => import("./src/commands/report.ts"),
  validate: () => import("./src/commands/validate.ts"),
  serve: () => import("./src/commands/serve.ts"),
  demo: () => import("./src/commands/demo.ts"),
  schema: () => import("./src/commands/schema.ts"),
};

const USAGE = `callbench: test voice agents by simulating calls

Usage: cli.ts <command> [flags]    (cli.ts <command> --help for its flags)

Pipeline: list | eval | score | report   (JSON Lines on stdout, logs on stderr)

Commands:`;

/** Runs one command line; returns the exit code. */
export async function run(argv: string[], io: Io): Promise<number> {
  const verbose = argv.includes("--verbose");
  const args = argv.filter((a) => a !== "--verbose");
  const [name, ...rest] = args;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    io.out(await usage());
    return name === undefined ? 2 : 0;
  }
  const load = COMMANDS[name];
  if (!load) {
    const hint = closest(name, Object.keys(COMMANDS));
    io.err(`Unknown command "${name}"${hint ? `: did you mean "${hint}"?` : ""} (see --help)`);
    return 2;
  }
  const { command } = await load();
  if (rest.includes("--help") || rest.includes("-h")) {
    io.out(command.help);
    return 0;
  }
  try {
    return await command.main(rest, io);
  } catch (e) {
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

async function usage(): Promise<string> {
  const lines = [USAGE];
  for (const [name, load] of Object.entries(COMMANDS)) {
    const { command } = await load();
    lines.push(`  ${name.padEnd(10)} ${command.summary}`);
  }
  return lines.join("\n");
}

if (import.meta.main) {
  Deno.exit(await run(Deno.args, processIo()));
}

/**
 * The tasks of `deno.json`, so that tests run the CLI with exactly the permissions a
 * user's `deno task` gives it (a variable a dependency reads, missing from a task's
 * `--allow-env`, then fails a test rather than a user).
 *
 * @module
 */

const CONFIG = new URL("../deno.json", import.meta.url);

/** Every task's command, by name. */
export function tasks(): Record<string, string> {
  const config = JSON.parse(Deno.readTextFileSync(CONFIG)) as {
    tasks: Record<string, string | { command: string }>;
  };
  return Object.fromEntries(
    Object.entries(config.tasks).map(([name, t]) => [name, typeof t === "string" ? t : t.command]),
  );
}

/**
 * The flags of a `deno run FLAGS... SCRIPT` task (what comes before its script),
 * e.g. `taskFlags("cli")` for `cli.ts`'s permissions.
 */
export function taskFlags(name: string): string[] {
  const command = tasks()[name];
  if (command === undefined) throw new Error(`no task ${name} in deno.json`);
  const words = command.split(/\s+/);
  if (words[0] !== "deno" || words[1] !== "run") throw new Error(`task ${name} is not deno run`);
  const flags: string[] = [];
  for (const w of words.slice(2)) {
    if (!w.startsWith("-")) break;
    flags.push(w);
  }
  return flags;
}

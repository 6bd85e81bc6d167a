/**
 * What the fixture generators (`make_*_fixtures.ts`) share: writing their files
 * into a fixture folder, or with `--check` only saying which are stale.
 *
 * @module
 */
import { dirname, join } from "node:path";

/** A fixture file's JSON text: two-space indent, a final newline. */
export function fixtureJson(v: unknown): string {
  return JSON.stringify(v, null, 2) + "\n";
}

/**
 * Writes each of `files` (name in `dir` -> text) that differs from what is on disk,
 * saying so on stderr; with `--check` in `args`, writes nothing, names the stale
 * files and exits 1 when there are any.
 */
export function writeFixtures(
  dir: string,
  files: Record<string, string>,
  args: readonly string[] = Deno.args,
): void {
  const checkOnly = args.includes("--check");
  let stale = 0;
  for (const [name, text] of Object.entries(files)) {
    const path = join(dir, name);
    let current: string | undefined;
    try {
      current = Deno.readTextFileSync(path);
    } catch {
      current = undefined;
    }
    if (current === text) continue;
    stale++;
    if (checkOnly) console.error(`stale: ${path}`);
    else {
      Deno.mkdirSync(dirname(path), { recursive: true });
      Deno.writeTextFileSync(path, text);
      console.error(`wrote ${path}`);
    }
  }
  if (checkOnly && stale > 0) Deno.exit(1);
}

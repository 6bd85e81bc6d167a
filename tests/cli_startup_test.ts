/**
 * Start-up loads only the command that runs: `--help` works from the dispatcher
 * alone, and its table of summaries is the commands' own.
 */
import { spawnCapture } from "./_cli.ts";
import assert from "node:assert/strict";
import { basename } from "node:path";
import { fileURLToPath } from "node:url";
import type { Command } from "../src/cli/io.ts";
import { COMMANDS } from "../cli.ts";

const ROOT = new URL("../", import.meta.url);

Deno.test("cli: the command table names every command module, with the module's own summary", async () => {
  const modules = [...Deno.readDirSync(new URL("src/commands/", ROOT))]
    .map((e) => e.name)
    .filter((n) => n.endsWith(".ts") && !n.endsWith("_test.ts"))
    .map((n) => basename(n, ".ts"))
    .sort();
  assert.deepEqual(Object.keys(COMMANDS).sort(), modules);
  for (const [name, entry] of Object.entries(COMMANDS)) {
    const { command } = await entry.load() as { command: Command };
    assert.equal(entry.summary, command.summary, name);
  }
});

/** The command modules Deno resolved in one run of cli.ts (from its debug log). */
async function commandsResolved(args: string[], stdin = ""): Promise<string[]> {
  const out = await spawnCapture(
    Deno.execPath(),
    ["run", "-L", "debug", "--allow-read", "cli.ts", ...args],
    { cwd: fileURLToPath(ROOT), stdin },
  );
  assert.equal(out.code, 0);
  const log = out.stderr;
  return [...new Set([...log.matchAll(/src\/commands\/(\w+)\.ts/g)].map((m) => m[1]!))].sort();
}

Deno.test("cli: start-up resolves only the command that runs; --help none", async () => {
  // The positive case first: if Deno's debug log stops naming modules, this fails
  // rather than the next assertion passing for nothing.
  assert.deepEqual(await commandsResolved(["hash", "-"], "{}"), ["hash"]);
  assert.deepEqual(await commandsResolved(["--help"]), []);
});

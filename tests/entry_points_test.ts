/**
 * The package's entry points (deno.json "exports"): `./server` mounts the app on any
 * runtime, so neither it nor the main entry may load the listening code (src/server/serve.ts).
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";

const ROOT = new URL("../", import.meta.url);
const SERVE_TS = new URL("src/server/serve.ts", ROOT).href;

/** The local modules `entry` statically loads (its module graph, as `deno info` sees it). */
async function graph(entry: string): Promise<string[]> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", entry],
    cwd: fileURLToPath(ROOT),
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const info = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    modules: { specifier: string }[];
  };
  return info.modules.map((m) => m.specifier).filter((s) => s.startsWith("file:"));
}

const exportsMap = (JSON.parse(
  Deno.readTextFileSync(new URL("deno.json", ROOT)),
) as { exports: Record<string, string> }).exports;

Deno.test("entry points: deno.json exports the library, ./server and ./serve", () => {
  assert.deepEqual(exportsMap, {
    ".": "./mod.ts",
    "./server": "./server.ts",
    "./serve": "./serve.ts",
  });
});

for (const entry of [".", "./server"]) {
  Deno.test(`entry points: ${entry} does not load the listening code`, async () => {
    const mods = await graph(exportsMap[entry]!);
    assert.ok(mods.includes(new URL("src/server/app.ts", ROOT).href), "createApp is in the graph");
    assert.ok(!mods.includes(SERVE_TS), `${entry} loads src/server/serve.ts`);
  });
}

Deno.test("entry points: ./serve is where the server listens", async () => {
  assert.ok((await graph(exportsMap["./serve"]!)).includes(SERVE_TS));
});

Deno.test("entry points: ./server exports createApp, and mod.ts the same function", async () => {
  const server = await import("../server.ts");
  const mod = await import("../mod.ts");
  assert.equal(typeof server.createApp, "function");
  assert.equal(mod.createApp, server.createApp);
  assert.equal("serve" in mod, false);
});

/**
 * A served oracle looks the named scenario up in its own data root; when the client
 * runs another data root holding a namesake (the bundled fixtures reuse real names),
 * the trial fails naming both roots instead of playing the wrong world.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { run } from "../cli.ts";
import { memoryIo } from "../src/cli/io.ts";
import { BUNDLED_DATA_ROOT, DataRoot } from "../src/scenario/data_root.ts";
import { serveBuiltin } from "./_serve.ts";

async function otherRoot(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "callbench-root-" });
  await Deno.mkdir(join(dir, "tau2_retail"));
  for await (const e of Deno.readDir(join(BUNDLED_DATA_ROOT, "tau2_retail"))) {
    let text = await Deno.readTextFile(join(BUNDLED_DATA_ROOT, "tau2_retail", e.name));
    if (e.name === "tasks.json") text = text.replace("You are friendly", "You are grumpy");
    await Deno.writeTextFile(join(dir, "tau2_retail", e.name), text);
  }
  return dir;
}

Deno.test("a served oracle refuses a namesake scenario from another data root, naming both", async () => {
  const root = new DataRoot(BUNDLED_DATA_ROOT);
  const server = await serveBuiltin(root);
  const other = await otherRoot();
  try {
    const agent = `${server.url}?agent=oracle`;
    // Same data root on both ends: the oracle plays and reaches gold.
    const same = memoryIo();
    assert.equal(
      await run([
        "eval",
        "--scenarios",
        "tau2_retail__0",
        "--agent",
        agent,
        "--connect-attempts",
        "1",
      ], same),
      0,
      same.stderr.join("\n"),
    );
    const ok = JSON.parse(same.stdout[0]!);
    assert.equal(ok.status, "completed", JSON.stringify(ok.error));
    assert.equal(ok.final.db_sha256, ok.expect.db_sha256);

    // The client runs another data root: a clear protocol error naming both roots.
    const io = memoryIo("", { EVAL_DATA_ROOT: other });
    await run(
      [
        "eval",
        "--scenarios",
        "tau2_retail__0,tau2_retail__1",
        "--agent",
        agent,
        "--connect-attempts",
        "1",
      ],
      io,
    );
    // Records come in completion order (trials may run on Workers): pick them by name.
    const byName = new Map(io.stdout.map((l) => JSON.parse(l)).map((r) => [r.key.scenario, r]));
    const [changed, unchanged] = ["tau2_retail__0", "tau2_retail__1"].map((n) => byName.get(n));
    assert.equal(changed.status, "error");
    assert.equal(changed.error.kind, "protocol_error");
    assert.match(
      changed.error.message,
      /scenario "tau2_retail__0" differs from the one of that name in this server's data root \(the bundled fixtures\)/,
    );
    assert.ok(
      changed.error.message.includes(`this run's data root: ${other}`),
      changed.error.message,
    );
    // A scenario both roots hold alike still runs.
    assert.equal(unchanged.status, "completed", JSON.stringify(unchanged.error));
  } finally {
    await server.shutdown();
    await Deno.remove(other, { recursive: true });
  }
});

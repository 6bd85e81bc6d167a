import assert from "node:assert/strict";
import { join } from "node:path";
import { run } from "../../cli.ts";
import { memoryIo } from "../cli/io.ts";
import { BUNDLED_DATA_ROOT, DataRoot } from "./data_root.ts";
import { dataRootLabel, scenarioSha256 } from "./identity.ts";
import { ScenarioSchema } from "./scenario.ts";
import { selectScenarios } from "./suites.ts";

/** A copy of the bundled retail data whose first task's caller says something else. */
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

Deno.test("scenario_sha256 covers the scenario but not where it was read from", () => {
  const a = ScenarioSchema.parse({ name: "x__1", domain: "d", success_signals: ["clean_exit"] });
  const b = { ...a, source: "file:elsewhere.yaml" };
  const root = new DataRoot(BUNDLED_DATA_ROOT);
  assert.equal(scenarioSha256(a, root), scenarioSha256(b, root));
  assert.notEqual(scenarioSha256(a, root), scenarioSha256({ ...a, today: "2024-01-01" }, root));
  assert.match(scenarioSha256(a, root), /^[0-9a-f]{64}$/);
});

Deno.test("scenario_sha256 is the same before and after the expected hashes are filled, and follows the world's bytes", async () => {
  const root = new DataRoot(BUNDLED_DATA_ROOT);
  const listed = await selectScenarios(root, {
    scenarios: ["tau2_retail__0"],
  }, { expected: false });
  const run = await selectScenarios(new DataRoot(BUNDLED_DATA_ROOT), {
    scenarios: ["tau2_retail__0"],
  });
  const [a, b] = [listed.scenarios[0]!, run.scenarios[0]!];
  assert.equal(a.expect.db_sha256, undefined);
  assert.match(b.expect.db_sha256 ?? "", /^[0-9a-f]{64}$/);
  assert.equal(scenarioSha256(a, root), scenarioSha256(b, new DataRoot(BUNDLED_DATA_ROOT)));

  // The same tasks over a world with one byte changed are another scenario.
  const dir = await Deno.makeTempDir({ prefix: "callbench-root-" });
  await Deno.mkdir(join(dir, "tau2_retail"));
  for await (const e of Deno.readDir(join(BUNDLED_DATA_ROOT, "tau2_retail"))) {
    let text = await Deno.readTextFile(join(BUNDLED_DATA_ROOT, "tau2_retail", e.name));
    if (e.name === "db.json") {
      text = text.replace(/"zip": "(\d)/, (_m, d) => `"zip": "${d === "9" ? "1" : "9"}`);
    }
    await Deno.writeTextFile(join(dir, "tau2_retail", e.name), text);
  }
  const otherRoot = new DataRoot(dir);
  const other = await selectScenarios(otherRoot, { scenarios: ["tau2_retail__0"] }, {
    expected: false,
  });
  assert.notEqual(scenarioSha256(other.scenarios[0]!, otherRoot), scenarioSha256(a, root));
});

Deno.test("list | eval on another data root with a namesake scenario is an error naming both roots", async () => {
  const other = await otherRoot();
  try {
    const list = memoryIo();
    assert.equal(await run(["list", "--domain", "tau2_retail"], list), 0);
    const refs = list.stdout.map((l) => JSON.parse(l));
    assert.ok(refs.every((r) => /^[0-9a-f]{64}$/.test(r.scenario_sha256)));
    const stdin = list.stdout.join("\n") + "\n";

    // Same data root: runs.
    const same = memoryIo(stdin);
    assert.equal(await run(["eval", "--agent", "noop"], same), 0, same.stderr.join("\n"));

    // Another root (EVAL_DATA_ROOT wins over the reference's): refused before any call.
    const io = memoryIo(stdin, { EVAL_DATA_ROOT: other });
    assert.equal(await run(["eval", "--agent", "noop"], io), 2);
    assert.deepEqual(io.stdout, []);
    const err = io.stderr.join("\n");
    assert.match(
      err,
      /<stdin>:1: tau2_retail__0: field "scenario_sha256": listed from the data root /,
    );
    assert.ok(err.includes(refs[0].data_root), err);
    assert.ok(err.includes(other), err);
    // Only the changed scenario is refused.
    assert.ok(!err.includes("tau2_retail__1"), err);
  } finally {
    await Deno.remove(other, { recursive: true });
  }
});

Deno.test("a data root is named to remote clients without its absolute path", () => {
  assert.equal(dataRootLabel(BUNDLED_DATA_ROOT), "the bundled fixtures");
  assert.equal(dataRootLabel("/srv/data/bench-2025"), 'a data root named "bench-2025"');
});

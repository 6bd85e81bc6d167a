import assert, { deepEqual, equal, match, ok } from "node:assert/strict";
import { memoryIo } from "../cli/io.ts";
import { BUNDLED_DATA_ROOT, DataRoot } from "../scenario/data_root.ts";
import { ScenarioSchema } from "../scenario/scenario.ts";
import { selectScenarios } from "../scenario/suites.ts";
import { tau2GoldCache } from "../scenario/tau2/tau2_suite.ts";
import { command as list } from "./list.ts";
import { command as gold } from "./gold.ts";

/** Gold requests of the tau2 suites so far (each one a replay or a cache read). */
const requests = () => tau2GoldCache.stats.hits + tau2GoldCache.stats.misses;

Deno.test("list computes no expected state: no gold replay, no cache read", async () => {
  const before = requests();
  const io = memoryIo();
  equal(await list.main(["--data-root", BUNDLED_DATA_ROOT], io), 0);
  equal(requests(), before);
  const names = io.stdout.map((l) => JSON.parse(l).name);
  deepEqual(names.filter((n) => n.startsWith("tau2_retail")), [
    "tau2_retail__0",
    "tau2_retail__1",
    "tau2_retail__2",
  ]);
  ok(names.some((n) => n.startsWith("tau2_airline__")));
  ok(names.some((n) => n.startsWith("tau2_telecom__")));
});

Deno.test("gold computes the gold of the selected scenarios only, once each", async () => {
  const before = requests();
  const io = memoryIo();
  equal(
    await gold.main(["--data-root", BUNDLED_DATA_ROOT, "--scenarios", "tau2_retail__1"], io),
    0,
  );
  equal(requests(), before + 1);
  equal(io.stdout.length, 1);
  match(JSON.parse(io.stdout[0]!).expected_db_sha256, /^[0-9a-f]{64}$/);
});

Deno.test("a selection fills the expected hashes of the scenarios it picks, not of the rest", async () => {
  const root = new DataRoot(BUNDLED_DATA_ROOT);
  const before = requests();
  const { scenarios } = await selectScenarios(root, { scenarios: ["tau2_retail__2"] });
  equal(requests(), before + 1);
  match(scenarios[0]!.expect.db_sha256!, /^[0-9a-f]{64}$/);
  // The same process asks again: nothing is recomputed.
  await selectScenarios(root, { scenarios: ["tau2_retail__2"] });
  equal(requests(), before + 1);
  const all = await selectScenarios(root, { domains: ["tau2_retail"] }, { expected: false });
  deepEqual(all.scenarios.map((s) => s.expect.db_sha256 !== undefined), [false, false, true]);
});

Deno.test("without expected states no scenario carries a hash; a run's selection has them all", async () => {
  const root = new DataRoot(BUNDLED_DATA_ROOT);
  const listed = await selectScenarios(root, {}, { expected: false });
  ok(listed.scenarios.some((s) => s.domain === "eva_airline"));
  deepEqual(listed.scenarios.filter((s) => s.expect.db_sha256 !== undefined), []);
  const run = await selectScenarios(root, {});
  for (const s of run.scenarios) match(s.expect.db_sha256 ?? "", /^[0-9a-f]{64}$/, s.name);
  // Filled late, yet in the schema's key order (scaffold writes the object as it is).
  for (const s of run.scenarios.filter((s) => s.domain === "eva_airline")) {
    deepEqual(Object.keys(s.expect), Object.keys(ScenarioSchema.parse(s).expect), s.name);
  }
});

Deno.test("list reads no world; a world that does not parse is a located problem once a command needs it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "callbench-list-" });
  await Deno.mkdir(`${dir}/tau2_retail`);
  for await (const e of Deno.readDir(`${BUNDLED_DATA_ROOT}/tau2_retail`)) {
    const text = e.name === "db.json"
      ? "{ not json"
      : await Deno.readTextFile(`${BUNDLED_DATA_ROOT}/tau2_retail/${e.name}`);
    await Deno.writeTextFile(`${dir}/tau2_retail/${e.name}`, text);
  }
  const io = memoryIo();
  equal(await list.main(["--data-root", dir], io), 0, io.stderr.join("\n"));
  equal(io.stdout.length, 3);
  await assert.rejects(
    () => selectScenarios(new DataRoot(dir), {}),
    (e: Error) => /tau2_retail[\\/]db\.json:1: invalid JSON/.test(e.message),
  );
});

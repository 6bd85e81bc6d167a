/** The scenario the README names for the benchmark is in the benchmark's data. */
import assert from "node:assert/strict";
import { DataRoot } from "../../src/scenario/data_root.ts";
import { selectScenarios } from "../../src/scenario/suites.ts";
import { DATA_ROOT, requireDataRoot } from "./_data_root.ts";

Deno.test("README: eva_airline__1_1_3, its benchmark example, is an eva scenario of the data root", async () => {
  requireDataRoot();
  const readme = Deno.readTextFileSync(new URL("../../README.md", import.meta.url));
  assert.ok(readme.includes("`eva_airline__1_1_3`"));
  const sel = await selectScenarios(new DataRoot(DATA_ROOT), { scenarios: ["eva_airline__1_1_3"] });
  assert.deepEqual(sel.scenarios.map((s) => s.name), ["eva_airline__1_1_3"]);
});

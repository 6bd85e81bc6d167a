import assert from "node:assert/strict";
import { BUNDLED_DATA_ROOT, DataRoot } from "./data_root.ts";
import { ScenarioSchema } from "./scenario.ts";
import { checkRunnable } from "./check.ts";

const root = new DataRoot(BUNDLED_DATA_ROOT);
const base = {
  name: "mine__a",
  source: "file:mine.yaml",
  domain: "tau2_retail",
  world: { db: { path: "tau2_retail/db.json" } },
  agent: { prompt: "p", tools: ["get_order_details"] },
  success_signals: ["clean_exit"],
};

Deno.test("checkRunnable accepts a scenario whose domain, world and tools exist", async () => {
  assert.deepEqual(await checkRunnable([ScenarioSchema.parse(base)], root), []);
});

Deno.test("checkRunnable names the file, scenario and field of what cannot run", async () => {
  const bad = ScenarioSchema.parse({
    ...base,
    world: { db: { path: "tau2_retail/nope.json" } },
    agent: { prompt: "p", tools: ["get_order_detail"] },
    expect: { reference_actions: [{ name: "cancel_pending_orders", arguments: {} }] },
  });
  const problems = await checkRunnable([bad], root);
  assert.deepEqual(problems.map((p) => [p.file, p.where, p.field]), [
    ["mine.yaml", "mine__a", "world.db.path"],
    ["mine.yaml", "mine__a", "agent.tools[0]"],
    ["mine.yaml", "mine__a", "expect.reference_actions[0].name"],
  ]);
  assert.equal(problems[1]!.hint, 'did you mean "get_order_details"?');
  const unknown = await checkRunnable(
    [ScenarioSchema.parse({ ...base, domain: "tau2_retial" })],
    root,
  );
  assert.deepEqual(unknown.map((p) => [p.field, p.hint]), [[
    "domain",
    'did you mean "tau2_retail"?',
  ]]);
});

Deno.test("checkRunnable: prototype names are unknown init functions and predicates", async () => {
  const s = ScenarioSchema.parse({
    name: "mine__proto",
    domain: "tau2_telecom",
    source: "file:mine.yaml",
    initialization_actions: [{ side: "user", func_name: "constructor", arguments: {} }],
    expect: {
      db_state_assertions: [
        { side: "user", func_name: "toString", arguments: {}, assert_value: true },
      ],
    },
    success_signals: ["clean_exit"],
  });
  const problems = await checkRunnable([s], root);
  assert.deepEqual(problems.map((p) => p.field), [
    "initialization_actions[0].func_name",
    "expect.db_state_assertions[0].func_name",
  ]);
});

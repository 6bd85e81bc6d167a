import { deepEqual, equal, match, notEqual } from "node:assert/strict";
import { dbHash } from "../../canonical/hash.ts";
import { openEnvironment } from "../open_environment.ts";
import { BUNDLED_DATA_ROOT, DataRoot } from "../data_root.ts";
import { type Scenario, ScenarioSchema } from "../scenario.ts";
import { replayGold } from "./gold.ts";
import { suites } from "./suites.ts";

const retail = suites.find((s) => s.id === "tau2_retail")!;

async function fixtureScenarios(root: DataRoot): Promise<Scenario[]> {
  return (await retail.load(root)).scenarios;
}

Deno.test("replayGold() plays the reference actions and hashes the end state", async () => {
  const root = new DataRoot(BUNDLED_DATA_ROOT);
  const [exchange] = await fixtureScenarios(root);
  const gold = await replayGold(root, exchange!);
  equal(gold.name, "tau2_retail__0");
  match(gold.expected_db_sha256 ?? "", /^[0-9a-f]{64}$/);
  notEqual(gold.expected_db_sha256, dbHash(root.db("tau2_retail/db.json")));
  // The hash is the one of the world the exchange leaves, played here on its own.
  const { env } = await openEnvironment(root, exchange!, "check");
  for (const a of exchange!.expect.reference_actions!) {
    equal(env.call(a.side, a.name, a.arguments).ok, true, a.name);
  }
  equal(gold.expected_db_sha256, env.hashes().db_sha256);
  equal("expected_user_db_sha256" in gold, false);
  deepEqual(gold.reference_records, [{
    action_type: "exchange_delivered_order_items",
    name: "exchange_delivered_order_items",
    arguments: {
      order_id: "#W5100001",
      item_ids: ["7100000001"],
      new_item_ids: ["7100000002"],
      payment_method_id: "credit_card_3105521",
    },
    result: { order_id: "#W5100001", status: "exchange requested", price_difference: 2.25 },
    side: "agent",
  }]);
  equal(gold.errors, undefined);
});

Deno.test("replayGold() leaves the shared loaded world untouched", async () => {
  const root = new DataRoot(BUNDLED_DATA_ROOT);
  const before = dbHash(root.db("tau2_retail/db.json"));
  for (const s of await fixtureScenarios(root)) await replayGold(root, s);
  equal(dbHash(root.db("tau2_retail/db.json")), before);
});

Deno.test("replayGold() gives the same hash every time", async () => {
  const root = new DataRoot(BUNDLED_DATA_ROOT);
  const [, cancel] = await fixtureScenarios(root);
  const a = await replayGold(root, cancel!);
  const b = await replayGold(new DataRoot(BUNDLED_DATA_ROOT), cancel!);
  match(a.expected_db_sha256 ?? "", /^[0-9a-f]{64}$/);
  equal(a.expected_db_sha256, b.expected_db_sha256);
});

Deno.test("replayGold() keeps going past a failing call and reports it by index", async () => {
  const root = new DataRoot(BUNDLED_DATA_ROOT);
  const [first] = await fixtureScenarios(root);
  const scenario = ScenarioSchema.parse({
    ...first,
    expect: {
      ...first!.expect,
      reference_actions: [
        { name: "get_order_details", arguments: { order_id: "#W0" } },
        { name: "no_such_tool", arguments: {} },
        ...first!.expect.reference_actions!,
      ],
    },
  });
  const gold = await replayGold(root, scenario);
  deepEqual(gold.errors?.map((e) => [e.index, e.name]), [[0, "get_order_details"], [
    1,
    "no_such_tool",
  ]]);
  // The failures change nothing: same end state as without them.
  match(gold.expected_db_sha256 ?? "", /^[0-9a-f]{64}$/);
  equal(gold.expected_db_sha256, first!.expect.db_sha256);
});

Deno.test("replayGold() of a scenario without actions is the initial world", async () => {
  const root = new DataRoot(BUNDLED_DATA_ROOT);
  const [first] = await fixtureScenarios(root);
  const scenario = ScenarioSchema.parse({
    ...first,
    expect: { ...first!.expect, reference_actions: [] },
  });
  const gold = await replayGold(root, scenario);
  equal(gold.expected_db_sha256, dbHash(root.db("tau2_retail/db.json")));
  deepEqual(gold.reference_records, []);
});

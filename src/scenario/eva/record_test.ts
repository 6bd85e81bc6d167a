import assert from "node:assert/strict";
import {
  compareEvaIds,
  compareRegistrationOrder,
  EvaRecordSchema,
  evaScenarioName,
} from "./record.ts";

Deno.test("evaScenarioName keeps the seeds' descriptive names and spells other ids with underscores", () => {
  assert.equal(evaScenarioName("1.1.2"), "eva_airline__voluntary_date_change");
  assert.equal(evaScenarioName("2.1.1"), "eva_airline__irrops_cancellation");
  assert.equal(evaScenarioName("3.1.3"), "eva_airline__missed_flight_standby");
  assert.equal(evaScenarioName("5.1.1"), "eva_airline__cancellation_refund");
  assert.equal(evaScenarioName("7.2.1"), "eva_airline__escalation_edge_case");
  assert.equal(evaScenarioName("4.2.5"), "eva_airline__4_2_5");
});

Deno.test("eva ids order numerically, seeds first for registration", () => {
  assert.deepEqual(["1.10.1", "1.9.2", "1.9.10", "1.2.1"].sort(compareEvaIds), [
    "1.2.1",
    "1.9.2",
    "1.9.10",
    "1.10.1",
  ]);
  assert.deepEqual(["1.1.3", "7.2.1", "1.1.2", "2.1.2"].sort(compareRegistrationOrder), [
    "1.1.2",
    "7.2.1",
    "1.1.3",
    "2.1.2",
  ]);
});

Deno.test("an eva record needs an eva id, a goal and an expected database", () => {
  const bad = EvaRecordSchema.safeParse({
    id: "x",
    user_goal: {},
    user_config: {},
    ground_truth: {},
  });
  assert.equal(bad.success, false);
  const fields = bad.error!.issues.map((i) => i.path.join("."));
  assert.ok(fields.includes("id"));
  assert.ok(fields.includes("user_goal.high_level_user_goal"));
  assert.ok(fields.includes("ground_truth.expected_scenario_db"));
});

import assert from "node:assert/strict";
import type { Db } from "../domain.ts";
import { agentWorld, phoneWorld, testEnvironment } from "./_testing.ts";
import type { TelecomUserDb } from "./data_model.ts";
import { simulateNetworkSearch } from "./network_search.ts";
import { predicates } from "./predicates.ts";

const user = predicates.user;
const agent = predicates.agent;

function phone(change: (p: TelecomUserDb) => void = () => {}): Db {
  const p = phoneWorld();
  change(p);
  simulateNetworkSearch(p);
  return p;
}

Deno.test("predicates are registered by side: four on the phone, two on the records", () => {
  assert.deepEqual(Object.keys(user).sort(), [
    "assert_can_send_mms",
    "assert_internet_speed",
    "assert_mobile_data_status",
    "assert_service_status",
  ]);
  assert.deepEqual(Object.keys(agent).sort(), [
    "assert_data_refueling_amount",
    "assert_no_overdue_bill",
  ]);
});

Deno.test("assert_mobile_data_status compares whether data works with the expectation", () => {
  const f = user.assert_mobile_data_status!;
  assert.equal(f(phone(), { expected_status: true }), true);
  assert.equal(f(phone(), { expected_status: false }), false);
  const off = phone((p) => p.device.data_enabled = false);
  assert.equal(f(off, { expected_status: false }), true);
  assert.equal(f(off, { expected_status: true }), false);
});

Deno.test("assert_internet_speed needs the speed and, when given, the label", () => {
  const f = user.assert_internet_speed!;
  assert.equal(f(phone(), { expected_speed: 200, expected_desc: "excellent" }), true);
  assert.equal(f(phone(), { expected_speed: 275 }), true);
  assert.equal(f(phone(), { expected_speed: 275.01 }), false);
  assert.equal(f(phone(), { expected_speed: 10, expected_desc: "good" }), false);
  const saver = phone((p) => p.device.data_saver_mode = true); // 55 Mbps, Good
  assert.equal(f(saver, { expected_speed: 200, expected_desc: "excellent" }), false);
  assert.equal(f(saver, { expected_speed: 50, expected_desc: "GOOD" }), true);
  // No connection counts as 0 Mbps.
  const dead = phone((p) => p.device.airplane_mode = true);
  assert.equal(f(dead, { expected_speed: 0 }), true);
  assert.equal(f(dead, { expected_speed: 0.1 }), false);
  assert.equal(f(dead, { expected_speed: 0, expected_desc: "very poor" }), false);
});

Deno.test("assert_service_status compares the connection status", () => {
  const f = user.assert_service_status!;
  assert.equal(f(phone(), { expected_status: "connected" }), true);
  assert.equal(f(phone(), { expected_status: "no_service" }), false);
  assert.equal(
    f(phone((p) => p.device.sim_card_missing = true), { expected_status: "no_service" }),
    true,
  );
  // An unknown status is a bad assertion, not a false one.
  assert.throws(() => f(phone(), { expected_status: "offline" }), /bad arguments/);
});

Deno.test("assert_can_send_mms compares MMS capability with the expectation", () => {
  const f = user.assert_can_send_mms!;
  assert.equal(f(phone(), { expected_status: true }), true);
  const noMmsc = phone((p) => p.device.active_apn_settings.mmsc_url = null);
  assert.equal(f(noMmsc, { expected_status: true }), false);
  assert.equal(f(noMmsc, { expected_status: false }), true);
});

Deno.test("assert_data_refueling_amount checks the customer's line within 1e-6", () => {
  const f = agent.assert_data_refueling_amount!;
  const db = agentWorld();
  db.lines[0]!.data_refueling_gb = 2.0000001;
  assert.equal(f(db, { customer_id: "C1", line_id: "L1", expected_amount: 2 }), true);
  assert.equal(f(db, { customer_id: "C1", line_id: "L1", expected_amount: 2.1 }), false);
  // Another customer's line, or no such customer: false.
  assert.equal(f(db, { customer_id: "C2", line_id: "L1", expected_amount: 2 }), false);
  assert.equal(f(db, { customer_id: "C9", line_id: "L1", expected_amount: 2 }), false);
});

Deno.test("assert_no_overdue_bill holds when the bill is gone or paid", () => {
  const f = agent.assert_no_overdue_bill!;
  const db = agentWorld();
  assert.equal(f(db, { overdue_bill_id: "B1" }), true); // Paid
  assert.equal(f(db, { overdue_bill_id: "B2" }), false); // Issued
  assert.equal(f(db, { overdue_bill_id: "B404" }), true);
});

Deno.test("evaluate() routes predicates by side and reports bad calls as errors", () => {
  const env = testEnvironment();
  const [ok, wrongSide, badArgs] = env.evaluate([
    {
      side: "user",
      func_name: "assert_service_status",
      arguments: { expected_status: "connected" },
      assert_value: true,
    },
    {
      side: "agent",
      func_name: "assert_service_status",
      arguments: { expected_status: "connected" },
      assert_value: true,
    },
    { side: "user", func_name: "assert_mobile_data_status", arguments: {}, assert_value: true },
  ]);
  assert.equal(ok!.passed, true);
  assert.equal(wrongSide!.passed, false);
  assert.match(wrongSide!.error!, /unknown predicate/);
  assert.equal(badArgs!.passed, false);
  assert.match(badArgs!.error!, /bad arguments/);
});

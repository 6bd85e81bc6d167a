import assert from "node:assert/strict";
import { agentWorld, phoneOf, phoneWorld, recordsOf, testEnvironment } from "./_testing.ts";
import { findBill } from "./agent_db.ts";
import { applyTelecomDelta, syncTelecomState } from "./sync.ts";
import { simulateNetworkSearch } from "./network_search.ts";

const noDelta = { agent: {}, user: {} };

Deno.test("syncTelecomState() does nothing for a phone without a number or a known line", () => {
  assert.deepEqual(syncTelecomState(agentWorld(), phoneWorld(null)), noDelta);
  assert.deepEqual(syncTelecomState(agentWorld(), phoneWorld("555-999-0000")), noDelta);
  assert.deepEqual(syncTelecomState(agentWorld(), {}), noDelta);
  assert.deepEqual(syncTelecomState({}, phoneWorld("555-000-1001")), noDelta);
});

Deno.test("syncTelecomState() mirrors the line onto the phone, then reaches a steady state", () => {
  const db = agentWorld();
  const phone = phoneWorld("555-000-1003"); // L3: active, roaming on, 0 of 50 GB used
  assert.deepEqual(syncTelecomState(db, phone), {
    agent: {},
    user: { "surroundings.roaming_allowed": true },
  });
  assert.equal(phone.surroundings.roaming_allowed, true);
  assert.deepEqual(syncTelecomState(db, phone), noDelta);
  db.lines[2]!.status = "Suspended";
  db.lines[2]!.roaming_enabled = false;
  db.lines[2]!.data_used_gb = 50;
  assert.deepEqual(syncTelecomState(db, phone), {
    agent: {},
    user: {
      "surroundings.line_active": false,
      "surroundings.roaming_allowed": false,
      "surroundings.mobile_data_usage_exceeded": true,
    },
  });
  assert.deepEqual(syncTelecomState(db, phone), noDelta);
  // Refuelled data raises the quota.
  db.lines[2]!.data_refueling_gb = 0.5;
  assert.deepEqual(syncTelecomState(db, phone).user, {
    "surroundings.mobile_data_usage_exceeded": false,
  });
});

Deno.test("syncTelecomState() surfaces a bill awaiting payment as the phone's request", () => {
  const db = agentWorld();
  const phone = phoneWorld("555-000-1001");
  findBill(db, "B2")!.status = "Awaiting Payment";
  const request = { bill_id: "B2", amount_due: 32.5, paid: false };
  assert.deepEqual(syncTelecomState(db, phone).user, { "surroundings.payment_request": request });
  assert.deepEqual(phone.surroundings.payment_request, request);
  // An open, unpaid request stays as it is.
  assert.deepEqual(syncTelecomState(db, phone), noDelta);
});

Deno.test("syncTelecomState() settles a paid request and does not resurface the paid bill", () => {
  const db = agentWorld();
  const phone = phoneWorld("555-000-1001");
  findBill(db, "B2")!.status = "Awaiting Payment";
  phone.surroundings.payment_request = { bill_id: "B2", amount_due: 32.5, paid: true };
  assert.deepEqual(syncTelecomState(db, phone), {
    agent: { "bills[B2].status": "Paid" },
    user: { "surroundings.payment_request": null },
  });
  assert.equal(findBill(db, "B2")!.status, "Paid");
  assert.equal(phone.surroundings.payment_request, null);
  assert.deepEqual(syncTelecomState(db, phone), noDelta);
});

Deno.test("syncTelecomState() clears a paid request for an unknown bill, and surfaces the next one", () => {
  const db = agentWorld();
  const phone = phoneWorld("555-000-1001");
  phone.surroundings.payment_request = { bill_id: "B404", amount_due: 1, paid: true };
  assert.deepEqual(syncTelecomState(db, phone), {
    agent: {},
    user: { "surroundings.payment_request": null },
  });
  // Paying one request and finding another bill awaiting payment in the same pass.
  findBill(db, "B1")!.status = "Awaiting Payment";
  findBill(db, "B2")!.status = "Awaiting Payment";
  phone.surroundings.payment_request = { bill_id: "B2", amount_due: 32.5, paid: true };
  assert.deepEqual(syncTelecomState(db, phone), {
    agent: { "bills[B2].status": "Paid" },
    user: { "surroundings.payment_request": { bill_id: "B1", amount_due: 30, paid: false } },
  });
});

Deno.test("applyTelecomDelta() sets surroundings and re-runs the network search", () => {
  const phone = phoneWorld("555-000-1001");
  simulateNetworkSearch(phone);
  applyTelecomDelta(phone, { "surroundings.line_active": false }, "user");
  assert.equal(phone.surroundings.line_active, false);
  assert.equal(phone.device.network_connection_status, "no_service");
  applyTelecomDelta(phone, { "surroundings.line_active": true }, "user");
  assert.equal(phone.device.network_connection_status, "connected");
});

Deno.test("applyTelecomDelta() sets a bill field by id, and ignores an unknown bill", () => {
  const db = agentWorld();
  applyTelecomDelta(db, { "bills[B2].status": "Paid", "bills[B404].status": "Paid" }, "agent");
  assert.equal(findBill(db, "B2")!.status, "Paid");
  assert.equal(db.bills.length, 4);
});

Deno.test("applyTelecomDelta() sets other dotted paths and skips ones whose parents are missing", () => {
  const phone = phoneWorld();
  applyTelecomDelta(phone, { "device.battery_level": 12, "device.nothing.here": 1 }, "user");
  assert.equal(phone.device.battery_level, 12);
  assert.equal("nothing" in phone.device, false);
});

Deno.test("applyTelecomDelta() tolerates a phone delta sent to the agent's database", () => {
  const db: Record<string, unknown> = agentWorld();
  applyTelecomDelta(db, { "surroundings.line_active": false }, "agent");
  // As the reference's applier: the field is set, and no network search is attempted.
  assert.deepEqual(db.surroundings, { line_active: false });
});

Deno.test("the Environment syncs after a recorded write: a suspended line loses service", () => {
  const env = testEnvironment();
  env.sync();
  assert.equal(phoneOf(env).device.network_connection_status, "connected");
  env.call("agent", "suspend_line", { customer_id: "C1", line_id: "L1", reason: "test" });
  assert.equal(phoneOf(env).surroundings.line_active, false);
  assert.equal(phoneOf(env).device.network_connection_status, "no_service");
  env.call("agent", "resume_line", { customer_id: "C1", line_id: "L1" });
  assert.equal(phoneOf(env).device.network_connection_status, "connected");
});

Deno.test("the Environment carries a payment from request to paid bill across both sides", () => {
  const env = testEnvironment();
  env.sync();
  env.call("agent", "send_payment_request", { customer_id: "C1", bill_id: "B2" });
  assert.equal(
    env.call("user", "check_payment_request", {}).result,
    "You have a payment request for bill B2 of 32.5 USD.",
  );
  env.call("user", "make_payment", {});
  assert.equal(findBill(recordsOf(env), "B2")!.status, "Paid");
  assert.equal(phoneOf(env).surroundings.payment_request, null);
  assert.equal(
    env.call("user", "make_payment", {}).result,
    "You do not have a payment request.",
  );
  assert.deepEqual(env.actions.map((a) => `${a.side}:${a.name}`), [
    "agent:send_payment_request",
    "user:make_payment",
  ]);
});

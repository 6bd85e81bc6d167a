import assert from "node:assert/strict";
import { EXIT_TRANSFER } from "../common.ts";
import { recordsOf, testEnvironment, TODAY } from "./_testing.ts";
import { findBill, findCustomer, findLine } from "./agent_db.ts";

const toolError = (message: string) => ({ status: "error", error_type: "tool_error", message });

Deno.test("get_customer_by_phone finds a customer by contact number or by line", () => {
  const env = testEnvironment();
  const byContact = env.call("agent", "get_customer_by_phone", { phone_number: "555-000-0002" });
  assert.equal((byContact.result as { customer_id: string }).customer_id, "C2");
  const byLine = env.call("agent", "get_customer_by_phone", { phone_number: "555-000-1002" });
  assert.equal((byLine.result as { customer_id: string }).customer_id, "C1");
  const missing = env.call("agent", "get_customer_by_phone", { phone_number: "555-999-9999" });
  assert.equal(missing.ok, false);
  assert.deepEqual(missing.result, toolError("Customer with phone number 555-999-9999 not found"));
});

Deno.test("get_customer_by_id returns the customer or a tool error", () => {
  const env = testEnvironment();
  const hit = env.call("agent", "get_customer_by_id", { customer_id: "C1" });
  assert.deepEqual(hit.result, findCustomer(recordsOf(env), "C1"));
  assert.deepEqual(
    env.call("agent", "get_customer_by_id", { customer_id: "C9" }).result,
    toolError("Customer with ID C9 not found"),
  );
});

Deno.test("get_customer_by_name matches the name case-insensitively and the birth date exactly", () => {
  const env = testEnvironment();
  const found = env.call("agent", "get_customer_by_name", {
    full_name: "ada TESTCASE",
    dob: "1990-01-02",
  });
  assert.deepEqual((found.result as { customer_id: string }[]).map((c) => c.customer_id), ["C1"]);
  const wrongDob = env.call("agent", "get_customer_by_name", {
    full_name: "Ada Testcase",
    dob: "1990-01-03",
  });
  assert.deepEqual([wrongDob.ok, wrongDob.result], [true, []]);
});

Deno.test("get_details_by_id dispatches on the id's first letter", () => {
  const env = testEnvironment();
  const field = (id: string, key: string) =>
    (env.call("agent", "get_details_by_id", { id }).result as Record<string, unknown>)[key];
  assert.equal(field("C2", "full_name"), "Bo Example");
  assert.equal(field("L3", "plan_id"), "P2");
  assert.equal(field("D1", "model"), "Test Phone");
  assert.equal(field("B2", "total_due"), 32.5);
  assert.equal(field("P1", "name"), "Small");
  assert.deepEqual(
    env.call("agent", "get_details_by_id", { id: "X1" }).result,
    toolError("Unknown ID format or type: X1"),
  );
  assert.deepEqual(
    env.call("agent", "get_details_by_id", { id: "L9" }).result,
    toolError("Object with ID L9 not found"),
  );
  assert.deepEqual(
    env.call("agent", "get_details_by_id", { id: "" }).result,
    toolError("Unknown ID format or type: "),
  );
});

Deno.test("get_bills_for_customer lists newest first, limited, with Python slice semantics", () => {
  const env = testEnvironment();
  const ids = (args: Record<string, unknown>) =>
    (env.call("agent", "get_bills_for_customer", args).result as { bill_id: string }[])
      .map((b) => b.bill_id);
  assert.deepEqual(ids({ customer_id: "C1" }), ["B3", "B2", "B1"]);
  assert.deepEqual(ids({ customer_id: "C1", limit: 2 }), ["B3", "B2"]);
  assert.deepEqual(ids({ customer_id: "C1", limit: "1" }), ["B3"]);
  assert.deepEqual(ids({ customer_id: "C1", limit: -1 }), ["B3", "B2"]);
  assert.deepEqual(ids({ customer_id: "C1", limit: 0 }), []);
  assert.deepEqual(
    env.call("agent", "get_bills_for_customer", { customer_id: "C9" }).result,
    toolError("Customer with ID C9 not found"),
  );
  assert.equal(
    env.call("agent", "get_bills_for_customer", { customer_id: "C1", limit: 1.5 }).ok,
    false,
  );
});

Deno.test("get_data_usage reports the cycle ending on the last day of the scenario's month", () => {
  const env = testEnvironment();
  assert.deepEqual(
    env.call("agent", "get_data_usage", { customer_id: "C1", line_id: "L1" }).result,
    {
      line_id: "L1",
      data_used_gb: 1.5,
      data_limit_gb: 5,
      data_refueling_gb: 0,
      cycle_end_date: "2025-02-28",
    },
  );
  assert.deepEqual(
    env.call("agent", "get_data_usage", { customer_id: "C1", line_id: "L3" }).result,
    toolError("Line L3 not found for customer C1"),
  );
});

Deno.test("suspend_line suspends an active line from today and records it", () => {
  const env = testEnvironment();
  const out = env.call("agent", "suspend_line", {
    customer_id: "C1",
    line_id: "L1",
    reason: "travel",
  });
  assert.equal(out.ok, true);
  assert.equal(
    (out.result as { message: string }).message,
    "Line suspended successfully. $5/month holding fee will apply.",
  );
  const line = findLine(recordsOf(env), "L1")!;
  assert.equal(line.status, "Suspended");
  assert.equal(line.suspension_start_date, TODAY);
  assert.deepEqual(out.record, {
    action_type: "suspend_line",
    name: "suspend_line",
    arguments: { customer_id: "C1", line_id: "L1", reason: "travel" },
    result: { line_id: "L1", status: "Suspended" },
    side: "agent",
  });
  const again = env.call("agent", "suspend_line", {
    customer_id: "C1",
    line_id: "L1",
    reason: "x",
  });
  assert.deepEqual(again.result, toolError("Line must be active to suspend"));
  assert.equal(env.actions.length, 1);
});

Deno.test("resume_line reactivates a suspended line and clears its suspension date", () => {
  const env = testEnvironment();
  env.call("agent", "suspend_line", { customer_id: "C1", line_id: "L1", reason: "x" });
  const out = env.call("agent", "resume_line", { customer_id: "C1", line_id: "L1" });
  assert.equal((out.result as { message: string }).message, "Line resumed successfully");
  assert.equal(findLine(recordsOf(env), "L1")!.status, "Active");
  assert.equal(findLine(recordsOf(env), "L1")!.suspension_start_date, null);
  assert.deepEqual(out.record?.result, { line_id: "L1", status: "Active" });
  assert.deepEqual(
    env.call("agent", "resume_line", { customer_id: "C1", line_id: "L1" }).result,
    toolError("Line must be suspended to resume"),
  );
});

Deno.test("enable_roaming and disable_roaming record a change, and a no-op records nothing", () => {
  const env = testEnvironment();
  const on = env.call("agent", "enable_roaming", { customer_id: "C1", line_id: "L1" });
  assert.equal(on.result, "Roaming enabled successfully");
  assert.deepEqual(on.record?.result, { roaming_enabled: true });
  const again = env.call("agent", "enable_roaming", { customer_id: "C1", line_id: "L1" });
  assert.deepEqual([again.ok, again.result, again.record], [
    true,
    "Roaming was already enabled",
    undefined,
  ]);
  const off = env.call("agent", "disable_roaming", { customer_id: "C1", line_id: "L1" });
  assert.equal(off.result, "Roaming disabled successfully");
  assert.deepEqual(off.record?.arguments, { customer_id: "C1", line_id: "L1" });
  const offAgain = env.call("agent", "disable_roaming", { customer_id: "C1", line_id: "L1" });
  assert.deepEqual([offAgain.result, offAgain.record], ["Roaming was already disabled", undefined]);
  assert.deepEqual(env.actions.map((a) => a.name), ["enable_roaming", "disable_roaming"]);
});

Deno.test("send_payment_request marks the bill and refuses a second open request", () => {
  const env = testEnvironment();
  const out = env.call("agent", "send_payment_request", { customer_id: "C1", bill_id: "B2" });
  assert.equal(out.result, "Payment request sent to the customer for bill B2");
  assert.equal(findBill(recordsOf(env), "B2")!.status, "Awaiting Payment");
  assert.deepEqual(out.record?.result, { bill_id: "B2", status: "Awaiting Payment" });
  assert.deepEqual(
    env.call("agent", "send_payment_request", { customer_id: "C1", bill_id: "B1" }).result,
    toolError("A bill is already awaiting payment for this customer"),
  );
  assert.deepEqual(
    env.call("agent", "send_payment_request", { customer_id: "C2", bill_id: "B2" }).result,
    toolError("Bill B2 not found for customer C2"),
  );
  assert.deepEqual(
    env.call("agent", "send_payment_request", { customer_id: "C9", bill_id: "B2" }).result,
    toolError("Customer C9 not found"),
  );
});

Deno.test("refuel_data adds data and charges the customer's draft bill", () => {
  const env = testEnvironment();
  const out = env.call("agent", "refuel_data", { customer_id: "C1", line_id: "L1", gb_amount: 2 });
  assert.deepEqual(out.result, {
    message: "Successfully added 2.0 GB of data for line L1 for $5.00",
    new_data_refueling_gb: 2,
    charge: 5,
  });
  assert.deepEqual(out.record, {
    action_type: "refuel_data",
    name: "refuel_data",
    arguments: { customer_id: "C1", line_id: "L1", gb_amount: 2 },
    result: { new_data_refueling_gb: 2, charge: 5 },
    side: "agent",
  });
  const db = recordsOf(env);
  assert.equal(findLine(db, "L1")!.data_refueling_gb, 2);
  const draft = findBill(db, "B3")!;
  assert.equal(draft.total_due, 5);
  assert.deepEqual(draft.line_items, [{
    description: "Data refueling: 2.0 GB at $2.5/GB",
    amount: 5,
    date: TODAY,
    item_type: "Charge",
  }]);
  assert.equal(db.bills.length, 4);
});

Deno.test("refuel_data opens next month's draft bill with a seeded id when there is none", () => {
  const run = (seed: string) => {
    const env = testEnvironment({}, seed);
    env.call("agent", "refuel_data", { customer_id: "C2", line_id: "L3", gb_amount: "1.5" });
    return recordsOf(env);
  };
  const db = run("seed-a");
  const customer = findCustomer(db, "C2")!;
  assert.equal(customer.bill_ids.length, 2);
  const bill = findBill(db, customer.bill_ids[1]!)!;
  assert.match(bill.bill_id, /^B[0-9a-f]{8}$/);
  assert.deepEqual({ ...bill, bill_id: "" }, {
    bill_id: "",
    customer_id: "C2",
    period_start: "2025-03-01",
    period_end: "2025-03-31",
    issue_date: "2025-03-01",
    total_due: 0.15000000000000002,
    due_date: "2025-03-15",
    line_items: [{
      description: "Data refueling: 1.5 GB at $0.1/GB",
      amount: 0.15000000000000002,
      date: TODAY,
      item_type: "Charge",
    }],
    status: "Draft",
  });
  // Same seed, same id; another seed, another id.
  assert.equal(findCustomer(run("seed-a"), "C2")!.bill_ids[1], bill.bill_id);
  assert.notEqual(findCustomer(run("seed-b"), "C2")!.bill_ids[1], bill.bill_id);
});

Deno.test("refuel_data refuses a non-positive amount and leaves the world unchanged", () => {
  const env = testEnvironment();
  const before = env.hashes();
  for (const gb_amount of [0, -1]) {
    assert.deepEqual(
      env.call("agent", "refuel_data", { customer_id: "C1", line_id: "L1", gb_amount }).result,
      toolError("Refuel amount must be positive"),
    );
  }
  assert.deepEqual(
    env.call("agent", "refuel_data", { customer_id: "C1", line_id: "L9", gb_amount: 1 }).result,
    toolError("Line L9 not found for customer C1"),
  );
  assert.deepEqual(env.hashes(), before);
});

Deno.test("transfer_to_human_agents records the summary and ends the call", () => {
  const env = testEnvironment();
  const out = env.call("agent", "transfer_to_human_agents", { summary: "cannot fix" });
  assert.equal(out.result, "Transfer successful");
  assert.equal(out.exit, EXIT_TRANSFER);
  assert.deepEqual(out.record, {
    action_type: "transfer_to_human_agents",
    name: "transfer_to_human_agents",
    arguments: { summary: "cannot fix" },
    result: { transferred: true },
    side: "agent",
  });
});

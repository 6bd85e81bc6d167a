import assert from "node:assert/strict";
import { callFails, callOk, type Json, testEnv } from "./_test_world.ts";

const PAX = { confirmation_number: "QX7R2M", passenger_id: "PAX001" };

Deno.test("issue_travel_credit stores a year-long credit under a code from booking and passenger", () => {
  const env = testEnv();
  const r = callOk(env, "issue_travel_credit", {
    ...PAX,
    amount: 120,
    credit_reason: "cancellation_non_refundable",
  });
  assert.deepEqual(r, {
    status: "success",
    confirmation_number: "QX7R2M",
    passenger_id: "PAX001",
    credit_code: "TCQX7R2MPAX",
    amount: 120,
    valid_months: 12,
    message: "$120.0 travel credit issued with code TCQX7R2MPAX",
  });
  assert.deepEqual((env.db.travel_credits as Json).TCQX7R2MPAX, {
    credit_code: "TCQX7R2MPAX",
    confirmation_number: "QX7R2M",
    passenger_id: "PAX001",
    amount: 120,
    credit_reason: "cancellation_non_refundable",
    issued_date: "2026-04-10",
    expiry_date: "2027-04-10",
    status: "active",
  });
  assert.deepEqual(env.actions[0], {
    action_type: "issue_travel_credit",
    ...PAX,
    amount: 120,
    credit_reason: "cancellation_non_refundable",
    side: "agent",
  });
});

Deno.test("issue_travel_credit errors change nothing", () => {
  const env = testEnv();
  const args = { ...PAX, amount: 50, credit_reason: "goodwill" };
  assert.equal(
    callFails(env, "issue_travel_credit", { ...args, confirmation_number: "ZZZZZZ" }).error_type,
    "not_found",
  );
  assert.equal(
    callFails(env, "issue_travel_credit", { ...args, credit_reason: "apology" }).error_type,
    "invalid_credit_reason",
  );
  assert.equal(
    callFails(env, "issue_travel_credit", { ...args, amount: -5 }).error_type,
    "invalid_parameter",
  );
  assert.equal(
    callFails(env, "issue_travel_credit", { ...args, amount: "lots" }).message,
    "Invalid or missing parameter 'amount': Input should be a valid number, unable to parse string as a number",
  );
});

Deno.test("issue_hotel_voucher covers up to three nights", () => {
  const env = testEnv();
  const r = callOk(env, "issue_hotel_voucher", { ...PAX, num_nights: 2 });
  assert.deepEqual(r, {
    status: "success",
    confirmation_number: "QX7R2M",
    passenger_id: "PAX001",
    voucher_code: "HOTEL-QX7R2M",
    number_of_nights: 2,
    valid_at: "Any hotels in airport area",
    message: "Hotel voucher issued with code HOTEL-QX7R2M for 2 nights",
  });
  assert.deepEqual((env.db.hotel_vouchers as Json)["HOTEL-QX7R2M"], {
    voucher_code: "HOTEL-QX7R2M",
    confirmation_number: "QX7R2M",
    passenger_id: "PAX001",
    num_nights: 2,
    issued_date: "2026-04-10",
    status: "active",
  });
  assert.deepEqual(callFails(env, "issue_hotel_voucher", { ...PAX, num_nights: 4 }), {
    status: "error",
    error_type: "exceeds_authority",
    message: "Hotel vouchers can be issued for maximum of 3 nights",
  });
  assert.equal(
    callFails(env, "issue_hotel_voucher", { ...PAX, num_nights: 0 }).error_type,
    "invalid_parameter",
  );
  assert.equal(
    callFails(env, "issue_hotel_voucher", { ...PAX, confirmation_number: "ZZZZZZ", num_nights: 1 })
      .error_type,
    "not_found",
  );
});

Deno.test("issue_meal_voucher values the voucher by its reason", () => {
  const amounts: Record<string, number> = {
    delay_over_2_hours: 12,
    delay_over_4_hours: 15,
    cancellation_wait_same_day: 15,
    irrops_overnight: 25,
  };
  for (const [reason, amount] of Object.entries(amounts)) {
    const env = testEnv();
    const r = callOk(env, "issue_meal_voucher", { ...PAX, voucher_reason: reason });
    assert.equal(r.amount, amount);
    assert.equal(r.voucher_code, "MEAL-QX7R2M-PAX0");
    assert.equal(r.message, `$${amount} meal voucher issued with code MEAL-QX7R2M-PAX0`);
    assert.equal((env.db.meal_vouchers as Json)["MEAL-QX7R2M-PAX0"].amount, amount);
    assert.deepEqual(env.actions[0], {
      action_type: "issue_meal_voucher",
      ...PAX,
      voucher_reason: reason,
      amount,
      side: "agent",
    });
  }
  const env = testEnv();
  assert.equal(
    callFails(env, "issue_meal_voucher", { ...PAX, voucher_reason: "hungry" }).error_type,
    "invalid_voucher_reason",
  );
  assert.equal(
    callFails(env, "issue_meal_voucher", {
      ...PAX,
      confirmation_number: "ZZZZZZ",
      voucher_reason: "irrops_overnight",
    }).error_type,
    "not_found",
  );
});

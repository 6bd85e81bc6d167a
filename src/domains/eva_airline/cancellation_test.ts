import assert from "node:assert/strict";
import { callFails, callOk, journeyOf, reservation, testEnv } from "./_test_world.ts";

Deno.test("cancel_reservation of a non-refundable fare charges the fee and owes a credit", () => {
  const env = testEnv();
  const r = callOk(env, "cancel_reservation", {
    confirmation_number: "QX7R2M",
    journey_id: "FL_SK100_20260415",
    cancellation_reason: "voluntary",
  });
  assert.deepEqual(r, {
    status: "success",
    confirmation_number: "QX7R2M",
    journey_id: "FL_SK100_20260415",
    is_refundable: false,
    cancellation_fee: 100,
    refund_amount_eligible: 0,
    credit_amount_eligible: 120,
    reservation_status: "cancelled",
    message: "Journey FL_SK100_20260415 cancelled successfully",
  });
  const res = reservation(env, "QX7R2M");
  assert.equal(res.status, "cancelled");
  assert.equal(res.bookings[0].status, "cancelled");
  assert.equal(journeyOf(env, "FL_SK100_20260415").segments[0].available_seats.main_cabin, 13);
  assert.deepEqual(env.actions, [{
    action_type: "cancel_reservation",
    confirmation_number: "QX7R2M",
    journey_id: "FL_SK100_20260415",
    cancellation_reason: "voluntary",
    is_refundable: false,
    cancellation_fee: 100,
    refund_amount_eligible: 0,
    side: "agent",
  }]);
});

Deno.test("cancel_reservation refunds in full for a disruption, the 24-hour rule or a refundable fare", () => {
  for (const reason of ["irrops_refund", "24_hour_rule"]) {
    const r = callOk(testEnv(), "cancel_reservation", {
      confirmation_number: "QX7R2M",
      journey_id: "FL_SK100_20260415",
      cancellation_reason: reason,
    });
    assert.deepEqual([r.is_refundable, r.cancellation_fee, r.refund_amount_eligible], [
      true,
      0,
      220,
    ]);
  }
  const refundable = callOk(testEnv(), "cancel_reservation", {
    confirmation_number: "LG4T8P",
    journey_id: "FL_SK200_SK210_20260420",
    cancellation_reason: "medical",
  });
  assert.deepEqual([refundable.refund_amount_eligible, refundable.credit_amount_eligible], [
    700,
    0,
  ]);
});

Deno.test("cancel_reservation keeps the reservation active while another journey is live", () => {
  const env = testEnv();
  callOk(env, "rebook_flight", {
    confirmation_number: "LG4T8P",
    journey_id: "FL_SK200_SK210_20260420",
    new_journey_id: "FL_SK220_20260420",
    rebooking_type: "irrops_delay",
    waive_change_fee: false,
    flight_number: "SK210",
  });
  const r = callOk(env, "cancel_reservation", {
    confirmation_number: "LG4T8P",
    journey_id: "FL_SK220_20260420",
    cancellation_reason: "schedule_unacceptable",
  });
  assert.equal(r.reservation_status, "active");
  assert.equal(reservation(env, "LG4T8P").status, "changed");
});

Deno.test("cancel_reservation errors leave the world unchanged", () => {
  const env = testEnv();
  const args = {
    confirmation_number: "QX7R2M",
    journey_id: "FL_SK100_20260415",
    cancellation_reason: "voluntary",
  };
  callOk(env, "cancel_reservation", args);
  assert.deepEqual(callFails(env, "cancel_reservation", args), {
    status: "error",
    error_type: "already_cancelled",
    message: "Journey FL_SK100_20260415 is already cancelled",
  });
  assert.equal(
    callFails(env, "cancel_reservation", { ...args, confirmation_number: "ZZZZZZ" }).error_type,
    "not_found",
  );
  assert.equal(
    callFails(env, "cancel_reservation", { ...args, journey_id: "FL_SK102_20260417" }).error_type,
    "journey_not_found",
  );
  assert.equal(
    callFails(env, "cancel_reservation", { ...args, cancellation_reason: "changed_mind" })
      .error_type,
    "invalid_cancellation_reason",
  );
});

Deno.test("process_refund mints numbered refund ids per trial and stores the refund", () => {
  const env = testEnv();
  const first = callOk(env, "process_refund", {
    confirmation_number: "qx7r2m",
    refund_amount: 220,
    refund_type: "full_fare",
  });
  assert.deepEqual(first, {
    status: "success",
    confirmation_number: "QX7R2M",
    refund_id: "REF-QX7R2M-001",
    refund_amount: 220,
    refund_type: "full_fare",
    processing_days: 7,
    message: "$220.0 refund initiated, processing time 7 business days",
  });
  const second = callOk(env, "process_refund", {
    confirmation_number: "QX7R2M",
    refund_amount: "35.5",
    refund_type: "ancillary_fees",
  });
  assert.equal(second.refund_id, "REF-QX7R2M-002");
  assert.equal(second.message, "$35.5 refund initiated, processing time 7 business days");
  assert.deepEqual((env.db.refunds as Record<string, unknown>)["REF-QX7R2M-002"], {
    refund_id: "REF-QX7R2M-002",
    confirmation_number: "QX7R2M",
    refund_amount: 35.5,
    refund_type: "ancillary_fees",
    processing_days: 7,
    initiated_date: "2026-04-10",
    status: "processing",
  });
  assert.deepEqual(env.actions[1], {
    action_type: "process_refund",
    confirmation_number: "QX7R2M",
    refund_amount: 35.5,
    refund_type: "ancillary_fees",
    side: "agent",
  });
});

Deno.test("process_refund errors change nothing and do not use up a refund number", () => {
  const env = testEnv();
  const args = { confirmation_number: "QX7R2M", refund_amount: 10, refund_type: "full_fare" };
  assert.equal(
    callFails(env, "process_refund", { ...args, confirmation_number: "ZZZZZZ" }).error_type,
    "not_found",
  );
  assert.equal(
    callFails(env, "process_refund", { ...args, refund_type: "cash" }).error_type,
    "invalid_refund_type",
  );
  const zero = callFails(env, "process_refund", { ...args, refund_amount: 0 });
  assert.deepEqual(zero, {
    status: "error",
    error_type: "invalid_parameter",
    message: "Invalid or missing parameter 'refund_amount': Input should be greater than 0",
  });
  assert.equal(callOk(env, "process_refund", args).refund_id, "REF-QX7R2M-001");
});

import assert from "node:assert/strict";
import { z } from "zod";
import { Environment } from "../../env/environment.ts";
import { domain, EVA_ACTION_TYPES } from "./mod.ts";
import { testEnv } from "./_test_world.ts";

/** Schema-valid arguments for every tool (reference-harness §6.8). */
const VALID: Record<string, Record<string, unknown>> = {
  get_reservation: { confirmation_number: "QX7R2M", last_name: "Lindqvist" },
  get_flight_status: { flight_number: "SK100", flight_date: "2026-04-15" },
  get_disruption_info: { flight_number: "SK100", date: "2026-04-15" },
  search_rebooking_options: {
    origin: "BOS",
    destination: "ORD",
    date: "2026-04-17",
    passenger_count: 1,
    fare_class: "any",
  },
  rebook_flight: {
    confirmation_number: "QX7R2M",
    journey_id: "FL_SK100_20260415",
    new_journey_id: "FL_SK102_20260417",
    rebooking_type: "voluntary",
    waive_change_fee: false,
  },
  cancel_reservation: {
    confirmation_number: "QX7R2M",
    journey_id: "FL_SK100_20260415",
    cancellation_reason: "voluntary",
  },
  process_refund: { confirmation_number: "QX7R2M", refund_amount: 10, refund_type: "full_fare" },
  assign_seat: {
    confirmation_number: "QX7R2M",
    passenger_id: "PAX001",
    journey_id: "FL_SK100_20260415",
    seat_preference: "window",
  },
  add_baggage_allowance: {
    confirmation_number: "QX7R2M",
    journey_id: "FL_SK100_20260415",
    num_bags: 1,
  },
  add_meal_request: {
    confirmation_number: "QX7R2M",
    passenger_id: "PAX001",
    journey_id: "FL_SK100_20260415",
    meal_type: "vegan",
  },
  add_to_standby: {
    confirmation_number: "QX7R2M",
    journey_id: "FL_SK102_20260417",
    passenger_ids: ["PAX001"],
  },
  issue_travel_credit: {
    confirmation_number: "QX7R2M",
    passenger_id: "PAX001",
    amount: 10,
    credit_reason: "goodwill",
  },
  issue_hotel_voucher: { confirmation_number: "QX7R2M", passenger_id: "PAX001", num_nights: 1 },
  issue_meal_voucher: {
    confirmation_number: "QX7R2M",
    passenger_id: "PAX001",
    voucher_reason: "delay_over_2_hours",
  },
  transfer_to_agent: { confirmation_number: "QX7R2M", transfer_reason: "x", issue_summary: "y" },
  end_conversation: {},
};

Deno.test("the eva domain has the 15 upstream tools plus end_conversation, with class names as aliases", () => {
  assert.equal(domain.id, "eva_airline");
  assert.deepEqual(domain.tools.map((t) => t.name), Object.keys(VALID));
  assert.deepEqual(domain.tools.map((t) => t.aliases?.[0]).slice(0, 3), [
    "GetReservationTool",
    "GetFlightStatusTool",
    "GetDisruptionInfoTool",
  ]);
  assert.deepEqual(EVA_ACTION_TYPES, [
    "rebook_flight",
    "cancel_reservation",
    "process_refund",
    "assign_seat",
    "add_baggage_allowance",
    "add_meal_request",
    "add_to_standby",
    "issue_travel_credit",
    "issue_hotel_voucher",
    "issue_meal_voucher",
    "transfer_to_agent",
  ]);
});

Deno.test("every eva tool succeeds on the test world with valid arguments", () => {
  for (const [name, args] of Object.entries(VALID)) {
    const r = testEnv().call("agent", name, args);
    assert.equal(r.ok, true, `${name}: ${JSON.stringify(r.result)}`);
  }
});

Deno.test("every eva tool answers an empty world or empty arguments with a structured error", () => {
  const empty = new Environment(domain, { db: {} }, { today: "2026-04-10", seed: "s" });
  for (const [name, args] of Object.entries(VALID)) {
    if (name === "end_conversation") continue;
    const r = empty.call("agent", name, args);
    assert.deepEqual(
      [r.ok, (r.result as { error_type: string }).error_type],
      [false, "db_not_initialized"],
      name,
    );
    const noArgs = testEnv().call("agent", name, {});
    assert.equal(noArgs.ok, false, name);
    assert.equal((noArgs.result as { status: string }).status, "error", name);
    assert.match((noArgs.result as { error_type: string }).error_type, /^invalid_/, name);
  }
});

Deno.test("eva argument schemas render as JSON Schema for an LLM", () => {
  for (const tool of domain.tools) {
    const schema = z.toJSONSchema(tool.args, { io: "input" }) as { properties?: object };
    assert.equal(typeof schema.properties, "object", tool.name);
  }
  const rebook = z.toJSONSchema(domain.tools.find((t) => t.name === "rebook_flight")!.args, {
    io: "input",
  }) as { properties: Record<string, { type?: string }>; required: string[] };
  assert.equal(rebook.properties.waive_change_fee!.type, "boolean");
  assert.deepEqual(rebook.required, [
    "confirmation_number",
    "journey_id",
    "new_journey_id",
    "rebooking_type",
    "waive_change_fee",
  ]);
});

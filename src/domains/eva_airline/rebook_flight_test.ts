import assert from "node:assert/strict";
import {
  callFails,
  callOk,
  journeyOf,
  type Json,
  reservation,
  testEnv,
  testWorld,
} from "./_test_world.ts";
import { changeFee } from "./rebook_flight.ts";

const VOLUNTARY = {
  confirmation_number: "QX7R2M",
  journey_id: "FL_SK100_20260415",
  new_journey_id: "FL_SK102_20260417",
  rebooking_type: "voluntary",
  waive_change_fee: false,
};

Deno.test("changeFee follows the eva fee table", () => {
  assert.equal(changeFee("voluntary", false, "main_cabin"), 75);
  assert.equal(changeFee("voluntary", false, "business"), 0);
  assert.equal(changeFee("voluntary", false, "first"), 0);
  assert.equal(changeFee("same_day", false, "basic_economy"), 199);
  assert.equal(changeFee("same_day", false, "premium_economy"), 75);
  assert.equal(changeFee("irrops_delay", false, "basic_economy"), 0);
  assert.equal(changeFee("voluntary", true, "main_cabin"), 0);
  // Not an "irrops" type, so it is priced as a voluntary change (as the reference does).
  assert.equal(changeFee("missed_connection_airline_fault", false, "main_cabin"), 75);
});

Deno.test("rebook_flight prices a voluntary change and moves the booking", () => {
  const env = testEnv();
  const r = callOk(env, "rebook_flight", VOLUNTARY);
  assert.deepEqual(r.cost_summary, {
    original_fare_class: "main_cabin",
    new_fare_class: "main_cabin",
    cabin_changed: false,
    change_fee: 75,
    fare_difference: 40,
    credit_due: 0,
    total_collected: 115,
    fee_waived: false,
  });
  assert.equal(r.message, "Successfully rebooked to flight FL_SK102_20260417");
  assert.deepEqual([r.new_journey.departure, r.new_journey.arrival], ["08:00", "10:00"]);
  const res = reservation(env, "QX7R2M");
  assert.equal(res.status, "changed");
  assert.deepEqual(res.bookings.map((b: Json) => [b.journey_id, b.status]), [
    ["FL_SK100_20260415", "cancelled"],
    ["FL_SK102_20260417", "confirmed"],
  ]);
  assert.deepEqual(res.bookings[1], {
    journey_id: "FL_SK102_20260417",
    fare_class: "main_cabin",
    fare_paid: 260,
    status: "confirmed",
    segments: [{
      flight_number: "SK102",
      date: "2026-04-17",
      fare_paid: 260,
      seat: null,
      bags_checked: 1,
      meal_request: "vegan",
    }],
  });
  assert.deepEqual(env.actions, [{
    action_type: "rebook_flight",
    confirmation_number: "QX7R2M",
    old_journey_id: "FL_SK100_20260415",
    new_journey_id: "FL_SK102_20260417",
    rebooking_type: "voluntary",
    original_fare_class: "main_cabin",
    new_fare_class: "main_cabin",
    change_fee: 75,
    fare_difference: 40,
    total_collected: 115,
    partial_rebook: false,
    side: "agent",
  }]);
});

Deno.test("rebook_flight takes a seat on the new journey and frees one on the old", () => {
  const env = testEnv();
  callOk(env, "rebook_flight", VOLUNTARY);
  assert.equal(journeyOf(env, "FL_SK102_20260417").segments[0].available_seats.main_cabin, 11);
  assert.equal(journeyOf(env, "FL_SK100_20260415").segments[0].available_seats.main_cabin, 13);
});

Deno.test("rebook_flight to a cheaper fare owes a credit and collects only the fee", () => {
  const env = testEnv();
  const r = callOk(env, "rebook_flight", { ...VOLUNTARY, new_journey_id: "FL_SK110_20260417" });
  assert.equal(r.cost_summary.fare_difference, -40);
  assert.equal(r.cost_summary.credit_due, 40);
  assert.equal(r.cost_summary.total_collected, 75);
});

Deno.test("rebook_flight for a disruption charges nothing and keeps the fare paid", () => {
  const env = testEnv();
  const r = callOk(env, "rebook_flight", { ...VOLUNTARY, rebooking_type: "irrops_cancellation" });
  assert.equal(r.cost_summary.change_fee, 0);
  assert.equal(r.cost_summary.total_collected, 0);
  assert.equal(r.cost_summary.fee_waived, true);
  const booking = reservation(env, "QX7R2M").bookings[1];
  assert.equal(booking.fare_paid, 220);
  assert.equal(booking.segments[0].fare_paid, 220);
});

Deno.test("rebook_flight into a new cabin says so and takes that cabin's seat", () => {
  const env = testEnv();
  const r = callOk(env, "rebook_flight", { ...VOLUNTARY, new_fare_class: "business" });
  assert.equal(r.message, "Successfully rebooked to flight FL_SK102_20260417 in business");
  assert.equal(r.cost_summary.cabin_changed, true);
  assert.equal(r.cost_summary.fare_difference, 680);
  assert.equal(journeyOf(env, "FL_SK102_20260417").segments[0].available_seats.business, 1);
  assert.equal(journeyOf(env, "FL_SK100_20260415").segments[0].available_seats.main_cabin, 13);
});

Deno.test("rebook_flight of one leg splits the booking and carries that leg's bags and meal", () => {
  const env = testEnv();
  const r = callOk(env, "rebook_flight", {
    confirmation_number: "LG4T8P",
    journey_id: "FL_SK200_SK210_20260420",
    new_journey_id: "FL_SK220_20260420",
    rebooking_type: "irrops_delay",
    waive_change_fee: false,
    flight_number: "sk210",
  });
  assert.equal(r.partial_rebook, true);
  assert.deepEqual(r.replaced_segment, {
    flight_number: "SK210",
    origin: null,
    destination: null,
    fare_paid: 380,
  });
  assert.deepEqual(r.kept_segments, [{
    flight_number: "SK200",
    origin: null,
    destination: null,
    fare_paid: 320,
    seat: "10A",
  }]);
  const bookings = reservation(env, "LG4T8P").bookings;
  assert.deepEqual(bookings.map((b: Json) => [b.journey_id, b.status, b.fare_paid]), [
    ["FL_SK200_SK210_20260420", "cancelled", 700],
    ["FL_SK220_20260420", "confirmed", 380],
    ["FL_SK200_SK210_20260420", "confirmed", 320],
  ]);
  assert.deepEqual(bookings[1].segments[0], {
    flight_number: "SK220",
    date: "2026-04-20",
    fare_paid: 380,
    seat: null,
    bags_checked: 2,
    meal_request: "kosher",
  });
  assert.equal(env.actions[0]!.replaced_flight_number, "SK210");
  assert.equal(env.actions[0]!.partial_rebook, true);
});

Deno.test("rebook_flight of a whole connecting journey carries bags leg by leg", () => {
  const env = testEnv();
  callOk(env, "rebook_flight", {
    confirmation_number: "LG4T8P",
    journey_id: "FL_SK200_SK210_20260420",
    new_journey_id: "FL_SK230_SK240_20260421",
    rebooking_type: "irrops_schedule_change",
    waive_change_fee: false,
  });
  const segments = reservation(env, "LG4T8P").bookings[1].segments;
  assert.deepEqual(segments.map((s: Json) => [s.flight_number, s.fare_paid, s.meal_request]), [
    ["SK230", 320, null],
    ["SK240", 380, "kosher"],
  ]);
});

Deno.test("rebook_flight after a partial rebook cancels the first booking of that journey id", () => {
  const env = testEnv();
  const partial = {
    confirmation_number: "LG4T8P",
    journey_id: "FL_SK200_SK210_20260420",
    new_journey_id: "FL_SK220_20260420",
    rebooking_type: "irrops_delay",
    waive_change_fee: false,
    flight_number: "SK210",
  };
  callOk(env, "rebook_flight", partial);
  callOk(env, "rebook_flight", {
    ...partial,
    new_journey_id: "FL_SK230_SK240_20260421",
    flight_number: "SK200",
  });
  // As the reference: the kept booking stays confirmed, the original is "cancelled" again.
  const statuses = reservation(env, "LG4T8P").bookings.map((b: Json) => b.status);
  assert.deepEqual(statuses, ["cancelled", "confirmed", "confirmed", "confirmed"]);
});

Deno.test("rebook_flight errors leave the world unchanged", () => {
  const env = testEnv();
  assert.equal(
    callFails(env, "rebook_flight", { ...VOLUNTARY, confirmation_number: "ZZZZZZ" }).error_type,
    "not_found",
  );
  assert.equal(
    callFails(env, "rebook_flight", { ...VOLUNTARY, journey_id: "FL_SK999_20260415" }).error_type,
    "journey_not_found",
  );
  const missing = callFails(env, "rebook_flight", {
    ...VOLUNTARY,
    new_journey_id: "FL_SK999_20260417",
  });
  assert.deepEqual(missing, {
    status: "error",
    error_type: "flight_not_found",
    message: "Flight FL_SK999_20260417 not found",
  });
  assert.equal(
    callFails(env, "rebook_flight", { ...VOLUNTARY, new_journey_id: "FL_SK108_20260417" })
      .error_type,
    "not_bookable",
  );
  const noFare = callFails(env, "rebook_flight", { ...VOLUNTARY, new_fare_class: "first" });
  assert.equal(noFare.error_type, "fare_class_not_available");
  assert.equal(
    noFare.message,
    "Fare class 'first' is not available on flight FL_SK102_20260417",
  );
  assert.equal(
    callFails(env, "rebook_flight", { ...VOLUNTARY, new_journey_id: "FL_SK104_20260417" })
      .error_type,
    "no_seats_available",
  );
  const leg = callFails(env, "rebook_flight", { ...VOLUNTARY, flight_number: "SK555" });
  assert.equal(leg.error_type, "flight_not_found");
  assert.equal(leg.message, "Flight SK555 not found in journey FL_SK100_20260415");
});

Deno.test("rebook_flight validation failures map to eva error types", () => {
  const env = testEnv();
  const cases: [Record<string, unknown>, string][] = [
    [{ rebooking_type: "change" }, "invalid_rebooking_type"],
    [{ new_fare_class: "coach" }, "invalid_fare_class"],
    [{ journey_id: "SK100" }, "invalid_journey_id_format"],
    [{ new_journey_id: "FL_20260417" }, "invalid_journey_id_format"],
    [{ flight_number: "1234" }, "invalid_flight_number_format"],
    [{ waive_change_fee: "maybe" }, "invalid_parameter"],
  ];
  for (const [patch, type] of cases) {
    assert.equal(callFails(env, "rebook_flight", { ...VOLUNTARY, ...patch }).error_type, type);
  }
});

Deno.test("rebook_flight accepts a lax boolean and a null optional field, as pydantic does", () => {
  const world = testWorld();
  const env = testEnv(world);
  const r = callOk(env, "rebook_flight", {
    ...VOLUNTARY,
    waive_change_fee: "yes",
    new_fare_class: null,
    flight_number: null,
    unknown_extra: 1,
  });
  assert.equal(r.cost_summary.change_fee, 0);
  assert.equal(r.cost_summary.fee_waived, true);
});

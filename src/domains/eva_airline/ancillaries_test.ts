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
import { seatFor } from "./ancillaries.ts";

Deno.test("seatFor adds the passenger number to the cabin's first row and picks the letter", () => {
  assert.equal(seatFor("PAX001", "main_cabin", "window"), "21A");
  assert.equal(seatFor("PAX002", "premium_economy", "aisle"), "12C");
  assert.equal(seatFor("PAX003", "business", "middle"), "8B");
  assert.equal(seatFor("PAX001", "first", "no_preference"), "2C");
  assert.equal(seatFor("PAX010", "basic_economy", "window"), "35A");
  assert.throws(() => seatFor("PAX1", "main_cabin", "window"), /invalid literal/);
});

Deno.test("assign_seat sets the seat on the only leg without touching seat counts", () => {
  const env = testEnv();
  const before = journeyOf(env, "FL_SK100_20260415").segments[0].available_seats.main_cabin;
  const r = callOk(env, "assign_seat", {
    confirmation_number: "QX7R2M",
    passenger_id: "PAX001",
    journey_id: "FL_SK100_20260415",
    seat_preference: "aisle",
  });
  assert.deepEqual(r, {
    status: "success",
    confirmation_number: "QX7R2M",
    passenger_id: "PAX001",
    journey_id: "FL_SK100_20260415",
    flight_number: "SK100",
    seat_assigned: "21C",
    fare_class: "main_cabin",
    preference: "aisle",
    message: "Seat 21C (aisle) successfully assigned",
  });
  assert.equal(reservation(env, "QX7R2M").bookings[0].segments[0].seat, "21C");
  assert.equal(journeyOf(env, "FL_SK100_20260415").segments[0].available_seats.main_cabin, before);
  assert.deepEqual(env.actions, [{
    action_type: "assign_seat",
    confirmation_number: "QX7R2M",
    passenger_id: "PAX001",
    journey_id: "FL_SK100_20260415",
    flight_number: "SK100",
    seat_preference: "aisle",
    seat_assigned: "21C",
    side: "agent",
  }]);
});

Deno.test("assign_seat on a connecting journey needs the leg and seats only that leg", () => {
  const env = testEnv();
  const args = {
    confirmation_number: "LG4T8P",
    passenger_id: "PAX002",
    journey_id: "FL_SK200_SK210_20260420",
    seat_preference: "window",
  };
  const needLeg = callFails(env, "assign_seat", args);
  assert.deepEqual(needLeg, {
    status: "error",
    error_type: "flight_number_required",
    message: "Journey FL_SK200_SK210_20260420 has 2 segments; flight_number is required",
  });
  callOk(env, "assign_seat", { ...args, flight_number: "SK210" });
  const segments = reservation(env, "LG4T8P").bookings[0].segments;
  assert.deepEqual(segments.map((s: Json) => s.seat), ["10A", "12A"]);
});

Deno.test("assign_seat refuses a seat type or cabin the flight has no room in", () => {
  const env = testEnv();
  callOk(env, "rebook_flight", {
    confirmation_number: "QX7R2M",
    journey_id: "FL_SK100_20260415",
    new_journey_id: "FL_SK102_20260417",
    rebooking_type: "voluntary",
    waive_change_fee: false,
  });
  const args = {
    confirmation_number: "QX7R2M",
    passenger_id: "PAX001",
    journey_id: "FL_SK102_20260417",
    seat_preference: "window",
  };
  assert.deepEqual(callFails(env, "assign_seat", args), {
    status: "error",
    error_type: "seat_type_unavailable",
    message:
      "No window seats available in main_cabin on this flight. Available types: aisle, middle",
  });
  // No preference takes any seat type.
  assert.equal(
    callOk(env, "assign_seat", { ...args, seat_preference: "no_preference" }).seat_assigned,
    "21C",
  );

  const world: Json = testWorld();
  world.journeys.FL_SK100_20260415.segments[0].available_seats.main_cabin = 0;
  const noRoom = callFails(testEnv(world), "assign_seat", {
    ...args,
    journey_id: "FL_SK100_20260415",
  });
  assert.deepEqual(noRoom, {
    status: "error",
    error_type: "no_seats_available",
    message: "No seats available in main_cabin fare class",
  });
});

Deno.test("assign_seat lookup and validation errors change nothing", () => {
  const env = testEnv();
  const args = {
    confirmation_number: "QX7R2M",
    passenger_id: "PAX001",
    journey_id: "FL_SK100_20260415",
    seat_preference: "window",
  };
  assert.equal(
    callFails(env, "assign_seat", { ...args, confirmation_number: "ZZZZZZ" }).error_type,
    "not_found",
  );
  assert.equal(
    callFails(env, "assign_seat", { ...args, journey_id: "FL_SK102_20260417" }).error_type,
    "journey_not_found",
  );
  assert.equal(
    callFails(env, "assign_seat", { ...args, flight_number: "SK555" }).error_type,
    "flight_not_found",
  );
  assert.equal(
    callFails(env, "assign_seat", { ...args, seat_preference: "exit_row" }).error_type,
    "invalid_seat_preference",
  );
  const pax = callFails(env, "assign_seat", { ...args, passenger_id: "P1" });
  assert.equal(pax.error_type, "invalid_passenger_id_format");
  assert.equal(pax.message, "Invalid passenger_id 'P1': must be PAX<digits> (e.g. PAX001)");
  // A passenger id too short for a seat row fails as the reference's int() does.
  assert.equal(
    callFails(env, "assign_seat", { ...args, passenger_id: "PAX1" }).error_type,
    "internal_error",
  );
});

Deno.test("add_baggage_allowance sets bags on every leg, or on the one named", () => {
  const env = testEnv();
  const r = callOk(env, "add_baggage_allowance", {
    confirmation_number: "LG4T8P",
    journey_id: "FL_SK200_SK210_20260420",
    num_bags: "3",
  });
  assert.deepEqual(r, {
    status: "success",
    confirmation_number: "LG4T8P",
    journey_id: "FL_SK200_SK210_20260420",
    bags_checked: 3,
    message: "Baggage allowance set to 3 checked bag(s)",
  });
  callOk(env, "add_baggage_allowance", {
    confirmation_number: "LG4T8P",
    journey_id: "FL_SK200_SK210_20260420",
    num_bags: 0,
    flight_number: "SK200",
  });
  const segments = reservation(env, "LG4T8P").bookings[0].segments;
  assert.deepEqual(segments.map((s: Json) => s.bags_checked), [0, 3]);
  assert.deepEqual(env.actions.map((a) => [a.flight_number, a.num_bags]), [[null, 3], [
    "SK200",
    0,
  ]]);
});

Deno.test("add_baggage_allowance refuses more than five bags and unknown legs", () => {
  const env = testEnv();
  const args = { confirmation_number: "QX7R2M", journey_id: "FL_SK100_20260415", num_bags: 6 };
  assert.deepEqual(callFails(env, "add_baggage_allowance", args), {
    status: "error",
    error_type: "invalid_bag_count",
    message: "Invalid num_bags '6': Input should be less than or equal to 5",
  });
  assert.equal(
    callFails(env, "add_baggage_allowance", { ...args, num_bags: 1.5 }).message,
    "Invalid num_bags '1.5': Input should be a valid integer, got a number with a fractional part",
  );
  assert.equal(
    callFails(env, "add_baggage_allowance", { ...args, num_bags: 1, flight_number: "SK9" })
      .error_type,
    "flight_not_found",
  );
  assert.equal(
    callFails(env, "add_baggage_allowance", { ...args, num_bags: 1, confirmation_number: "AAAAAA" })
      .error_type,
    "not_found",
  );
});

Deno.test("add_meal_request sets the meal on the booking's legs", () => {
  const env = testEnv();
  const r = callOk(env, "add_meal_request", {
    confirmation_number: "LG4T8P",
    passenger_id: "PAX001",
    journey_id: "FL_SK200_SK210_20260420",
    meal_type: "halal",
    flight_number: "SK200",
  });
  assert.equal(r.message, "halal meal request added");
  const segments = reservation(env, "LG4T8P").bookings[0].segments;
  assert.deepEqual(segments.map((s: Json) => s.meal_request), ["halal", "kosher"]);
  assert.deepEqual(env.actions[0], {
    action_type: "add_meal_request",
    confirmation_number: "LG4T8P",
    passenger_id: "PAX001",
    journey_id: "FL_SK200_SK210_20260420",
    meal_type: "halal",
    flight_number: "SK200",
    side: "agent",
  });
  const bad = callFails(env, "add_meal_request", {
    confirmation_number: "LG4T8P",
    passenger_id: "PAX001",
    journey_id: "FL_SK200_SK210_20260420",
    meal_type: "pescatarian",
  });
  assert.equal(bad.error_type, "invalid_meal_type");
  assert.match(bad.message, /^Invalid meal_type 'pescatarian': Input should be 'vegetarian', /);
  assert.match(bad.message, /'none' or 'standard'$/);
});

Deno.test("add_to_standby queues passengers on the flight and on the reservation", () => {
  const env = testEnv();
  const r = callOk(env, "add_to_standby", {
    confirmation_number: "LG4T8P",
    journey_id: "FL_SK230_SK240_20260421",
    passenger_ids: ["PAX001", "PAX002"],
  });
  assert.equal(r.standby_list_position, 2);
  assert.equal(r.message, "Added 2 passenger(s) to standby list");
  assert.deepEqual(journeyOf(env, "FL_SK230_SK240_20260421").standby_list, [
    { confirmation_number: "LG4T8P", passenger_id: "PAX001", position: 1 },
    { confirmation_number: "LG4T8P", passenger_id: "PAX002", position: 2 },
  ]);
  assert.deepEqual(reservation(env, "LG4T8P").standby_list, [{
    journey_id: "FL_SK230_SK240_20260421",
    passenger_ids: ["PAX001", "PAX002"],
    position: 2,
    status: "pending",
  }]);
  const next = callOk(env, "add_to_standby", {
    confirmation_number: "QX7R2M",
    journey_id: "FL_SK230_SK240_20260421",
    passenger_ids: ["PAX001"],
  });
  assert.equal(next.standby_list_position, 3);
});

Deno.test("add_to_standby refuses unknown, cancelled or strangers' flights", () => {
  const env = testEnv();
  const args = {
    confirmation_number: "QX7R2M",
    journey_id: "FL_SK102_20260417",
    passenger_ids: ["PAX001"],
  };
  assert.equal(
    callFails(env, "add_to_standby", { ...args, journey_id: "FL_SK999_20260417" }).error_type,
    "flight_not_found",
  );
  assert.deepEqual(callFails(env, "add_to_standby", { ...args, journey_id: "FL_SK106_20260417" }), {
    status: "error",
    error_type: "flight_cancelled",
    message: "Cannot add to standby for cancelled flight",
  });
  assert.deepEqual(
    callFails(env, "add_to_standby", { ...args, passenger_ids: ["PAX001", "PAX007"] }),
    {
      status: "error",
      error_type: "invalid_passengers",
      message: "Unknown passenger ID(s): PAX007",
    },
  );
  const list = callFails(env, "add_to_standby", { ...args, passenger_ids: ["PAX001", "Bob"] });
  assert.equal(list.error_type, "invalid_passenger_id_format");
  assert.equal(
    list.message,
    "Invalid passenger_ids 'Bob': String should match pattern '^PAX\\d+$'",
  );
});

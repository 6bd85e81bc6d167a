import assert from "node:assert/strict";
import { callFails, callOk, type Json, testEnv, testWorld } from "./_test_world.ts";

Deno.test("get_reservation authenticates by last name in any case and upper-cases the code", () => {
  const env = testEnv();
  const r = callOk(env, "get_reservation", {
    confirmation_number: "qx7r2m",
    last_name: "LINDQVIST",
  });
  assert.deepEqual(r.status, "success");
  assert.deepEqual(r.reservation.confirmation_number, "QX7R2M");
  assert.deepEqual(env.actions.length, 0);
});

Deno.test("get_reservation adds each booked leg's route and schedule, not its live status", () => {
  const env = testEnv();
  const r = callOk(env, "get_reservation", { confirmation_number: "LG4T8P", last_name: "okafor" });
  const [first, second] = r.reservation.bookings[0].segments;
  assert.deepEqual(
    [first.origin, first.destination, first.scheduled_departure, first.scheduled_arrival],
    ["BOS", "DEN", "07:00", "10:00"],
  );
  assert.deepEqual([second.origin, second.destination], ["DEN", "SFO"]);
  assert.deepEqual("gate" in first || "status" in first, false);
  // The world itself is untouched.
  const stored = (env.db.reservations as Json).LG4T8P.bookings[0].segments[0];
  assert.deepEqual("origin" in stored, false);
});

Deno.test("get_reservation lists bookings by first flight date, then journey id", () => {
  const world = testWorld();
  const res = (world.reservations as Json).QX7R2M;
  res.bookings.unshift(
    {
      journey_id: "FL_SK110_20260417",
      status: "confirmed",
      segments: [{ flight_number: "SK110", date: "2026-04-17" }],
    },
    {
      journey_id: "FL_SK102_20260417",
      status: "confirmed",
      segments: [{ flight_number: "SK102", date: "2026-04-17" }],
    },
  );
  const r = callOk(testEnv(world), "get_reservation", {
    confirmation_number: "QX7R2M",
    last_name: "Lindqvist",
  });
  assert.deepEqual(r.reservation.bookings.map((b: Json) => b.journey_id), [
    "FL_SK100_20260415",
    "FL_SK102_20260417",
    "FL_SK110_20260417",
  ]);
});

Deno.test("get_reservation refuses a wrong last name and an unknown code", () => {
  const env = testEnv();
  const wrong = callFails(env, "get_reservation", {
    confirmation_number: "QX7R2M",
    last_name: "Smith",
  });
  assert.deepEqual(wrong, {
    status: "error",
    error_type: "authentication_failed",
    message: "Last name does not match reservation QX7R2M",
  });
  const missing = callFails(env, "get_reservation", {
    confirmation_number: "ZZZZZZ",
    last_name: "x",
  });
  assert.deepEqual(missing.error_type, "not_found");
  assert.deepEqual(missing.message, "Reservation ZZZZZZ not found");
});

Deno.test("get_reservation with a malformed code is a format error", () => {
  const r = callFails(testEnv(), "get_reservation", { confirmation_number: "QX7", last_name: "x" });
  assert.deepEqual(r.error_type, "invalid_confirmation_number_format");
  assert.deepEqual(
    r.message,
    "Invalid confirmation_number 'QX7': must be 6 alphanumeric characters",
  );
});

Deno.test("get_flight_status finds a journey by id and a connecting journey by a later leg", () => {
  const env = testEnv();
  const direct = callOk(env, "get_flight_status", {
    flight_number: "sk100",
    flight_date: "2026-04-15",
  });
  assert.deepEqual(direct.journey.journey_id, "FL_SK100_20260415");
  const leg = callOk(env, "get_flight_status", {
    flight_number: "SK210",
    flight_date: "2026-04-20",
  });
  assert.deepEqual(leg.journey.journey_id, "FL_SK200_SK210_20260420");
  const none = callFails(env, "get_flight_status", {
    flight_number: "SK999",
    flight_date: "2026-04-20",
  });
  assert.deepEqual(none, {
    status: "error",
    error_type: "not_found",
    message: "Flight SK999 not found for date 2026-04-20",
  });
  const bad = callFails(env, "get_flight_status", {
    flight_number: "SK100",
    flight_date: "04/15/2026",
  });
  assert.deepEqual(bad.error_type, "invalid_date_format");
});

Deno.test("get_disruption_info looks up flight and date, and reports none found", () => {
  const env = testEnv();
  const r = callOk(env, "get_disruption_info", { flight_number: "SK100", date: "2026-04-15" });
  assert.deepEqual(r.disruption.cause, "crew shortage");
  const none = callFails(env, "get_disruption_info", {
    flight_number: "SK102",
    date: "2026-04-17",
  });
  assert.deepEqual(none.message, "No disruption info found for flight SK102");
  const bad = callFails(env, "get_disruption_info", { flight_number: "100", date: "2026-04-17" });
  assert.deepEqual(bad.error_type, "invalid_flight_number_format");
  assert.deepEqual(
    bad.message,
    "Invalid flight_number '100': must be 2-3 letters followed by 1-4 digits (e.g. SK621)",
  );
});

Deno.test("search_rebooking_options keeps open, bookable journeys with seats, earliest first", () => {
  const env = testEnv();
  const r = callOk(env, "search_rebooking_options", {
    origin: "bos",
    destination: "ORD",
    date: "2026-04-17",
    passenger_count: 1,
    fare_class: "main_cabin",
  });
  // SK104 has no main cabin seat, SK106 is cancelled, SK108 is not bookable.
  assert.deepEqual(r.options.map((o: Json) => o.journey_id), [
    "FL_SK102_20260417",
    "FL_SK110_20260417",
  ]);
  assert.deepEqual(r.count, 2);
  assert.deepEqual(r.message, "2 flight(s) found");
  const first = r.options[0];
  assert.deepEqual([first.departure_time, first.arrival_time, first.fare], ["08:00", "10:00", 260]);
  assert.deepEqual(first.available_seats, {
    basic_economy: 6,
    main_cabin: 12,
    premium_economy: 4,
    business: 2,
    first: 0,
  });
});

Deno.test("search_rebooking_options with fare class any prices each option in its cheapest open class", () => {
  const r = callOk(testEnv(), "search_rebooking_options", {
    origin: "BOS",
    destination: "ORD",
    date: "2026-04-17",
    passenger_count: 2,
    fare_class: "any",
  });
  assert.deepEqual(r.options.map((o: Json) => [o.journey_id, o.fare]), [
    ["FL_SK104_20260417", 150],
    ["FL_SK102_20260417", 150],
    ["FL_SK110_20260417", 150],
  ]);
});

Deno.test("search_rebooking_options counts a connecting journey's seats by its tightest leg", () => {
  const world = testWorld();
  (world.journeys as Json).FL_SK230_SK240_20260421.segments[1].available_seats.premium_economy = 1;
  const r = callOk(testEnv(world), "search_rebooking_options", {
    origin: "BOS",
    destination: "SFO",
    date: "2026-04-21",
    passenger_count: 2,
    fare_class: "premium_economy",
  });
  assert.deepEqual(r.options, []);
  assert.match(r.message, /^0 flight/);
});

Deno.test("search_rebooking_options rejects bad codes, counts and classes with eva error types", () => {
  const env = testEnv();
  const args = {
    origin: "BOS",
    destination: "ORD",
    date: "2026-04-17",
    passenger_count: 1,
    fare_class: "any",
  };
  assert.deepEqual(
    callFails(env, "search_rebooking_options", { ...args, origin: "BOST" }).error_type,
    "invalid_airport_code_format",
  );
  assert.deepEqual(
    callFails(env, "search_rebooking_options", { ...args, fare_class: "coach" }).error_type,
    "invalid_fare_class",
  );
  const count = callFails(env, "search_rebooking_options", { ...args, passenger_count: 0 });
  assert.deepEqual(count, {
    status: "error",
    error_type: "invalid_parameter",
    message:
      "Invalid or missing parameter 'passenger_count': Input should be greater than or equal to 1",
  });
});

import { deepEqual, equal } from "node:assert/strict";
import { openAirline, RESERVATION, USER } from "./_testing.ts";

Deno.test("get_user_details finds a user whatever the case of the spoken id", () => {
  const env = openAirline();
  const call = env.call("agent", "get_user_details", { user_id: "Ada_Lane_1001" });
  equal(call.ok, true);
  equal((call.result as { user_id: string }).user_id, USER);
});

Deno.test("get_user_details reports an unknown user as not_found", () => {
  const call = openAirline().call("agent", "get_user_details", { user_id: "nobody_1" });
  deepEqual(call, {
    ok: false,
    tool: "get_user_details",
    result: { status: "error", error_type: "not_found", message: "User nobody_1 not found" },
  });
});

Deno.test("get_user_details finds nothing under inherited property names", () => {
  const call = openAirline().call("agent", "get_user_details", { user_id: "constructor" });
  equal(call.ok, false);
});

Deno.test("get_reservation_details upper-cases the reservation id", () => {
  const call = openAirline().call("agent", "get_reservation_details", { reservation_id: "abc123" });
  equal((call.result as { reservation_id: string }).reservation_id, RESERVATION);
  const missing = openAirline().call("agent", "get_reservation_details", {
    reservation_id: "ZZZ999",
  });
  equal((missing.result as { message: string }).message, "Reservation ZZZ999 not found");
});

Deno.test("list_all_airports gives tau2's twenty airports, even without a world", () => {
  const call = openAirline({}).call("agent", "list_all_airports", {});
  const airports = (call.result as { airports: { iata: string; city: string }[] }).airports;
  equal(airports.length, 20);
  deepEqual(airports[0], { iata: "SFO", city: "San Francisco" });
  deepEqual(airports.at(-1), { iata: "LGA", city: "LaGuardia" });
});

Deno.test("search_direct_flight lists only flights with seats for sale on that date", () => {
  const env = openAirline();
  const on20 = env.call("agent", "search_direct_flight", {
    origin: "JFK",
    destination: "LAX",
    date: "2024-05-20",
  });
  const flights = (on20.result as { flights: Record<string, unknown>[] }).flights;
  deepEqual(flights.map((f) => f.flight_number), ["HAT001", "HAT002"]);
  deepEqual(flights[0], {
    flight_number: "HAT001",
    origin: "JFK",
    destination: "LAX",
    status: "available",
    scheduled_departure_time_est: "08:00:00",
    scheduled_arrival_time_est: "11:00:00",
    available_seats: { business: 5, economy: 10, basic_economy: 2 },
    prices: { business: 500, economy: 200, basic_economy: 100 },
  });
  const on21 = env.call("agent", "search_direct_flight", {
    origin: "JFK",
    destination: "LAX",
    date: "2024-05-21",
  });
  deepEqual(on21.result, { status: "success", flights: [] });
});

Deno.test("search_onestop_flight takes an overnight connection on the next day, unpadded", () => {
  const env = openAirline();
  const call = env.call("agent", "search_onestop_flight", {
    origin: "JFK",
    destination: "LAX",
    date: "2024-05-20",
  });
  const pairs = (call.result as { onestop_flights: Record<string, unknown>[][] }).onestop_flights;
  deepEqual(pairs.map((p) => p.map((f) => [f.flight_number, f.date])), [
    [["HAT003", "2024-05-20"], ["HAT004", "2024-05-21"]],
  ]);
  // tau2 writes day 8 + 1 as "2024-05-9".
  const early = env.call("agent", "search_onestop_flight", {
    origin: "JFK",
    destination: "LAX",
    date: "2024-05-08",
  });
  const earlyPairs = (early.result as { onestop_flights: Record<string, unknown>[][] })
    .onestop_flights;
  deepEqual(earlyPairs.map((p) => p.map((f) => f.date)), [["2024-05-08", "2024-05-9"]]);
});

Deno.test("get_flight_status tells the status of a dated flight", () => {
  const env = openAirline();
  deepEqual(
    env.call("agent", "get_flight_status", { flight_number: "hat001", date: "2024-05-10" }).result,
    {
      status: "success",
      flight_status: "landed",
    },
  );
  deepEqual(
    env.call("agent", "get_flight_status", { flight_number: "HAT001", date: "2024-06-01" }).result,
    {
      status: "error",
      error_type: "not_found",
      message: "Flight HAT001 not found on date 2024-06-01",
    },
  );
});

Deno.test("read tools record nothing and leave the world as it was", () => {
  const env = openAirline();
  const before = env.hashes();
  env.call("agent", "get_user_details", { user_id: USER });
  env.call("agent", "search_direct_flight", {
    origin: "JFK",
    destination: "LAX",
    date: "2024-05-20",
  });
  deepEqual(env.actions, []);
  deepEqual(env.hashes(), before);
});

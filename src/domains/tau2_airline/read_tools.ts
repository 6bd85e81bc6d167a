/**
 * The tau2 airline tools that only read: user and reservation details, the airport
 * list, direct and one-stop flight search, and flight status.
 *
 * @module
 */
import type { Db } from "../domain.ts";
import { text } from "../tau2_common/fields.ts";
import { answer, failure, own, readOnly, tau2Tool } from "../tau2_common/tau2_tool.ts";
import {
  findFlightInstance,
  findReservation,
  findUser,
  type Flight,
  type FlightInstance,
} from "./world.ts";

export const getUserDetails = tau2Tool({
  name: "get_user_details",
  alias: "GetUserDetailsTool",
  kind: "read",
  description:
    "Look up a user's profile: name, address, payment methods, saved passengers and reservation ids.",
  args: { user_id: text("User id, for example 'sara_doe_496'.") },
  run({ user_id }, { db }) {
    const user = findUser(readOnly(db), user_id);
    return user ? answer(user) : failure("not_found", `User ${user_id} not found`);
  },
});

export const getReservationDetails = tau2Tool({
  name: "get_reservation_details",
  alias: "GetReservationDetailsTool",
  kind: "read",
  description:
    "Look up a reservation: flights, passengers, cabin, baggage, insurance and payments.",
  args: { reservation_id: text("Reservation id, six characters, for example '8JX2WO'.") },
  run({ reservation_id }, { db }) {
    const reservation = findReservation(readOnly(db), reservation_id);
    return reservation
      ? answer(reservation)
      : failure("not_found", `Reservation ${reservation_id} not found`);
  },
});

/** tau2 answers with a fixed list of twenty airports. */
const AIRPORTS: readonly [string, string][] = [
  ["SFO", "San Francisco"],
  ["JFK", "New York"],
  ["LAX", "Los Angeles"],
  ["ORD", "Chicago"],
  ["DFW", "Dallas"],
  ["DEN", "Denver"],
  ["SEA", "Seattle"],
  ["ATL", "Atlanta"],
  ["MIA", "Miami"],
  ["BOS", "Boston"],
  ["PHX", "Phoenix"],
  ["IAH", "Houston"],
  ["LAS", "Las Vegas"],
  ["MCO", "Orlando"],
  ["EWR", "Newark"],
  ["CLT", "Charlotte"],
  ["MSP", "Minneapolis"],
  ["DTW", "Detroit"],
  ["PHL", "Philadelphia"],
  ["LGA", "LaGuardia"],
];

export const listAllAirports = tau2Tool({
  name: "list_all_airports",
  alias: "ListAllAirportsTool",
  kind: "read",
  description: "List every airport served, as IATA code and city.",
  args: {},
  usesDb: false,
  run: () =>
    answer({ status: "success", airports: AIRPORTS.map(([iata, city]) => ({ iata, city })) }),
});

const ORIGIN = "Three-letter IATA code of the departure airport, for example 'JFK'.";
const DESTINATION = "Three-letter IATA code of the arrival airport, for example 'LAX'.";
const DATE = "Travel date as YYYY-MM-DD, for example '2024-05-01'.";

export const searchDirectFlight = tau2Tool({
  name: "search_direct_flight",
  alias: "SearchDirectFlightTool",
  kind: "read",
  description: "Find the nonstop flights with seats for sale between two airports on one date.",
  args: { origin: text(ORIGIN), destination: text(DESTINATION), date: text(DATE) },
  run({ origin, destination, date }, { db }) {
    return answer({
      status: "success",
      flights: directFlights(readOnly(db), date, origin, destination),
    });
  },
});

export const searchOnestopFlight = tau2Tool({
  name: "search_onestop_flight",
  alias: "SearchOnestopFlightTool",
  kind: "read",
  description:
    "Find two-leg itineraries (one connection) with seats for sale between two airports, departing on one date.",
  args: { origin: text(ORIGIN), destination: text(DESTINATION), date: text(DATE) },
  run({ origin, destination, date }, { db }) {
    const world = readOnly(db);
    const pairs: Record<string, unknown>[][] = [];
    for (const first of directFlights(world, date, origin, undefined)) {
      const leg1 = { ...first, date };
      let date2 = date;
      if (String(first.scheduled_arrival_time_est ?? "").includes("+1")) {
        // tau2 assumes May 2024 and does not pad the day: "2024-05-9" stays as is.
        const day = _pythonInt(date.slice(-2));
        if (day === undefined) {
          return failure(
            "value_error",
            `invalid literal for int() with base 10: '${date.slice(-2)}'`,
          );
        }
        date2 = `2024-05-${day + 1}`;
      }
      const connections = directFlights(
        world,
        date2,
        first.destination as string,
        destination,
        first.scheduled_arrival_time_est as string,
      );
      for (const second of connections) pairs.push([leg1, { ...second, date: date2 }]);
    }
    return answer({ status: "success", onestop_flights: pairs });
  },
});

export const getFlightStatus = tau2Tool({
  name: "get_flight_status",
  alias: "GetFlightStatusTool",
  kind: "read",
  description:
    "Tell the status of one flight on one date (available, delayed, cancelled, landed...).",
  args: {
    flight_number: text("Flight number, for example 'HAT001'."),
    date: text("Flight date as YYYY-MM-DD."),
  },
  run({ flight_number, date }, { db }) {
    const instance = findFlightInstance(readOnly(db), flight_number, date);
    if (!instance) {
      return failure("not_found", `Flight ${flight_number} not found on date ${date}`);
    }
    return answer({ status: "success", flight_status: instance.status ?? null });
  },
});

/**
 * Available direct flights on a date, as tau2 lists them (database order); when
 * `leaveAfter` is given, only those departing at or after that time.
 */
export function directFlights(
  db: Db,
  date: string,
  origin: string | undefined,
  destination: string | undefined,
  leaveAfter?: string,
): Record<string, unknown>[] {
  const results: Record<string, unknown>[] = [];
  for (const flight of Object.values((db.flights ?? {}) as Record<string, Flight>)) {
    if (origin !== undefined && flight.origin !== origin) continue;
    if (destination !== undefined && flight.destination !== destination) continue;
    const instance = own<FlightInstance>(flight.dates, date);
    if (!instance || instance.status !== "available") continue;
    if (leaveAfter !== undefined && (flight.scheduled_departure_time_est ?? "") < leaveAfter) {
      continue;
    }
    results.push({
      flight_number: flight.flight_number,
      origin: flight.origin,
      destination: flight.destination,
      status: "available",
      scheduled_departure_time_est: flight.scheduled_departure_time_est,
      scheduled_arrival_time_est: flight.scheduled_arrival_time_est,
      available_seats: instance.available_seats,
      prices: instance.prices,
    });
  }
  return results;
}

/** Python `int(s)` of a short decimal string, or undefined where Python raises. */
function _pythonInt(s: string): number | undefined {
  return /^\s*[+-]?\d+\s*$/.test(s) ? Number(s) : undefined;
}

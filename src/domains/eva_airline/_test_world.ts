/**
 * A small invented eva world for the tool tests: one single-passenger booking on a
 * direct flight, one two-passenger booking on a connecting journey, alternatives
 * for rebooking, and a disruption.
 *
 * @module
 */
import type { Db } from "../domain.ts";
import { Environment } from "../../env/environment.ts";
import { domain } from "./mod.ts";

/**
 * Tool results and world records as tests read them: loose JSON, indexed freely
 * (a wrong path fails the assertion that reads it).
 */
// deno-lint-ignore no-explicit-any
export type Json = any;

const CABINS = { basic_economy: 6, main_cabin: 12, premium_economy: 4, business: 2, first: 0 };
const TYPES = {
  basic_economy: ["window", "aisle", "middle"],
  main_cabin: ["window", "aisle", "middle"],
  premium_economy: ["window", "aisle"],
  business: ["window", "aisle"],
  first: [],
};

function segment(
  flight: string,
  from: string,
  to: string,
  dep: string,
  arr: string,
  fares: Record<string, number | null>,
  extra: Record<string, unknown> = {},
) {
  return {
    flight_number: flight,
    origin: from,
    destination: to,
    scheduled_departure: dep,
    scheduled_arrival: arr,
    status: "scheduled",
    delay_minutes: null,
    gate: "C3",
    fares,
    available_seats: { ...CABINS },
    available_seat_types: structuredClone(TYPES),
    ...extra,
  };
}

const DIRECT_FARES = {
  basic_economy: 150,
  main_cabin: 220,
  premium_economy: 400,
  business: 900,
  first: null,
};

function journey(
  id: string,
  date: string,
  segments: ReturnType<typeof segment>[],
  extra: Record<string, unknown> = {},
) {
  const fares: Record<string, number | null> = {};
  for (const s of segments) {
    for (const [k, v] of Object.entries(s.fares)) {
      fares[k] = v === null || fares[k] === null ? null : (fares[k] ?? 0) + v;
    }
  }
  return {
    journey_id: id,
    date,
    origin: segments[0]!.origin,
    destination: segments.at(-1)!.destination,
    num_stops: segments.length - 1,
    total_duration_minutes: 120 * segments.length,
    status: "scheduled",
    bookable: true,
    fares,
    segments,
    ...extra,
  };
}

/** A fresh copy of the test world. */
export function testWorld(): Db {
  return {
    _current_date: "2026-04-10",
    reservations: {
      QX7R2M: {
        confirmation_number: "QX7R2M",
        status: "confirmed",
        fare_type: "non_refundable",
        booking_date: "2026-03-01T09:00:00-05:00",
        passengers: [{
          passenger_id: "PAX001",
          first_name: "Ada",
          last_name: "Lindqvist",
          email: "ada.lindqvist@example.org",
          phone: "+1-617-555-0101",
          ticket_number: "0001112223334",
          seat_preference: "window",
          meal_preference: "vegan",
          elite_status: null,
        }],
        bookings: [{
          journey_id: "FL_SK100_20260415",
          fare_class: "main_cabin",
          fare_paid: 220,
          status: "confirmed",
          segments: [{
            flight_number: "SK100",
            date: "2026-04-15",
            fare_paid: 220,
            seat: "21A",
            bags_checked: 1,
            meal_request: "vegan",
          }],
        }],
        ancillaries: { seat_selection_fee: 0, bags_fee: 35 },
      },
      LG4T8P: {
        confirmation_number: "LG4T8P",
        status: "confirmed",
        fare_type: "refundable",
        booking_date: "2026-03-20T12:00:00-05:00",
        passengers: [
          { passenger_id: "PAX001", first_name: "Chidi", last_name: "Okafor" },
          { passenger_id: "PAX002", first_name: "Ngozi", last_name: "Okafor" },
        ],
        bookings: [{
          journey_id: "FL_SK200_SK210_20260420",
          fare_class: "premium_economy",
          fare_paid: 700,
          status: "confirmed",
          segments: [
            {
              flight_number: "SK200",
              date: "2026-04-20",
              fare_paid: 320,
              seat: "10A",
              bags_checked: 2,
              meal_request: null,
            },
            {
              flight_number: "SK210",
              date: "2026-04-20",
              fare_paid: 380,
              seat: "10A",
              bags_checked: 2,
              meal_request: "kosher",
            },
          ],
        }],
      },
    },
    journeys: {
      FL_SK100_20260415: journey("FL_SK100_20260415", "2026-04-15", [
        segment("SK100", "BOS", "ORD", "09:00", "11:00", DIRECT_FARES),
      ]),
      FL_SK102_20260417: journey("FL_SK102_20260417", "2026-04-17", [
        segment("SK102", "BOS", "ORD", "08:00", "10:00", { ...DIRECT_FARES, main_cabin: 260 }, {
          available_seat_types: { ...TYPES, main_cabin: ["aisle", "middle"] },
        }),
      ]),
      FL_SK104_20260417: journey("FL_SK104_20260417", "2026-04-17", [
        segment("SK104", "BOS", "ORD", "06:30", "08:30", { ...DIRECT_FARES, main_cabin: 200 }, {
          available_seats: { ...CABINS, main_cabin: 0 },
        }),
      ]),
      FL_SK106_20260417: journey("FL_SK106_20260417", "2026-04-17", [
        segment("SK106", "BOS", "ORD", "12:00", "14:00", DIRECT_FARES),
      ], { status: "cancelled" }),
      FL_SK108_20260417: journey("FL_SK108_20260417", "2026-04-17", [
        segment("SK108", "BOS", "ORD", "15:00", "17:00", DIRECT_FARES),
      ], { bookable: false }),
      FL_SK110_20260417: journey("FL_SK110_20260417", "2026-04-17", [
        segment("SK110", "BOS", "ORD", "18:00", "20:00", { ...DIRECT_FARES, main_cabin: 180 }),
      ]),
      FL_SK200_SK210_20260420: journey("FL_SK200_SK210_20260420", "2026-04-20", [
        segment("SK200", "BOS", "DEN", "07:00", "10:00", { ...DIRECT_FARES, premium_economy: 320 }),
        segment("SK210", "DEN", "SFO", "11:00", "13:00", { ...DIRECT_FARES, premium_economy: 380 }),
      ]),
      FL_SK220_20260420: journey("FL_SK220_20260420", "2026-04-20", [
        segment("SK220", "DEN", "SFO", "14:00", "16:00", { ...DIRECT_FARES, premium_economy: 350 }),
      ]),
      FL_SK230_SK240_20260421: journey("FL_SK230_SK240_20260421", "2026-04-21", [
        segment("SK230", "BOS", "DEN", "07:00", "10:00", { ...DIRECT_FARES, premium_economy: 300 }),
        segment("SK240", "DEN", "SFO", "11:00", "13:00", { ...DIRECT_FARES, premium_economy: 360 }),
      ]),
    },
    disruptions: {
      "SK100_2026-04-15": {
        flight_number: "SK100",
        date: "2026-04-15",
        disruption_type: "cancellation",
        cause: "crew shortage",
        airline_fault: true,
      },
    },
    travel_credits: {},
    meal_vouchers: {},
    refunds: {},
  };
}

/** A fresh Environment over the test world. */
export function testEnv(world: Db = testWorld()): Environment {
  return new Environment(domain, { db: world }, { today: "2026-04-10", seed: "test" });
}

/** A record of the reservations table, for reading in tests. */
export function reservation(env: Environment, code: string): Json {
  return (env.db.reservations as Record<string, Json>)[code]!;
}

/** A journey of the world, for reading in tests. */
export function journeyOf(env: Environment, id: string): Json {
  return (env.db.journeys as Record<string, Json>)[id]!;
}

/**
 * Calls a tool that must fail, and checks the failure changed nothing: same world
 * hash, no action recorded. Returns the error result.
 */
export function callFails(
  env: Environment,
  name: string,
  args: Record<string, unknown>,
): { status: string; error_type: string; message: string } {
  const before = env.hashes().db_sha256;
  const actions = env.actions.length;
  const r = env.call("agent", name, args);
  if (r.ok) throw new Error(`${name} succeeded: ${JSON.stringify(r.result)}`);
  if (env.hashes().db_sha256 !== before) throw new Error(`${name} changed the world on error`);
  if (env.actions.length !== actions) throw new Error(`${name} recorded an action on error`);
  return r.result as { status: string; error_type: string; message: string };
}

/** Calls a tool that must succeed; returns its result. */
export function callOk(env: Environment, name: string, args: Record<string, unknown>): Json {
  const r = env.call("agent", name, args);
  if (!r.ok) throw new Error(`${name} failed: ${JSON.stringify(r.result)}`);
  return r.result;
}

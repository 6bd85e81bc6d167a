/**
 * The eva_airline world (reference-harness §9) and the lookups every tool shares.
 * Records are plain JSON; these types name the fields the tools read and write and
 * leave the rest open.
 *
 * @module
 */
import type { Db, ToolContext, ToolErrorResult } from "../domain.ts";

type Open = { [key: string]: unknown };

/** A flight segment as booked on a reservation. */
export interface BookedSegment extends Open {
  flight_number: string;
  date?: string;
  fare_paid?: number;
  seat?: string | null;
  bags_checked?: number;
  meal_request?: string | null;
}

/** One journey booked on a reservation. */
export interface Booking extends Open {
  journey_id: string;
  fare_class?: string;
  fare_paid?: number;
  status?: string;
  segments?: BookedSegment[];
}

export interface Passenger extends Open {
  passenger_id: string;
  last_name?: string;
}

export interface Reservation extends Open {
  confirmation_number: string;
  status?: string;
  fare_type?: string;
  passengers?: Passenger[];
  bookings: Booking[];
  standby_list?: unknown[];
}

/** A scheduled flight segment of a journey. */
export interface FlightSegment extends Open {
  flight_number: string;
  origin?: string;
  destination?: string;
  scheduled_departure?: string;
  scheduled_arrival?: string;
  fares?: Record<string, number | null>;
  available_seats?: Record<string, number>;
  available_seat_types?: Record<string, string[]>;
}

/** A bookable journey (one or more segments). */
export interface Journey extends Open {
  journey_id?: string;
  date?: string;
  origin?: string;
  destination?: string;
  num_stops?: number;
  total_duration_minutes?: number;
  status?: string;
  bookable?: boolean;
  fares?: Record<string, number | null>;
  segments?: FlightSegment[];
  standby_list?: unknown[];
}

export type Tables = {
  reservations: Record<string, Reservation>;
  journeys: Record<string, Journey>;
  disruptions: Record<string, Open>;
};

/** The world's tables, absent ones as empty (read-only use). */
export function tables(db: Db): Tables {
  return {
    reservations: (db.reservations ?? {}) as Record<string, Reservation>,
    journeys: (db.journeys ?? {}) as Record<string, Journey>,
    disruptions: (db.disruptions ?? {}) as Record<string, Open>,
  };
}

/** A table of the world to write to, created when absent (as `setdefault`). */
export function table<T>(db: Db, key: string): Record<string, T> {
  if (typeof db[key] !== "object" || db[key] === null) db[key] = {};
  return db[key] as Record<string, T>;
}

/** The world's own date (`_current_date`), else the scenario's. */
export function currentDate(ctx: ToolContext): string {
  const d = ctx.db._current_date;
  return typeof d === "string" ? d : ctx.today;
}

export function reservationOf(db: Db, confirmationNumber: string): Reservation | undefined {
  return tables(db).reservations[confirmationNumber.toUpperCase()];
}

/**
 * The booking of a journey on a reservation. After a partial rebook a journey id
 * can appear twice (the cancelled original and the kept legs): the live one wins.
 */
export function bookingOf(reservation: Reservation, journeyId: string): Booking | undefined {
  let first: Booking | undefined;
  for (const b of reservation.bookings ?? []) {
    if (b.journey_id !== journeyId) continue;
    first ??= b;
    if (b.status !== "cancelled") return b;
  }
  return first;
}

/**
 * The segments of a booking a tool acts on: the one flown as `flightNumber`, or the
 * only one; a multi-segment booking without a flight number is an error.
 */
export function targetSegments(
  booking: Booking,
  journeyId: string,
  flightNumber: string | null | undefined,
): BookedSegment[] | ToolErrorResult {
  const segments = booking.segments ?? [];
  if (flightNumber) {
    const hits = segments.filter((s) => s.flight_number === flightNumber);
    if (hits.length > 0) return hits;
    return toolError(
      "flight_not_found",
      `Flight ${flightNumber} not found in journey ${journeyId}`,
    );
  }
  if (segments.length === 1) return segments;
  return toolError(
    "flight_number_required",
    `Journey ${journeyId} has ${segments.length} segments; flight_number is required`,
  );
}

/** What a booking cost: its own `fare_paid`, else the sum over its segments. */
export function bookingFare(booking: Booking): number {
  if ("fare_paid" in booking) return booking.fare_paid ?? 0;
  return (booking.segments ?? []).reduce((sum, s) => sum + (s.fare_paid ?? 0), 0);
}

/** Seats left per fare class on a journey: the tightest segment decides. */
export function journeySeats(journey: Journey): Record<string, number> {
  const [first, ...rest] = journey.segments ?? [];
  if (!first) return {};
  const seats: Record<string, number> = { ...first.available_seats };
  for (const seg of rest) {
    for (const fc of Object.keys(seats)) {
      seats[fc] = Math.min(seats[fc] ?? 0, seg.available_seats?.[fc] ?? 0);
    }
  }
  return seats;
}

/** Adds `delta` seats of a fare class on every segment of a journey. */
export function adjustSeats(journey: Journey | undefined, fareClass: string, delta: number): void {
  for (const seg of journey?.segments ?? []) {
    seg.available_seats ??= {};
    seg.available_seats[fareClass] = (seg.available_seats[fareClass] ?? 0) + delta;
  }
}

export function toolError(errorType: string, message: string): ToolErrorResult {
  return { status: "error", error_type: errorType, message };
}

export function reservationNotFound(confirmationNumber: string): ToolErrorResult {
  return toolError("not_found", `Reservation ${confirmationNumber} not found`);
}

export function journeyNotFound(journeyId: string): ToolErrorResult {
  return toolError("journey_not_found", `Journey ${journeyId} not found in reservation`);
}

/** Whether a lookup gave an error result rather than a value. */
export function isError(v: unknown): v is ToolErrorResult {
  return typeof v === "object" && v !== null && !Array.isArray(v) &&
    (v as { status?: unknown }).status === "error";
}

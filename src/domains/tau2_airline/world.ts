/**
 * The tau2 airline world (`flights`, `users`, `reservations`) and its lookups. A
 * caller spells ids out loud and speech recognition gets the case wrong, so lookups
 * lower-case user ids and upper-case reservation ids and flight numbers (the
 * database's own casing), as the reference does; records keep the raw arguments.
 *
 * @module
 */
import type { Db } from "../domain.ts";
import { own } from "../tau2_common/tau2_tool.ts";

export type Cabin = "business" | "economy" | "basic_economy";

export interface PaymentMethod {
  source: string;
  id: string;
  /** Gift cards and certificates. */
  amount?: number;
  [field: string]: unknown;
}

export interface User {
  user_id: string;
  payment_methods?: Record<string, PaymentMethod>;
  reservations?: string[];
  [field: string]: unknown;
}

export interface ReservationFlight {
  flight_number: string;
  origin: string;
  destination: string;
  date: string;
  price: number;
}

export interface Payment {
  payment_id: string;
  amount: number;
}

export interface Reservation {
  reservation_id: string;
  user_id: string;
  cabin: Cabin;
  flights?: ReservationFlight[];
  passengers?: unknown[];
  payment_history?: Payment[];
  nonfree_baggages?: number;
  status?: string | null;
  [field: string]: unknown;
}

export interface FlightInstance {
  status: string;
  available_seats?: Record<string, number>;
  prices?: Record<string, number>;
  [field: string]: unknown;
}

export interface Flight {
  flight_number: string;
  origin: string;
  destination: string;
  scheduled_departure_time_est: string;
  scheduled_arrival_time_est: string;
  dates?: Record<string, FlightInstance>;
}

export function findUser(db: Db, userId: string | null | undefined): User | undefined {
  return own<User>(db.users, userId ? userId.toLowerCase() : userId);
}

export function findReservation(db: Db, reservationId: string): Reservation | undefined {
  return own<Reservation>(
    db.reservations,
    reservationId ? reservationId.toUpperCase() : reservationId,
  );
}

export function findFlight(db: Db, flightNumber: string): Flight | undefined {
  return own<Flight>(db.flights, flightNumber ? flightNumber.toUpperCase() : flightNumber);
}

export function findFlightInstance(
  db: Db,
  flightNumber: string,
  date: string,
): FlightInstance | undefined {
  const flight = findFlight(db, flightNumber);
  return flight ? own<FlightInstance>(flight.dates, date) : undefined;
}

/**
 * A small invented airline world for the tests: four flights, two users, two
 * reservations. Each call gets a fresh Environment over it.
 *
 * @module
 */
import { Environment } from "../../env/environment.ts";
import type { Db } from "../domain.ts";
import { domain } from "./mod.ts";

export const USER = "ada_lane_1001";
export const RESERVATION = "ABC123";

export function airlineWorld(): Db {
  const open = (business: number, economy: number, basic: number) => ({
    status: "available",
    available_seats: { business, economy, basic_economy: basic },
    prices: { business: 500, economy: 200, basic_economy: 100 },
  });
  return {
    flights: {
      HAT001: {
        flight_number: "HAT001",
        origin: "JFK",
        destination: "LAX",
        scheduled_departure_time_est: "08:00:00",
        scheduled_arrival_time_est: "11:00:00",
        dates: {
          "2024-05-20": open(5, 10, 2),
          "2024-05-21": { status: "cancelled" },
          "2024-05-10": {
            status: "landed",
            actual_departure_time_est: "2024-05-10T08:02:00",
            actual_arrival_time_est: "2024-05-10T11:05:00",
          },
        },
      },
      HAT002: {
        flight_number: "HAT002",
        origin: "JFK",
        destination: "LAX",
        scheduled_departure_time_est: "15:00:00",
        scheduled_arrival_time_est: "18:00:00",
        dates: { "2024-05-20": open(1, 3, 0) },
      },
      HAT003: {
        flight_number: "HAT003",
        origin: "JFK",
        destination: "ORD",
        scheduled_departure_time_est: "22:00:00",
        scheduled_arrival_time_est: "01:00:00+1",
        dates: { "2024-05-20": open(4, 4, 4), "2024-05-08": open(4, 4, 4) },
      },
      HAT004: {
        flight_number: "HAT004",
        origin: "ORD",
        destination: "LAX",
        scheduled_departure_time_est: "02:00:00",
        scheduled_arrival_time_est: "04:30:00",
        // tau2 builds the next day's date unpadded ("2024-05-9").
        dates: { "2024-05-21": open(4, 4, 4), "2024-05-9": open(4, 4, 4) },
      },
    },
    users: {
      [USER]: {
        user_id: USER,
        name: { first_name: "Ada", last_name: "Lane" },
        email: "ada.lane@example.com",
        payment_methods: {
          credit_card_1: {
            source: "credit_card",
            id: "credit_card_1",
            brand: "visa",
            last_four: "1111",
          },
          gift_card_2: { source: "gift_card", id: "gift_card_2", amount: 300 },
          certificate_3: { source: "certificate", id: "certificate_3", amount: 150 },
        },
        membership: "silver",
        reservations: [RESERVATION],
      },
      bo_kim_2002: {
        user_id: "bo_kim_2002",
        payment_methods: {},
        reservations: [],
      },
    },
    reservations: {
      [RESERVATION]: {
        reservation_id: RESERVATION,
        user_id: USER,
        origin: "JFK",
        destination: "LAX",
        flight_type: "one_way",
        cabin: "economy",
        flights: [
          {
            origin: "JFK",
            destination: "LAX",
            flight_number: "HAT001",
            date: "2024-05-20",
            price: 180,
          },
        ],
        passengers: [{ first_name: "Ada", last_name: "Lane", dob: "1990-01-02" }],
        payment_history: [{ payment_id: "credit_card_1", amount: 180 }],
        created_at: "2024-05-01T10:00:00",
        total_baggages: 1,
        nonfree_baggages: 0,
        insurance: "no",
      },
    },
  };
}

/** A fresh Environment over the world (today 2024-05-15). */
export function openAirline(world: Db = airlineWorld()): Environment {
  return new Environment(domain, { db: world }, { today: "2024-05-15", seed: "test" });
}

/** A reservation as it stands in the environment's world. */
export function reservationIn(env: Environment, id: string): Record<string, unknown> {
  return (env.db.reservations as Record<string, Record<string, unknown>>)[id]!;
}

export function userIn(env: Environment, id: string = USER): Record<string, unknown> {
  return (env.db.users as Record<string, Record<string, unknown>>)[id]!;
}

/** The seats left in each cabin of a dated flight. */
export function seatsIn(env: Environment, flight: string, date: string): Record<string, number> {
  const flights = env.db.flights as Record<
    string,
    { dates: Record<string, { available_seats: Record<string, number> }> }
  >;
  return flights[flight]!.dates[date]!.available_seats;
}

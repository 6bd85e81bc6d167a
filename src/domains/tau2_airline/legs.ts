/**
 * One new flight leg of a reservation, checked and priced as tau2's airline tools do
 * (`book_reservation` and `update_reservation_flights` share it): the flight and its
 * dated instance exist, the instance is available, it has a seat in the cabin for
 * every traveller, and the leg costs the cabin's price per traveller.
 *
 * @module
 */
import type { Db, ToolOutcome } from "../domain.ts";
import { failure } from "../tau2_common/tau2_tool.ts";
import {
  type Cabin,
  findFlight,
  findFlightInstance,
  type FlightInstance,
  type ReservationFlight,
} from "./world.ts";

/** A leg that can be sold: the reservation's entry, its instance and what it costs. */
export interface PricedLeg {
  flight: ReservationFlight;
  instance: FlightInstance;
  /** The cabin's price times the travellers. */
  cost: number;
}

/**
 * Checks and prices `leg` in `cabin` for `travellers`, or the tool's failure. A date
 * the flight does not fly is "not found" when booking (`missingDate: "not_found"`)
 * and "not available" when updating (`"not_available"`), as in the reference.
 */
export function priceLeg(
  db: Db,
  leg: { flight_number: string; date: string },
  cabin: Cabin,
  travellers: number,
  missingDate: "not_found" | "not_available",
): PricedLeg | { failure: ToolOutcome } {
  const flight = findFlight(db, leg.flight_number);
  if (!flight) return { failure: failure("not_found", `Flight ${leg.flight_number} not found`) };
  const instance = findFlightInstance(db, leg.flight_number, leg.date);
  if (!instance && missingDate === "not_found") {
    return {
      failure: failure("not_found", `Flight ${leg.flight_number} not found on date ${leg.date}`),
    };
  }
  if (!instance || instance.status !== "available") {
    return {
      failure: failure(
        "value_error",
        `Flight ${leg.flight_number} not available on date ${leg.date}`,
      ),
    };
  }
  if ((instance.available_seats?.[cabin] ?? 0) < travellers) {
    return {
      failure: failure("value_error", `Not enough seats on flight ${leg.flight_number}`),
    };
  }
  const price = instance.prices?.[cabin] ?? 0;
  return {
    flight: {
      flight_number: leg.flight_number,
      origin: flight.origin,
      destination: flight.destination,
      date: leg.date,
      price,
    },
    instance,
    cost: price * travellers,
  };
}

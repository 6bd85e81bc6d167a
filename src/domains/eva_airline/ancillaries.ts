/**
 * What rides along with a booked flight: seats, checked bags, meal requests, and
 * standby places on another flight.
 *
 * @module
 */
import {
  choice,
  code,
  codeList,
  integer,
  MEAL_TYPES,
  optionalCode,
  SEAT_PREFERENCES,
} from "./params.ts";
import { evaTool, failed, succeeded } from "./eva_tool.ts";
import type { Db, ToolErrorResult } from "../domain.ts";
import {
  type BookedSegment,
  bookingOf,
  isError,
  journeyNotFound,
  reservationNotFound,
  tables,
  targetSegments,
  toolError,
} from "./world.ts";

/** First row of each cabin; a passenger's seat row adds their number to it. */
const BASE_ROW: Readonly<Record<string, number>> = {
  basic_economy: 25,
  main_cabin: 20,
  premium_economy: 10,
  business: 5,
  first: 1,
};
const SEAT_LETTER: Readonly<Record<string, string>> = {
  window: "A",
  middle: "B",
  aisle: "C",
  no_preference: "C",
};
const ALL_SEAT_TYPES = ["window", "aisle", "middle"];

/**
 * The seat the reference gives a passenger: cabin base row plus the number in the
 * last three characters of the passenger id, and a letter for the seat type.
 */
export function seatFor(passengerId: string, fareClass: string, preference: string): string {
  const tail = passengerId.length >= 3 ? passengerId.slice(-3) : "0";
  if (!/^\s*[+-]?\d+\s*$/.test(tail)) {
    // Python's int() fails here, and so does the reference's tool.
    throw new Error(`invalid literal for int() with base 10: '${tail}'`);
  }
  const row = (BASE_ROW[fareClass] ?? 20) + parseInt(tail, 10);
  return `${row}${SEAT_LETTER[preference] ?? "C"}`;
}

export const assignSeat = evaTool({
  name: "assign_seat",
  alias: "AssignSeatTool",
  kind: "write",
  description:
    "Assign a passenger a seat of the type they prefer on a booked flight. Ask the caller's preference first; give flight_number for a leg of a connecting journey.",
  args: {
    confirmation_number: code("confirmation", "The six-character booking code."),
    passenger_id: code("passenger", "Passenger id from get_reservation, e.g. PAX001."),
    journey_id: code("journey", "Journey id of the booked flight, from get_reservation."),
    seat_preference: choice(SEAT_PREFERENCES, "The seat type the passenger wants."),
    flight_number: optionalCode("flight", "The leg to seat on a connecting journey."),
  },
  run(args, { db }) {
    const { confirmation_number, passenger_id, journey_id, seat_preference } = args;
    const { reservations, journeys } = tables(db);
    const reservation = reservations[confirmation_number];
    if (!reservation) return failed(reservationNotFound(confirmation_number));
    const booking = bookingOf(reservation, journey_id);
    if (!booking) return failed(journeyNotFound(journey_id));
    const targets = targetSegments(booking, journey_id, args.flight_number);
    if (isError(targets)) return failed(targets);
    const segment = targets[0]!;
    const flightNumber = args.flight_number || segment.flight_number || "";

    const fareClass = booking.fare_class ?? "main_cabin";
    const flight = journeys[journey_id]?.segments?.find((s) => s.flight_number === flightNumber);
    if (flight) {
      if ((flight.available_seats?.[fareClass] ?? 0) <= 0) {
        return failed(
          toolError("no_seats_available", `No seats available in ${fareClass} fare class`),
        );
      }
      const declared = flight.available_seat_types;
      const types = declared && Object.keys(declared).length > 0
        ? declared[fareClass] ?? ALL_SEAT_TYPES
        : ALL_SEAT_TYPES;
      if (seat_preference !== "no_preference" && !types.includes(seat_preference)) {
        return failed(toolError(
          "seat_type_unavailable",
          `No ${seat_preference} seats available in ${fareClass} on this flight. Available types: ${
            types.join(", ")
          }`,
        ));
      }
    }
    const seat = seatFor(passenger_id, fareClass, seat_preference);
    // The booking already holds a seat in this cabin: assigning one does not change
    // the flight's seat counts.
    segment.seat = seat;
    return succeeded({
      status: "success",
      confirmation_number,
      passenger_id,
      journey_id,
      flight_number: flightNumber,
      seat_assigned: seat,
      fare_class: fareClass,
      preference: seat_preference,
      message: `Seat ${seat} (${seat_preference}) successfully assigned`,
    }, {
      action_type: "assign_seat",
      confirmation_number,
      passenger_id,
      journey_id,
      flight_number: flightNumber,
      seat_preference,
      seat_assigned: seat,
    });
  },
});

export const addBaggageAllowance = evaTool({
  name: "add_baggage_allowance",
  alias: "AddBaggageAllowanceTool",
  kind: "write",
  description:
    "Set the number of checked bags (0 to 5) on a booked journey: every leg, or only flight_number.",
  args: {
    confirmation_number: code("confirmation", "The six-character booking code."),
    journey_id: code("journey", "Journey id of the booked flight, from get_reservation."),
    num_bags: integer("Checked bags, 0 to 5.", { ge: 0, le: 5 }),
    flight_number: optionalCode("flight", "Only this leg; omit for every leg."),
  },
  run({ confirmation_number, journey_id, num_bags, flight_number }, { db }) {
    const legs = _legsToChange(db, confirmation_number, journey_id, flight_number);
    if (isError(legs)) return failed(legs);
    for (const s of legs) s.bags_checked = num_bags;
    return succeeded({
      status: "success",
      confirmation_number,
      journey_id,
      bags_checked: num_bags,
      message: `Baggage allowance set to ${num_bags} checked bag(s)`,
    }, {
      action_type: "add_baggage_allowance",
      confirmation_number,
      journey_id,
      flight_number: flight_number ?? null,
      num_bags,
    });
  },
});

export const addMealRequest = evaTool({
  name: "add_meal_request",
  alias: "AddMealRequestTool",
  kind: "write",
  description:
    "Set a passenger's special meal on a booked journey: every leg, or only flight_number.",
  args: {
    confirmation_number: code("confirmation", "The six-character booking code."),
    passenger_id: code("passenger", "Passenger id from get_reservation, e.g. PAX001."),
    journey_id: code("journey", "Journey id of the booked flight, from get_reservation."),
    meal_type: choice(MEAL_TYPES, "The meal wanted."),
    flight_number: optionalCode("flight", "Only this leg; omit for every leg."),
  },
  run({ confirmation_number, passenger_id, journey_id, meal_type, flight_number }, { db }) {
    const legs = _legsToChange(db, confirmation_number, journey_id, flight_number);
    if (isError(legs)) return failed(legs);
    for (const s of legs) s.meal_request = meal_type;
    return succeeded({
      status: "success",
      confirmation_number,
      passenger_id,
      journey_id,
      meal_type,
      message: `${meal_type} meal request added`,
    }, {
      action_type: "add_meal_request",
      confirmation_number,
      passenger_id,
      journey_id,
      meal_type,
      flight_number: flight_number ?? null,
    });
  },
});

export const addToStandby = evaTool({
  name: "add_to_standby",
  alias: "AddToStandbyTool",
  kind: "write",
  description:
    "Put passengers of a booking on the standby list of another journey (a seat is not guaranteed).",
  args: {
    confirmation_number: code("confirmation", "The six-character booking code."),
    journey_id: code("journey", "Journey id to stand by for."),
    passenger_ids: codeList("passenger", "Passenger ids from get_reservation, e.g. [PAX001]."),
  },
  run({ confirmation_number, journey_id, passenger_ids }, { db }) {
    const { reservations, journeys } = tables(db);
    const journey = journeys[journey_id];
    if (!journey) return failed(toolError("flight_not_found", `Flight ${journey_id} not found`));
    if (journey.status === "cancelled") {
      return failed(toolError("flight_cancelled", "Cannot add to standby for cancelled flight"));
    }
    const reservation = reservations[confirmation_number];
    if (reservation && passenger_ids.length > 0) {
      const known = new Set((reservation.passengers ?? []).map((p) => p.passenger_id));
      const unknown = passenger_ids.filter((id) => !known.has(id));
      if (unknown.length > 0) {
        return failed(
          toolError("invalid_passengers", `Unknown passenger ID(s): ${unknown.join(", ")}`),
        );
      }
    }
    journey.standby_list ??= [];
    const position = journey.standby_list.length + passenger_ids.length;
    if (reservation) {
      reservation.standby_list ??= [];
      reservation.standby_list.push({
        journey_id,
        passenger_ids: [...passenger_ids],
        position,
        status: "pending",
      });
    }
    for (const passenger_id of passenger_ids) {
      journey.standby_list.push({
        confirmation_number,
        passenger_id,
        position: journey.standby_list.length + 1,
      });
    }
    return succeeded({
      status: "success",
      confirmation_number,
      journey_id,
      standby_list_position: position,
      message: `Added ${passenger_ids.length} passenger(s) to standby list`,
    }, {
      action_type: "add_to_standby",
      confirmation_number,
      journey_id,
      passenger_ids: [...passenger_ids],
    });
  },
});

/** The booked legs a baggage or meal change applies to: `flight_number`'s, or every leg. */
function _legsToChange(
  db: Db,
  confirmationNumber: string,
  journeyId: string,
  flightNumber: string | null | undefined,
): BookedSegment[] | ToolErrorResult {
  const reservation = tables(db).reservations[confirmationNumber];
  if (!reservation) return reservationNotFound(confirmationNumber);
  const booking = bookingOf(reservation, journeyId);
  if (!booking) return journeyNotFound(journeyId);
  return flightNumber ? targetSegments(booking, journeyId, flightNumber) : booking.segments ?? [];
}

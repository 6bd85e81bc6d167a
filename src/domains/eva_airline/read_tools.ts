/**
 * The four eva_airline read tools: reservation lookup (the caller's authentication),
 * flight status, disruption details and the rebooking search.
 *
 * @module
 */
import { choice, code, FARE_CLASSES, integer, text } from "./params.ts";
import { evaTool, failed, succeeded } from "./eva_tool.ts";
import { type Booking, journeySeats, reservationNotFound, tables, toolError } from "./world.ts";
import { compareCodePoints } from "../../canonical/canonical_json.ts";

export const getReservation = evaTool({
  name: "get_reservation",
  alias: "GetReservationTool",
  kind: "read",
  description:
    "Look up a booking by its confirmation number and a passenger's last name. Call this first: it authenticates the caller and lists their journeys, passengers and journey ids.",
  args: {
    confirmation_number: code("confirmation", "The six-character booking code."),
    last_name: text("Last name of a passenger on the booking."),
  },
  run({ confirmation_number, last_name }, { db }) {
    const { reservations, journeys } = tables(db);
    const reservation = reservations[confirmation_number];
    if (!reservation) return failed(reservationNotFound(confirmation_number));
    const names = (reservation.passengers ?? []).map((p) => (p.last_name ?? "").toLowerCase());
    if (last_name && !names.includes(last_name.toLowerCase())) {
      return failed(toolError(
        "authentication_failed",
        `Last name does not match reservation ${confirmation_number}`,
      ));
    }
    // The caller hears where and when each leg flies, so booked segments gain the
    // schedule fields of their flight (not its live status: that is get_flight_status).
    const bookings = reservation.bookings.map((b): Booking => {
      const flights = new Map(
        (journeys[b.journey_id]?.segments ?? []).map((s) => [s.flight_number, s]),
      );
      if (!journeys[b.journey_id]) return { ...b };
      return {
        ...b,
        segments: (b.segments ?? []).map((s) => {
          const f = flights.get(s.flight_number);
          if (!f) return s;
          const extra: Record<string, unknown> = {};
          for (const k of ["origin", "destination", "scheduled_departure", "scheduled_arrival"]) {
            if (k in f) extra[k] = f[k];
          }
          return { ...s, ...extra };
        }),
      };
    });
    bookings.sort((a, b) => {
      const byDate = compareCodePoints(a.segments?.[0]?.date ?? "", b.segments?.[0]?.date ?? "");
      return byDate || compareCodePoints(a.journey_id ?? "", b.journey_id ?? "");
    });
    return succeeded({ status: "success", reservation: { ...reservation, bookings } });
  },
});

export const getFlightStatus = evaTool({
  name: "get_flight_status",
  alias: "GetFlightStatusTool",
  kind: "read",
  description:
    "Status of a flight on a date: route, schedule, delays, cancellation, gate. For a connecting journey any of its flight numbers finds it.",
  args: {
    flight_number: code("flight", "Flight number, e.g. SK621."),
    flight_date: code("date", "Date of the flight, YYYY-MM-DD."),
  },
  run({ flight_number, flight_date }, { db }) {
    const { journeys } = tables(db);
    const day = flight_date.replaceAll("-", "");
    let journey = journeys[`FL_${flight_number}_${day}`];
    if (!journey) {
      journey = Object.values(journeys).find((j) =>
        (j.date ?? "").replaceAll("-", "") === day &&
        (j.segments ?? []).some((s) => (s.flight_number ?? "").toUpperCase() === flight_number)
      );
    }
    if (!journey) {
      return failed(
        toolError("not_found", `Flight ${flight_number} not found for date ${flight_date}`),
      );
    }
    return succeeded({ status: "success", journey });
  },
});

export const getDisruptionInfo = evaTool({
  name: "get_disruption_info",
  alias: "GetDisruptionInfoTool",
  kind: "read",
  description:
    "Disruption details of a flight on a date (cause, whether it is the airline's fault, what the passenger is entitled to). Use it before deciding fees and compensation for a delay or cancellation.",
  args: {
    flight_number: code("flight", "Flight number, e.g. SK621."),
    date: code("date", "Date of the flight, YYYY-MM-DD."),
  },
  run({ flight_number, date }, { db }) {
    const disruption = tables(db).disruptions[`${flight_number}_${date}`];
    if (!disruption) {
      return failed(toolError("not_found", `No disruption info found for flight ${flight_number}`));
    }
    return succeeded({ status: "success", disruption });
  },
});

/** Journey statuses a passenger can still be moved onto. */
const OPEN_STATUSES = new Set(["scheduled", "on_time", "delayed"]);

export const searchRebookingOptions = evaTool({
  name: "search_rebooking_options",
  alias: "SearchRebookingOptionsTool",
  kind: "read",
  description:
    "Bookable journeys between two airports on a date with enough seats for the party, earliest departure first. With fare_class any, each option is priced in its cheapest class that has the seats.",
  args: {
    origin: code("airport", "Origin airport code, e.g. AUS."),
    destination: code("airport", "Destination airport code, e.g. LAX."),
    date: code("date", "Travel date, YYYY-MM-DD."),
    passenger_count: integer("How many passengers need seats.", { ge: 1 }),
    fare_class: choice(
      [...FARE_CLASSES, "any"],
      "Fare class to price and check seats in, or any for the cheapest available.",
    ),
  },
  run({ origin, destination, date, passenger_count, fare_class }, { db }) {
    const options = [];
    for (const [journeyId, journey] of Object.entries(tables(db).journeys)) {
      if (journey.origin !== origin || journey.destination !== destination) continue;
      if (journey.date !== date || !OPEN_STATUSES.has(journey.status ?? "")) continue;
      if (!journey.bookable) continue;
      const seats = journeySeats(journey);
      const fares = journey.fares ?? {};
      let priced: string = fare_class;
      if (fare_class === "any") {
        if (!Object.values(seats).some((n) => n !== null && n >= passenger_count)) continue;
        let cheapest: [string, number] | undefined;
        for (const fc of FARE_CLASSES) {
          const fare = fares[fc];
          if ((seats[fc] ?? 0) < passenger_count || fare === null || fare === undefined) continue;
          if (!cheapest || fare < cheapest[1]) cheapest = [fc, fare];
        }
        if (cheapest) priced = cheapest[0];
      } else if ((seats[fare_class] ?? 0) < passenger_count) {
        continue;
      }
      const segments = journey.segments ?? [];
      options.push({
        journey_id: journeyId,
        origin: journey.origin ?? null,
        destination: journey.destination ?? null,
        num_stops: journey.num_stops ?? 0,
        total_duration_minutes: journey.total_duration_minutes ?? null,
        segments,
        departure_time: segments[0]?.scheduled_departure ?? null,
        arrival_time: segments.at(-1)?.scheduled_arrival ?? null,
        available_seats: Object.fromEntries(FARE_CLASSES.map((fc) => [fc, seats[fc] ?? 0])),
        fare: fares[priced] ?? null,
      });
    }
    // Stable, as Python's sort; a journey without segments sorts first.
    options.sort((a, b) => compareCodePoints(a.departure_time ?? "", b.departure_time ?? ""));
    return succeeded({
      status: "success",
      options,
      count: options.length,
      message: `${options.length} flight(s) found`,
    });
  },
});

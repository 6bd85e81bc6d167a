/**
 * `rebook_flight`: moves a booked journey (or one leg of it) onto another journey,
 * pricing the change by the eva fee table.
 *
 * @module
 */
import {
  choice,
  code,
  FARE_CLASSES,
  flag,
  optionalChoice,
  optionalCode,
  REBOOKING_TYPES,
} from "./params.ts";
import { evaTool, failed, succeeded } from "./eva_tool.ts";
import {
  adjustSeats,
  type BookedSegment,
  type Booking,
  bookingFare,
  bookingOf,
  isError,
  journeyNotFound,
  journeySeats,
  reservationNotFound,
  tables,
  targetSegments,
  toolError,
} from "./world.ts";

/** Voluntary change fee by the fare class originally paid for. */
const VOLUNTARY_FEES: Readonly<Record<string, number>> = {
  basic_economy: 75,
  main_cabin: 75,
  premium_economy: 75,
  business: 0,
  first: 0,
};

/** The change fee: none for disruptions or a waiver; same-day is dearer in basic economy. */
export function changeFee(
  rebookingType: string,
  waived: boolean,
  originalFareClass: string,
): number {
  if (rebookingType.includes("irrops") || waived) return 0;
  if (rebookingType === "same_day") return originalFareClass === "basic_economy" ? 199 : 75;
  return VOLUNTARY_FEES[originalFareClass] ?? 75;
}

export const rebookFlight = evaTool({
  name: "rebook_flight",
  alias: "RebookFlightTool",
  kind: "write",
  description:
    "Move a booked journey onto a new journey found with search_rebooking_options. Give new_fare_class only to change cabin, and flight_number only to replace one leg of a connecting journey. Tell the caller the change fee, fare difference and total before confirming; seats must be assigned again afterwards.",
  args: {
    confirmation_number: code("confirmation", "The six-character booking code."),
    journey_id: code("journey", "Journey id of the booking to change, from get_reservation."),
    new_journey_id: code(
      "journey",
      "Journey id of the replacement, from search_rebooking_options.",
    ),
    rebooking_type: choice(REBOOKING_TYPES, "Why the booking changes; decides the fee."),
    waive_change_fee: flag("Waive the change fee (only when policy allows it)."),
    new_fare_class: optionalChoice(FARE_CLASSES, "New cabin; omit to keep the current one."),
    flight_number: optionalCode(
      "flight",
      "The one leg to replace; omit to move the whole journey.",
    ),
  },
  run(args, { db }) {
    const { confirmation_number, journey_id, new_journey_id, rebooking_type } = args;
    const flightNumber = args.flight_number ?? null;
    const reservation = tables(db).reservations[confirmation_number];
    if (!reservation) return failed(reservationNotFound(confirmation_number));
    const booking = bookingOf(reservation, journey_id);
    if (!booking) return failed(journeyNotFound(journey_id));
    const { journeys } = tables(db);
    const newJourney = journeys[new_journey_id];
    if (!newJourney) {
      return failed(toolError("flight_not_found", `Flight ${new_journey_id} not found`));
    }
    if (newJourney.bookable === false) {
      return failed(
        toolError("not_bookable", `Flight ${new_journey_id} is not available for booking`),
      );
    }

    const originalFareClass = booking.fare_class ?? "main_cabin";
    const fareClass = args.new_fare_class ?? originalFareClass;
    const irrops = rebooking_type.includes("irrops");
    const fee = changeFee(rebooking_type, args.waive_change_fee, originalFareClass);

    let replaced: BookedSegment | undefined;
    if (flightNumber) {
      const targets = targetSegments(booking, journey_id, flightNumber);
      if (isError(targets)) return failed(targets);
      replaced = targets[0];
    }
    const oldFare = replaced ? replaced.fare_paid ?? 0 : bookingFare(booking);
    const newFare = newJourney.fares?.[fareClass];
    if (newFare === null || newFare === undefined) {
      return failed(toolError(
        "fare_class_not_available",
        `Fare class '${fareClass}' is not available on flight ${new_journey_id}`,
      ));
    }
    if ((journeySeats(newJourney)[fareClass] ?? 0) <= 0) {
      return failed(toolError(
        "no_seats_available",
        `No seats available in ${fareClass} on flight ${new_journey_id}`,
      ));
    }
    const fareDifference = newFare - oldFare;
    const creditDue = Math.max(0, -fareDifference);
    const totalCollected = irrops ? 0 : fee + Math.max(0, fareDifference);

    // The reference cancels the first booking of that journey id, which after a
    // partial rebook can be the already-cancelled original rather than the kept legs.
    const first = reservation.bookings.find((b) => b.journey_id === journey_id);
    if (first) first.status = "cancelled";

    const oldSegments = booking.segments ?? [];
    const flightSegments = newJourney.segments ?? [];
    const segments = flightSegments.map((fs, i): BookedSegment => {
      let farePaid: unknown;
      if (irrops && !flightNumber && i < oldSegments.length) {
        farePaid = oldSegments[i]!.fare_paid ?? 0;
      } else if (irrops && replaced && flightSegments.length === 1) {
        farePaid = replaced.fare_paid ?? 0;
      } else farePaid = fs.fares && fareClass in fs.fares ? fs.fares[fareClass] : 0;
      // Bags and meal requests follow the passenger onto the new flight (eva's gold
      // data keeps them; eva's own code zeroes them), the seat does not.
      const source = replaced ?? oldSegments[i] ?? oldSegments[0];
      return {
        flight_number: fs.flight_number,
        date: newJourney.date,
        fare_paid: farePaid as number,
        seat: null,
        bags_checked: source?.bags_checked ?? 0,
        meal_request: source?.meal_request ?? null,
      };
    });
    reservation.bookings.push({
      journey_id: new_journey_id,
      fare_class: fareClass,
      fare_paid: irrops ? oldFare : newFare,
      status: "confirmed",
      segments,
    });

    let keptInfo: Record<string, unknown>[] = [];
    if (flightNumber) {
      const kept = oldSegments.filter((s) => s.flight_number !== flightNumber);
      if (kept.length > 0) {
        const keptBooking: Booking = {
          journey_id,
          fare_class: originalFareClass,
          fare_paid: kept.reduce((sum, s) => sum + (s.fare_paid ?? 0), 0),
          status: "confirmed",
          segments: JSON.parse(JSON.stringify(kept)),
        };
        reservation.bookings.push(keptBooking);
        keptInfo = kept.map((s) => ({
          flight_number: s.flight_number ?? null,
          origin: s.origin ?? null,
          destination: s.destination ?? null,
          fare_paid: s.fare_paid ?? null,
          seat: s.seat ?? null,
        }));
      }
    }
    reservation.status = "changed";
    adjustSeats(newJourney, fareClass, -1);
    adjustSeats(journeys[booking.journey_id], originalFareClass, +1);

    const cabinChanged = originalFareClass !== fareClass;
    const result: Record<string, unknown> = {
      status: "success",
      confirmation_number,
      new_journey: {
        journey_id: new_journey_id,
        num_stops: newJourney.num_stops ?? 0,
        segments: flightSegments,
        departure: flightSegments[0]?.scheduled_departure ?? null,
        arrival: flightSegments.at(-1)?.scheduled_arrival ?? null,
        origin: newJourney.origin ?? null,
        destination: newJourney.destination ?? null,
      },
      cost_summary: {
        original_fare_class: originalFareClass,
        new_fare_class: fareClass,
        cabin_changed: cabinChanged,
        change_fee: fee,
        fare_difference: fareDifference,
        credit_due: creditDue,
        total_collected: totalCollected,
        fee_waived: irrops || args.waive_change_fee,
      },
      message: `Successfully rebooked to flight ${new_journey_id}` +
        (cabinChanged ? ` in ${fareClass}` : ""),
    };
    if (replaced) {
      result.partial_rebook = true;
      result.replaced_segment = {
        flight_number: flightNumber,
        origin: replaced.origin ?? null,
        destination: replaced.destination ?? null,
        fare_paid: replaced.fare_paid ?? null,
      };
      result.kept_segments = keptInfo;
    }
    return succeeded(result, {
      action_type: "rebook_flight",
      confirmation_number,
      old_journey_id: journey_id,
      new_journey_id,
      rebooking_type,
      original_fare_class: originalFareClass,
      new_fare_class: fareClass,
      change_fee: fee,
      fare_difference: fareDifference,
      total_collected: totalCollected,
      partial_rebook: Boolean(flightNumber),
      ...(flightNumber ? { replaced_flight_number: flightNumber } : {}),
    });
  },
});

/**
 * The tau2 airline tools that change an existing reservation or a user: cancel,
 * baggage, flights, passengers, and sending a certificate. As in tau2, neither a
 * cancellation nor a flight change gives seats back to the flights.
 *
 * @module
 */
import type { Db } from "../domain.ts";
import { integer, list, text } from "../tau2_common/fields.ts";
import { failure, tau2Tool, toolError, written } from "../tau2_common/tau2_tool.ts";
import { NONFREE_BAG_PRICE } from "./book_reservation.ts";
import { cabin, flightSegment, passenger, paymentId } from "./params.ts";
import { priceLeg } from "./legs.ts";
import {
  findReservation,
  findUser,
  type Payment,
  type Reservation,
  type ReservationFlight,
  type User,
} from "./world.ts";
import type { ToolErrorResult, ToolOutcome } from "../domain.ts";

const RESERVATION_ID = text("Reservation id, for example 'ZFA04Y'.");

export const cancelReservation = tau2Tool({
  name: "cancel_reservation",
  alias: "CancelReservationTool",
  kind: "write",
  description: "Cancel a whole reservation: every payment is refunded to the method it " +
    "came from and the reservation is marked cancelled.",
  args: { reservation_id: RESERVATION_ID },
  run(args, { db }) {
    const reservation = findReservation(db, args.reservation_id);
    if (!reservation) return _noReservation(args.reservation_id);
    const history = reservation.payment_history ?? [];
    // Refunds are appended as negative payments; the originals stay.
    const refunds = history.map((p) => ({ payment_id: p.payment_id, amount: -(p.amount ?? 0) }));
    (reservation.payment_history ??= []).push(...refunds);
    reservation.status = "cancelled";
    return written(
      "cancel_reservation",
      args,
      { reservation_id: args.reservation_id, status: "cancelled" },
      reservation,
    );
  },
});

/** tau2 mints certificate ids from this fixed list, first unused first. */
const NEW_CERTIFICATE_IDS = ["certificate_3221322", "certificate_3221323", "certificate_3221324"];

export const sendCertificate = tau2Tool({
  name: "send_certificate",
  alias: "SendCertificateTool",
  kind: "write",
  description: "Add a travel certificate of the given amount to a user's payment methods " +
    "(compensation). It cannot be taken back.",
  args: {
    user_id: text("Id of the user receiving the certificate, for example 'sara_doe_496'."),
    amount: integer("Certificate value in whole dollars."),
  },
  run(args, { db }) {
    const user = findUser(db, args.user_id);
    if (!user) return failure("not_found", `User ${args.user_id} not found`);
    const methods = user.payment_methods ??= {};
    const id = NEW_CERTIFICATE_IDS.find((c) => !Object.hasOwn(methods, c));
    if (!id) return failure("value_error", "Too many certificates");
    methods[id] = { source: "certificate", id, amount: args.amount };
    return written(
      "send_certificate",
      args,
      { payment_id: id, amount: args.amount },
      {
        status: "success",
        message: `Certificate ${id} added to user ${args.user_id} with amount ${args.amount}.`,
      },
    );
  },
});

export const updateReservationBaggages = tau2Tool({
  name: "update_reservation_baggages",
  alias: "UpdateReservationBaggagesTool",
  kind: "write",
  description: "Change a reservation's checked bags; each paid bag added costs $50, " +
    "charged to the given payment method.",
  args: {
    reservation_id: RESERVATION_ID,
    total_baggages: integer("New total number of checked bags."),
    nonfree_baggages: integer("New number of paid bags."),
    payment_id: paymentId,
  },
  run(args, { db }) {
    const found = _reservationAndUser(db, args.reservation_id);
    if ("error" in found) return { ok: false, result: found.error };
    const { reservation, user } = found;
    const added = Math.max(0, args.nonfree_baggages - (reservation.nonfree_baggages ?? 0));
    const totalPrice = NONFREE_BAG_PRICE * added;
    const charged = chargeForUpdate(user, args.payment_id, totalPrice);
    if (charged.error) return { ok: false, result: charged.error };
    if (charged.payment) (reservation.payment_history ??= []).push(charged.payment);
    reservation.total_baggages = args.total_baggages;
    reservation.nonfree_baggages = args.nonfree_baggages;
    return written(
      "update_reservation_baggages",
      args,
      { reservation_id: args.reservation_id, charged: totalPrice },
      reservation,
    );
  },
});

export const updateReservationFlights = tau2Tool({
  name: "update_reservation_flights",
  alias: "UpdateReservationFlightsTool",
  kind: "write",
  description: "Replace a reservation's flights and cabin. List the whole new itinerary, " +
    "unchanged legs included; a higher price is charged to the payment method, a lower " +
    "one refunded to it.",
  args: {
    reservation_id: RESERVATION_ID,
    cabin,
    flights: list(flightSegment, "Every leg of the new itinerary, unchanged ones too."),
    payment_id: paymentId,
  },
  run(args, { db }) {
    const found = _reservationAndUser(db, args.reservation_id);
    if ("error" in found) return { ok: false, result: found.error };
    const { reservation, user } = found;
    const travellers = (reservation.passengers ?? []).length;
    const existing = reservation.flights ?? [];
    const flights: ReservationFlight[] = [];
    let totalPrice = 0;
    for (const leg of args.flights) {
      // A leg kept in the same cabin keeps the price it was bought at.
      const kept = existing.find((f) =>
        f.flight_number === leg.flight_number && f.date === leg.date &&
        args.cabin === reservation.cabin
      );
      if (kept) {
        totalPrice += (kept.price ?? 0) * travellers;
        flights.push({ ...kept });
        continue;
      }
      const priced = priceLeg(db, leg, args.cabin, travellers, "not_available");
      if ("failure" in priced) return priced.failure;
      flights.push(priced.flight);
      totalPrice += priced.cost;
    }
    totalPrice -= existing.reduce((sum, f) => sum + (f.price ?? 0), 0) * travellers;
    const charged = chargeForUpdate(user, args.payment_id, totalPrice);
    if (charged.error) return { ok: false, result: charged.error };
    if (charged.payment) (reservation.payment_history ??= []).push(charged.payment);
    reservation.flights = flights;
    reservation.cabin = args.cabin;
    return written(
      "update_reservation_flights",
      args,
      { reservation_id: args.reservation_id, charged: totalPrice },
      reservation,
    );
  },
});

export const updateReservationPassengers = tau2Tool({
  name: "update_reservation_passengers",
  alias: "UpdateReservationPassengersTool",
  kind: "write",
  description: "Replace the passengers' details on a reservation; the number of " +
    "passengers cannot change.",
  args: {
    reservation_id: RESERVATION_ID,
    passengers: list(passenger, "Every traveller: first name, last name, date of birth."),
  },
  run(args, { db }) {
    const reservation = findReservation(db, args.reservation_id);
    if (!reservation) return _noReservation(args.reservation_id);
    if (args.passengers.length !== (reservation.passengers ?? []).length) {
      return failure("value_error", "Number of passengers does not match");
    }
    reservation.passengers = args.passengers.map((p) => ({
      first_name: p.first_name,
      last_name: p.last_name,
      dob: p.dob,
    }));
    return written(
      "update_reservation_passengers",
      args,
      { reservation_id: args.reservation_id },
      reservation,
    );
  },
});

/**
 * Pays for a change with one of the user's methods, as tau2: certificates cannot pay
 * for changes, a gift card needs the balance (a refund adds to it), a credit card
 * always works. A zero total writes no payment line.
 */
export function chargeForUpdate(
  user: User,
  paymentMethodId: string,
  totalPrice: number,
): { error?: ToolErrorResult; payment?: Payment } {
  const methods = user.payment_methods ?? {};
  const method = Object.hasOwn(methods, paymentMethodId) ? methods[paymentMethodId] : undefined;
  if (!method) return { error: toolError("value_error", "Payment method not found") };
  if (method.source === "certificate") {
    return { error: toolError("value_error", "Certificate cannot be used to update reservation") };
  }
  if (method.source === "gift_card") {
    if ((method.amount ?? 0) < totalPrice) {
      return { error: toolError("value_error", "Gift card balance is not enough") };
    }
    method.amount = (method.amount ?? 0) - totalPrice;
  }
  return totalPrice !== 0 ? { payment: { payment_id: paymentMethodId, amount: totalPrice } } : {};
}

function _noReservation(reservationId: string): ToolOutcome {
  return failure("not_found", `Reservation ${reservationId} not found`);
}

function _reservationAndUser(
  db: Db,
  reservationId: string,
): { reservation: Reservation; user: User } | { error: ToolErrorResult } {
  const reservation = findReservation(db, reservationId);
  if (!reservation) {
    return { error: toolError("not_found", `Reservation ${reservationId} not found`) };
  }
  const user = findUser(db, reservation.user_id);
  if (!user) {
    return { error: toolError("not_found", `User ${reservation.user_id ?? "None"} not found`) };
  }
  return { reservation, user };
}

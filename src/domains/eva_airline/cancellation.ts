/**
 * `cancel_reservation` and `process_refund`: cancelling a journey says what the
 * passenger is owed; the refund itself is a separate call per refund type.
 *
 * @module
 */
import { amount, CANCELLATION_REASONS, choice, code, REFUND_TYPES } from "./params.ts";
import { evaTool, failed, succeeded } from "./eva_tool.ts";
import {
  adjustSeats,
  bookingFare,
  bookingOf,
  currentDate,
  journeyNotFound,
  reservationNotFound,
  table,
  tables,
  toolError,
} from "./world.ts";
import { pyFloat } from "./python_text.ts";

/** Reasons that cancel without a fee and with a refund, whatever the fare type. */
const FEE_FREE_REASONS = new Set(["irrops_refund", "24_hour_rule"]);
const CANCELLATION_FEE = 100;

export const cancelReservation = evaTool({
  name: "cancel_reservation",
  alias: "CancelReservationTool",
  kind: "write",
  description:
    "Cancel one journey of a booking (the booking is cancelled once all its journeys are). Returns whether the fare is refundable, the fee, and the refund or travel-credit amount due; a refund is then issued with process_refund.",
  args: {
    confirmation_number: code("confirmation", "The six-character booking code."),
    journey_id: code("journey", "Journey id to cancel, from get_reservation."),
    cancellation_reason: choice(CANCELLATION_REASONS, "Why the journey is cancelled."),
  },
  run({ confirmation_number, journey_id, cancellation_reason }, { db }) {
    const reservation = tables(db).reservations[confirmation_number];
    if (!reservation) return failed(reservationNotFound(confirmation_number));
    const booking = bookingOf(reservation, journey_id);
    if (!booking) return failed(journeyNotFound(journey_id));
    if (booking.status === "cancelled") {
      return failed(toolError("already_cancelled", `Journey ${journey_id} is already cancelled`));
    }
    const fare = bookingFare(booking);
    const refundable = FEE_FREE_REASONS.has(cancellation_reason) ||
      reservation.fare_type === "refundable";
    const fee = refundable ? 0 : CANCELLATION_FEE;
    const refund = refundable ? Math.max(0, fare - fee) : 0;
    const credit = refundable ? 0 : Math.max(0, fare - fee);

    booking.status = "cancelled";
    adjustSeats(tables(db).journeys[journey_id], booking.fare_class ?? "main_cabin", +1);
    const allCancelled = reservation.bookings.every((b) => b.status === "cancelled");
    if (allCancelled) reservation.status = "cancelled";

    return succeeded({
      status: "success",
      confirmation_number,
      journey_id,
      is_refundable: refundable,
      cancellation_fee: fee,
      refund_amount_eligible: refund,
      credit_amount_eligible: credit,
      reservation_status: allCancelled ? "cancelled" : "active",
      message: `Journey ${journey_id} cancelled successfully`,
    }, {
      action_type: "cancel_reservation",
      confirmation_number,
      journey_id,
      cancellation_reason,
      is_refundable: refundable,
      cancellation_fee: fee,
      refund_amount_eligible: refund,
    });
  },
});

const PROCESSING_DAYS = 7;

export const processRefund = evaTool({
  name: "process_refund",
  alias: "ProcessRefundTool",
  kind: "write",
  description:
    "Refund money to the original form of payment, after cancel_reservation says a refund is due. One call per refund type: the fare and ancillary fees are refunded separately.",
  args: {
    confirmation_number: code("confirmation", "The six-character booking code."),
    refund_amount: amount("Amount to refund in USD (refund_amount_eligible for a fare).", 0),
    refund_type: choice(REFUND_TYPES, "What is being refunded."),
  },
  run({ confirmation_number, refund_amount, refund_type }, ctx) {
    if (!tables(ctx.db).reservations[confirmation_number]) {
      return failed(reservationNotFound(confirmation_number));
    }
    const n = ctx.next("process_refund");
    const refundId = `REF-${confirmation_number}-${String(n).padStart(3, "0")}`;
    table(ctx.db, "refunds")[refundId] = {
      refund_id: refundId,
      confirmation_number,
      refund_amount,
      refund_type,
      processing_days: PROCESSING_DAYS,
      initiated_date: currentDate(ctx),
      status: "processing",
    };
    return succeeded({
      status: "success",
      confirmation_number,
      refund_id: refundId,
      refund_amount,
      refund_type,
      processing_days: PROCESSING_DAYS,
      message: `$${
        pyFloat(refund_amount)
      } refund initiated, processing time ${PROCESSING_DAYS} business days`,
    }, { action_type: "process_refund", confirmation_number, refund_amount, refund_type });
  },
});

/**
 * What the airline gives back: travel credits, hotel vouchers and meal vouchers,
 * each stored under a code derived from the booking (and passenger).
 *
 * @module
 */
import { amount, choice, code, CREDIT_REASONS, integer, VOUCHER_REASONS } from "./params.ts";
import { evaTool, failed, succeeded } from "./eva_tool.ts";
import { currentDate, reservationNotFound, table, tables, toolError } from "./world.ts";
import { pyFloat } from "./python_text.ts";

export const issueTravelCredit = evaTool({
  name: "issue_travel_credit",
  alias: "IssueTravelCreditTool",
  kind: "write",
  description:
    "Give a passenger a travel credit for a future flight, valid 12 months: for a non-refundable cancellation, a cheaper new fare, a downgrade, or service recovery.",
  args: {
    confirmation_number: code("confirmation", "The six-character booking code."),
    passenger_id: code("passenger", "Passenger id from get_reservation, e.g. PAX001."),
    amount: amount("Credit in USD.", 0),
    credit_reason: choice(CREDIT_REASONS, "Why the credit is given."),
  },
  run({ confirmation_number, passenger_id, amount, credit_reason }, ctx) {
    if (!tables(ctx.db).reservations[confirmation_number]) {
      return failed(reservationNotFound(confirmation_number));
    }
    const creditCode = `TC${confirmation_number}${passenger_id.slice(0, 3).toUpperCase()}`;
    const today = currentDate(ctx);
    table(ctx.db, "travel_credits")[creditCode] = {
      credit_code: creditCode,
      confirmation_number,
      passenger_id,
      amount,
      credit_reason,
      issued_date: today,
      expiry_date: `${Number(today.slice(0, 4)) + 1}${today.slice(4)}`,
      status: "active",
    };
    return succeeded({
      status: "success",
      confirmation_number,
      passenger_id,
      credit_code: creditCode,
      amount,
      valid_months: 12,
      message: `$${pyFloat(amount)} travel credit issued with code ${creditCode}`,
    }, {
      action_type: "issue_travel_credit",
      confirmation_number,
      passenger_id,
      amount,
      credit_reason,
    });
  },
});

const MAX_HOTEL_NIGHTS = 3;

export const issueHotelVoucher = evaTool({
  name: "issue_hotel_voucher",
  alias: "IssueHotelVoucherTool",
  kind: "write",
  description:
    "Give a passenger a hotel voucher (at most 3 nights) when a disruption strands them overnight, once the rebooking is confirmed.",
  args: {
    confirmation_number: code("confirmation", "The six-character booking code."),
    passenger_id: code("passenger", "Passenger id from get_reservation, e.g. PAX001."),
    num_nights: integer("Nights, 1 to 3.", { ge: 1 }),
  },
  run({ confirmation_number, passenger_id, num_nights }, ctx) {
    if (!tables(ctx.db).reservations[confirmation_number]) {
      return failed(reservationNotFound(confirmation_number));
    }
    if (num_nights > MAX_HOTEL_NIGHTS) {
      return failed(toolError(
        "exceeds_authority",
        `Hotel vouchers can be issued for maximum of ${MAX_HOTEL_NIGHTS} nights`,
      ));
    }
    const voucherCode = `HOTEL-${confirmation_number}`;
    table(ctx.db, "hotel_vouchers")[voucherCode] = {
      voucher_code: voucherCode,
      confirmation_number,
      passenger_id,
      num_nights,
      issued_date: currentDate(ctx),
      status: "active",
    };
    return succeeded({
      status: "success",
      confirmation_number,
      passenger_id,
      voucher_code: voucherCode,
      number_of_nights: num_nights,
      valid_at: "Any hotels in airport area",
      message: `Hotel voucher issued with code ${voucherCode} for ${num_nights} nights`,
    }, { action_type: "issue_hotel_voucher", confirmation_number, passenger_id, num_nights });
  },
});

/** Meal voucher value in USD by reason. */
const MEAL_VOUCHER_AMOUNTS: Readonly<Record<string, number>> = {
  delay_over_2_hours: 12,
  delay_over_4_hours: 15,
  cancellation_wait_same_day: 15,
  irrops_overnight: 25,
};

export const issueMealVoucher = evaTool({
  name: "issue_meal_voucher",
  alias: "IssueMealVoucherTool",
  kind: "write",
  description:
    "Give a passenger a meal voucher for a qualifying delay or cancellation; the amount follows from the reason (2+ hours $12, 4+ hours $15, same-day cancellation wait $15, overnight $25).",
  args: {
    confirmation_number: code("confirmation", "The six-character booking code."),
    passenger_id: code("passenger", "Passenger id from get_reservation, e.g. PAX001."),
    voucher_reason: choice(VOUCHER_REASONS, "Why the voucher is given."),
  },
  run({ confirmation_number, passenger_id, voucher_reason }, ctx) {
    if (!tables(ctx.db).reservations[confirmation_number]) {
      return failed(reservationNotFound(confirmation_number));
    }
    const value = MEAL_VOUCHER_AMOUNTS[voucher_reason] ?? 12;
    const voucherCode = `MEAL-${confirmation_number}-${passenger_id.slice(0, 4).toUpperCase()}`;
    table(ctx.db, "meal_vouchers")[voucherCode] = {
      voucher_code: voucherCode,
      confirmation_number,
      passenger_id,
      amount: value,
      voucher_reason,
      issued_date: currentDate(ctx),
      status: "active",
    };
    return succeeded({
      status: "success",
      confirmation_number,
      passenger_id,
      voucher_code: voucherCode,
      amount: value,
      valid_at: "Airport terminal restaurants",
      message: `$${value} meal voucher issued with code ${voucherCode}`,
    }, {
      action_type: "issue_meal_voucher",
      confirmation_number,
      passenger_id,
      voucher_reason,
      amount: value,
    });
  },
});

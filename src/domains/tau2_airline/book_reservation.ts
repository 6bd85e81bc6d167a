/**
 * `book_reservation`: checks every leg and payment first and changes nothing
 * unless all pass; then charges gift cards, uses up certificates, takes seats from
 * each leg's cabin and files the reservation under the first free tau2 id.
 *
 * @module
 */
import { choice, integer, list, text } from "../tau2_common/fields.ts";
import { failure, tau2Tool, written } from "../tau2_common/tau2_tool.ts";
import { cabin, flightSegment, passenger, payment } from "./params.ts";
import { priceLeg } from "./legs.ts";
import {
  findUser,
  type FlightInstance,
  type Reservation,
  type ReservationFlight,
} from "./world.ts";

/** tau2 hands out new reservation ids from this fixed list, first unused first. */
const NEW_RESERVATION_IDS = ["HATHAT", "HATHAU", "HATHAV"];

/**
 * tau2 books at a fixed clock time on its fixed day (`2024-05-15T15:00:00`); the day
 * here is the scenario's, which the tau2 airline suite sets to that same date.
 */
const BOOKING_TIME = "T15:00:00";

/** tau2's prices: insurance per passenger and each bag beyond the free allowance. */
export const INSURANCE_PER_PASSENGER = 30;
export const NONFREE_BAG_PRICE = 50;

export const bookReservation = tau2Tool({
  name: "book_reservation",
  alias: "BookReservationTool",
  kind: "write",
  description: "Book a new reservation for a user: takes a seat on every leg for each " +
    "passenger and charges the listed payment methods, which must add up to the total price.",
  args: {
    user_id: text("Id of the user booking, for example 'sara_doe_496'."),
    origin: text("IATA code of the trip's origin, for example 'SFO'."),
    destination: text("IATA code of the trip's destination, for example 'JFK'."),
    flight_type: choice(["round_trip", "one_way"], "'one_way' or 'round_trip'."),
    cabin,
    flights: list(flightSegment, "Every leg of the trip, each a flight number and date."),
    passengers: list(passenger, "Every traveller: first name, last name, date of birth."),
    payment_methods: list(payment, "How the total is paid: payment method ids and amounts."),
    total_baggages: integer("Number of checked bags in the reservation."),
    nonfree_baggages: integer("How many of those bags are paid for."),
    insurance: choice(["yes", "no"], "Whether travel insurance is bought: 'yes' or 'no'."),
  },
  run(args, { db, today }) {
    const user = findUser(db, args.user_id);
    if (!user) return failure("not_found", `User ${args.user_id} not found`);
    const reservations = (db.reservations ?? {}) as Record<string, Reservation>;
    const reservationId = NEW_RESERVATION_IDS.find((id) => !Object.hasOwn(reservations, id));
    if (!reservationId) return failure("value_error", "Too many reservations");

    const travellers = args.passengers.length;
    let totalPrice = 0;
    const flights: ReservationFlight[] = [];
    const legs: FlightInstance[] = [];
    for (const leg of args.flights) {
      const priced = priceLeg(db, leg, args.cabin, travellers, "not_found");
      if ("failure" in priced) return priced.failure;
      flights.push(priced.flight);
      legs.push(priced.instance);
      totalPrice += priced.cost;
    }
    if (args.insurance === "yes") totalPrice += INSURANCE_PER_PASSENGER * travellers;
    totalPrice += NONFREE_BAG_PRICE * args.nonfree_baggages;

    const methods = user.payment_methods ?? {};
    for (const pay of args.payment_methods) {
      const method = Object.hasOwn(methods, pay.payment_id) ? methods[pay.payment_id] : undefined;
      if (!method) return failure("value_error", `Payment method ${pay.payment_id} not found`);
      const prepaid = method.source === "gift_card" || method.source === "certificate";
      if (prepaid && (method.amount ?? 0) < pay.amount) {
        return failure("value_error", `Not enough balance in payment method ${pay.payment_id}`);
      }
    }
    const paid = args.payment_methods.reduce((sum, pay) => sum + pay.amount, 0);
    if (paid !== totalPrice) {
      return failure(
        "value_error",
        `Payment amount does not add up, total price is ${totalPrice}, but paid ${paid}`,
      );
    }

    const history = [];
    for (const pay of args.payment_methods) {
      const method = methods[pay.payment_id];
      if (!method) {
        // The same certificate listed twice: the first use removed it.
        return failure("value_error", `Payment method ${pay.payment_id} not found`);
      }
      if (method.source === "gift_card") method.amount = (method.amount ?? 0) - pay.amount;
      else if (method.source === "certificate") delete methods[pay.payment_id];
      history.push({ payment_id: pay.payment_id, amount: pay.amount });
    }
    for (const instance of legs) {
      const seats = instance.available_seats;
      if (seats) seats[args.cabin] = (seats[args.cabin] ?? 0) - travellers;
    }

    // Every field of tau2's reservation model, `status: null` included, as its
    // pydantic dump writes it.
    const reservation: Reservation = {
      reservation_id: reservationId,
      user_id: args.user_id,
      origin: args.origin,
      destination: args.destination,
      flight_type: args.flight_type,
      cabin: args.cabin,
      flights,
      passengers: args.passengers.map((p) => ({
        first_name: p.first_name,
        last_name: p.last_name,
        dob: p.dob,
      })),
      payment_history: history,
      created_at: `${today}${BOOKING_TIME}`,
      total_baggages: args.total_baggages,
      nonfree_baggages: args.nonfree_baggages,
      insurance: args.insurance,
      status: null,
    };
    db.reservations ??= {};
    (db.reservations as Record<string, Reservation>)[reservationId] = reservation;
    (user.reservations ??= []).push(reservationId);
    return written("book_reservation", args, { reservation_id: reservationId }, reservation);
  },
});

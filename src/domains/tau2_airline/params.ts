/**
 * Argument parts the tau2 airline write tools share, and the model names pydantic
 * would print for them in a validation error.
 *
 * @module
 */
import { choice, integer, model, text } from "../tau2_common/fields.ts";

export const CABINS = ["business", "economy", "basic_economy"] as const;

export const cabin = choice(CABINS, "Cabin class: 'business', 'economy' or 'basic_economy'.");

export const flightSegment = model({
  flight_number: text("Flight number, for example 'HAT001'."),
  date: text("Flight date as YYYY-MM-DD, for example '2024-05-01'."),
});

export const passenger = model({
  first_name: text("Passenger's first name."),
  last_name: text("Passenger's last name."),
  dob: text("Passenger's date of birth as YYYY-MM-DD."),
});

export const payment = model({
  payment_id: text("Payment method id from the user's profile."),
  amount: integer("Amount in whole dollars charged to this method."),
});

export const paymentId = text(
  "Payment method id from the user's profile, for example 'credit_card_7815826' or " +
    "'gift_card_7815826'.",
);

/** The pydantic model behind each list argument, for validation errors. */
export const AIRLINE_MODELS: Readonly<Record<string, string>> = {
  flights: "FlightInfo",
  passengers: "Passenger",
  payment_methods: "Payment",
};

import { deepEqual, equal } from "node:assert/strict";
import { EXIT_TRANSFER } from "../common.ts";
import { openAirline, RESERVATION, reservationIn, seatsIn, USER, userIn } from "./_testing.ts";

type Methods = Record<string, { amount?: number }>;

Deno.test("cancel_reservation appends a negative payment per payment and marks it cancelled", () => {
  const env = openAirline();
  const seatsBefore = { ...seatsIn(env, "HAT001", "2024-05-20") };
  const call = env.call("agent", "cancel_reservation", { reservation_id: "abc123" });
  const reservation = reservationIn(env, RESERVATION);
  deepEqual(reservation.payment_history, [
    { payment_id: "credit_card_1", amount: 180 },
    { payment_id: "credit_card_1", amount: -180 },
  ]);
  equal(reservation.status, "cancelled");
  // tau2 gives no seats back on cancellation.
  deepEqual(seatsIn(env, "HAT001", "2024-05-20"), seatsBefore);
  deepEqual(call.record?.result, { reservation_id: "abc123", status: "cancelled" });
  deepEqual(call.record?.arguments, { reservation_id: "abc123" });
});

Deno.test("send_certificate adds the first free tau2 certificate id with the amount", () => {
  const env = openAirline();
  const first = env.call("agent", "send_certificate", { user_id: USER, amount: 100 });
  const second = env.call("agent", "send_certificate", { user_id: USER, amount: 50 });
  const methods = userIn(env).payment_methods as Record<string, unknown>;
  deepEqual(methods.certificate_3221322, {
    source: "certificate",
    id: "certificate_3221322",
    amount: 100,
  });
  deepEqual(methods.certificate_3221323, {
    source: "certificate",
    id: "certificate_3221323",
    amount: 50,
  });
  deepEqual(first.result, {
    status: "success",
    message: `Certificate certificate_3221322 added to user ${USER} with amount 100.`,
  });
  deepEqual(second.record?.result, { payment_id: "certificate_3221323", amount: 50 });
  env.call("agent", "send_certificate", { user_id: USER, amount: 10 });
  const fourth = env.call("agent", "send_certificate", { user_id: USER, amount: 10 });
  equal((fourth.result as { message: string }).message, "Too many certificates");
});

Deno.test("update_reservation_baggages charges $50 per added paid bag", () => {
  const env = openAirline();
  const call = env.call("agent", "update_reservation_baggages", {
    reservation_id: RESERVATION,
    total_baggages: 3,
    nonfree_baggages: 2,
    payment_id: "gift_card_2",
  });
  const reservation = reservationIn(env, RESERVATION);
  equal(reservation.total_baggages, 3);
  equal(reservation.nonfree_baggages, 2);
  deepEqual((reservation.payment_history as unknown[]).at(-1), {
    payment_id: "gift_card_2",
    amount: 100,
  });
  equal((userIn(env).payment_methods as Methods).gift_card_2!.amount, 200);
  deepEqual(call.record?.result, { reservation_id: RESERVATION, charged: 100 });
});

Deno.test("update_reservation_baggages with no new paid bag writes no payment line", () => {
  const env = openAirline();
  env.call("agent", "update_reservation_baggages", {
    reservation_id: RESERVATION,
    total_baggages: 2,
    nonfree_baggages: 0,
    payment_id: "credit_card_1",
  });
  equal((reservationIn(env, RESERVATION).payment_history as unknown[]).length, 1);
});

Deno.test("updates cannot be paid by certificate, and a gift card needs the balance", () => {
  const env = openAirline();
  const byCertificate = env.call("agent", "update_reservation_baggages", {
    reservation_id: RESERVATION,
    total_baggages: 2,
    nonfree_baggages: 1,
    payment_id: "certificate_3",
  });
  equal(
    (byCertificate.result as { message: string }).message,
    "Certificate cannot be used to update reservation",
  );
  const tooMuch = env.call("agent", "update_reservation_flights", {
    reservation_id: RESERVATION,
    cabin: "business",
    flights: [{ flight_number: "HAT001", date: "2024-05-20" }],
    payment_id: "gift_card_2",
  });
  // 500 - 180 = 320 > 300 on the card.
  equal((tooMuch.result as { message: string }).message, "Gift card balance is not enough");
  equal(env.actions.length, 0);
});

Deno.test("update_reservation_flights re-quotes changed legs and charges the difference", () => {
  const env = openAirline();
  const call = env.call("agent", "update_reservation_flights", {
    reservation_id: RESERVATION,
    cabin: "business",
    flights: [{ flight_number: "hat001", date: "2024-05-20" }],
    payment_id: "credit_card_1",
  });
  const reservation = reservationIn(env, RESERVATION);
  equal(reservation.cabin, "business");
  deepEqual(reservation.flights, [
    { flight_number: "hat001", origin: "JFK", destination: "LAX", date: "2024-05-20", price: 500 },
  ]);
  deepEqual((reservation.payment_history as unknown[]).at(-1), {
    payment_id: "credit_card_1",
    amount: 320,
  });
  deepEqual(call.record?.result, { reservation_id: RESERVATION, charged: 320 });
  // Seats on the flights are not updated, as in tau2.
  equal(seatsIn(env, "HAT001", "2024-05-20").business, 5);
});

Deno.test("update_reservation_flights keeps the bought price of an unchanged leg", () => {
  const env = openAirline();
  const call = env.call("agent", "update_reservation_flights", {
    reservation_id: RESERVATION,
    cabin: "economy",
    flights: [{ flight_number: "HAT001", date: "2024-05-20" }, {
      flight_number: "HAT002",
      date: "2024-05-20",
    }],
    payment_id: "gift_card_2",
  });
  deepEqual((reservationIn(env, RESERVATION).flights as { price: number }[]).map((f) => f.price), [
    180,
    200,
  ]);
  deepEqual(call.record?.result, { reservation_id: RESERVATION, charged: 200 });
  equal((userIn(env).payment_methods as Methods).gift_card_2!.amount, 100);
});

Deno.test("update_reservation_flights refunds a cheaper itinerary to a gift card", () => {
  const env = openAirline();
  env.call("agent", "update_reservation_flights", {
    reservation_id: RESERVATION,
    cabin: "basic_economy",
    flights: [{ flight_number: "HAT001", date: "2024-05-20" }],
    payment_id: "gift_card_2",
  });
  deepEqual((reservationIn(env, RESERVATION).payment_history as unknown[]).at(-1), {
    payment_id: "gift_card_2",
    amount: -80,
  });
  equal((userIn(env).payment_methods as Methods).gift_card_2!.amount, 380);
});

Deno.test("update_reservation_passengers replaces passengers but not their number", () => {
  const env = openAirline();
  const wrong = env.call("agent", "update_reservation_passengers", {
    reservation_id: RESERVATION,
    passengers: [],
  });
  equal((wrong.result as { message: string }).message, "Number of passengers does not match");
  const ok = env.call("agent", "update_reservation_passengers", {
    reservation_id: RESERVATION,
    passengers: [{ first_name: "Ada", last_name: "Lane-Moss", dob: "1990-01-02", nickname: "A" }],
  });
  equal(ok.ok, true);
  // A nested model drops unknown keys, as pydantic does.
  deepEqual(reservationIn(env, RESERVATION).passengers, [
    { first_name: "Ada", last_name: "Lane-Moss", dob: "1990-01-02" },
  ]);
});

Deno.test("transfer_to_human_agents records the transfer and ends the call", () => {
  const call = openAirline().call("agent", "transfer_to_human_agents", {
    summary: "Wants a refund.",
  });
  deepEqual(call.result, { status: "success", message: "Transfer successful" });
  equal(call.exit, EXIT_TRANSFER);
  deepEqual(call.record, {
    action_type: "transfer_to_human_agents",
    name: "transfer_to_human_agents",
    arguments: { summary: "Wants a refund." },
    result: { message: "Transfer successful" },
    side: "agent",
  });
});

Deno.test("calculate prints Python's str() of the rounded value", () => {
  deepEqual(openAirline().call("agent", "calculate", { expression: "2 * 5" }).result, {
    status: "success",
    result: "10.0",
  });
});

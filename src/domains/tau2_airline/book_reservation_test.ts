import { deepEqual, equal } from "node:assert/strict";
import { airlineWorld, openAirline, reservationIn, seatsIn, USER, userIn } from "./_testing.ts";

const BOOKING = {
  user_id: USER,
  origin: "JFK",
  destination: "LAX",
  flight_type: "one_way",
  cabin: "economy",
  flights: [{ flight_number: "HAT001", date: "2024-05-20" }],
  passengers: [
    { first_name: "Ada", last_name: "Lane", dob: "1990-01-02" },
    { first_name: "Cy", last_name: "Lane", dob: "2015-03-04" },
  ],
  // 2 x 200 + insurance 2 x 30 + one paid bag 50 = 510.
  payment_methods: [{ payment_id: "gift_card_2", amount: 300 }, {
    payment_id: "credit_card_1",
    amount: 210,
  }],
  total_baggages: 2,
  nonfree_baggages: 1,
  insurance: "yes",
};

Deno.test("book_reservation files a reservation with every model field, status null included", () => {
  const env = openAirline();
  const call = env.call("agent", "book_reservation", BOOKING);
  equal(call.ok, true);
  deepEqual(reservationIn(env, "HATHAT"), {
    reservation_id: "HATHAT",
    user_id: USER,
    origin: "JFK",
    destination: "LAX",
    flight_type: "one_way",
    cabin: "economy",
    flights: [{
      flight_number: "HAT001",
      origin: "JFK",
      destination: "LAX",
      date: "2024-05-20",
      price: 200,
    }],
    passengers: BOOKING.passengers,
    payment_history: [{ payment_id: "gift_card_2", amount: 300 }, {
      payment_id: "credit_card_1",
      amount: 210,
    }],
    created_at: "2024-05-15T15:00:00",
    total_baggages: 2,
    nonfree_baggages: 1,
    insurance: "yes",
    status: null,
  });
  deepEqual(call.record, {
    action_type: "book_reservation",
    name: "book_reservation",
    arguments: BOOKING,
    result: { reservation_id: "HATHAT" },
    side: "agent",
  });
});

Deno.test("book_reservation charges gift cards, takes seats and adds the id to the user", () => {
  const env = openAirline();
  env.call("agent", "book_reservation", BOOKING);
  const user = userIn(env) as {
    payment_methods: Record<string, { amount?: number }>;
    reservations: string[];
  };
  equal(user.payment_methods.gift_card_2!.amount, 0);
  deepEqual(user.reservations, ["ABC123", "HATHAT"]);
  const seats = seatsIn(env, "HAT001", "2024-05-20");
  deepEqual(seats, { business: 5, economy: 8, basic_economy: 2 });
});

Deno.test("book_reservation uses up a certificate and mints the next free id", () => {
  const world = airlineWorld();
  (world.reservations as Record<string, unknown>).HATHAT = { reservation_id: "HATHAT" };
  const env = openAirline(world);
  const call = env.call("agent", "book_reservation", {
    ...BOOKING,
    passengers: [BOOKING.passengers[0]],
    insurance: "no",
    nonfree_baggages: 0,
    payment_methods: [{ payment_id: "certificate_3", amount: 150 }, {
      payment_id: "credit_card_1",
      amount: 50,
    }],
  });
  equal(call.ok, true);
  equal((call.result as { reservation_id: string }).reservation_id, "HATHAU");
  equal("certificate_3" in (userIn(env).payment_methods as object), false);
});

Deno.test("book_reservation refuses a payment that does not add up and changes nothing", () => {
  const env = openAirline();
  const before = env.hashes();
  const call = env.call("agent", "book_reservation", {
    ...BOOKING,
    payment_methods: [{ payment_id: "credit_card_1", amount: 500 }],
  });
  deepEqual(call.result, {
    status: "error",
    error_type: "value_error",
    message: "Payment amount does not add up, total price is 510, but paid 500",
  });
  deepEqual(env.hashes(), before);
  deepEqual(env.actions, []);
});

Deno.test("book_reservation checks seats, flight dates, balances and payment methods", () => {
  const env = openAirline();
  const message = (args: Record<string, unknown>) =>
    (env.call("agent", "book_reservation", { ...BOOKING, ...args }).result as { message: string })
      .message;
  equal(
    message({ cabin: "basic_economy", flights: [{ flight_number: "HAT002", date: "2024-05-20" }] }),
    "Not enough seats on flight HAT002",
  );
  equal(
    message({ flights: [{ flight_number: "HAT001", date: "2024-05-21" }] }),
    "Flight HAT001 not available on date 2024-05-21",
  );
  equal(
    message({ flights: [{ flight_number: "HAT001", date: "2024-07-01" }] }),
    "Flight HAT001 not found on date 2024-07-01",
  );
  equal(
    message({ flights: [{ flight_number: "HAT999", date: "2024-05-20" }] }),
    "Flight HAT999 not found",
  );
  equal(
    message({ payment_methods: [{ payment_id: "gift_card_2", amount: 510 }] }),
    "Not enough balance in payment method gift_card_2",
  );
  equal(
    message({ payment_methods: [{ payment_id: "paypal_9", amount: 510 }] }),
    "Payment method paypal_9 not found",
  );
  equal(message({ user_id: "nobody_1" }), "User nobody_1 not found");
});

Deno.test("book_reservation takes amounts as pydantic does: integral text becomes a number", () => {
  const env = openAirline();
  const call = env.call("agent", "book_reservation", {
    ...BOOKING,
    payment_methods: [{ payment_id: "credit_card_1", amount: "510" }],
  });
  equal(call.ok, true);
  deepEqual((call.record!.arguments as typeof BOOKING).payment_methods, [
    { payment_id: "credit_card_1", amount: 510 },
  ]);
});

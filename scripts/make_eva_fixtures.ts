/**
 * Writes the bundled eva_airline fixtures (`fixtures/eva_airline/`): four scenarios
 * of our own in the eva format. The worlds and the caller's side are written here;
 * each expected end state is produced by replaying the scenario's gold calls with
 * callbench's own tools, and the replay is checked against what the fixture policy
 * intends (fees, refunds, seats), so the fixture cannot drift from the tools.
 *
 *   deno run --allow-read --allow-write=fixtures/eva_airline --allow-env=NODE_ENV \
 *     scripts/make_eva_fixtures.ts            # write
 *   ... scripts/make_eva_fixtures.ts --check  # exit 1 if the files on disk differ
 *
 * @module
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { domain } from "../src/domains/eva_airline/mod.ts";
import { Environment } from "../src/env/environment.ts";
import type { Db } from "../src/domains/domain.ts";
import { fixtureJson, writeFixtures } from "./_fixtures.ts";

export const FIXTURE_DIR = fileURLToPath(new URL("../fixtures/eva_airline/", import.meta.url));

type Obj = Record<string, unknown>;

const SEAT_TYPES = {
  basic_economy: ["window", "aisle", "middle"],
  main_cabin: ["window", "aisle", "middle"],
  premium_economy: ["window", "aisle"],
  business: ["window", "aisle"],
  first: [],
};

interface Flight {
  flight: string;
  from: string;
  to: string;
  dep: string;
  arr: string;
  minutes: number;
  fares: Record<string, number | null>;
  seats: Record<string, number>;
  status?: string;
  seatTypes?: Record<string, string[]>;
  extra?: Obj;
}

/** A direct journey in the eva layout. */
function journey(date: string, f: Flight, extra: Obj = {}): [string, Obj] {
  const id = `FL_${f.flight}_${date.replaceAll("-", "")}`;
  return [id, {
    journey_id: id,
    date,
    origin: f.from,
    destination: f.to,
    num_stops: 0,
    total_duration_minutes: f.minutes,
    status: f.status ?? "scheduled",
    bookable: f.status !== "cancelled",
    fares: f.fares,
    segments: [{
      segment_number: 1,
      flight_number: f.flight,
      origin: f.from,
      destination: f.to,
      scheduled_departure: f.dep,
      scheduled_arrival: f.arr,
      origin_utc_offset: -5,
      destination_utc_offset: -5,
      duration_minutes: f.minutes,
      aircraft_type: "A220",
      gate: "B12",
      status: f.status ?? "scheduled",
      delay_minutes: null,
      delay_reason: null,
      cancellation_reason: null,
      fares: f.fares,
      available_seats: f.seats,
      available_seat_types: f.seatTypes ?? SEAT_TYPES,
      ...f.extra,
    }],
    ...extra,
  }];
}

function fares(basic: number, main: number, premium: number, business: number | null) {
  return {
    basic_economy: basic,
    main_cabin: main,
    premium_economy: premium,
    business,
    first: null,
  };
}

function seats(basic: number, main: number, premium: number, business: number) {
  return { basic_economy: basic, main_cabin: main, premium_economy: premium, business, first: 0 };
}

function passenger(id: string, first: string, last: string, extra: Obj = {}): Obj {
  return {
    passenger_id: id,
    first_name: first,
    last_name: last,
    email: `${first.toLowerCase()}.${last.toLowerCase()}@example.net`,
    phone: "+1-555-0100",
    ticket_number: `90${id.slice(3)}0000000000`.slice(0, 13),
    seat_preference: "no_preference",
    meal_preference: "none",
    elite_status: null,
    ...extra,
  };
}

interface FixtureScenario {
  id: string;
  currentDateTime: string;
  world: Db;
  record: Obj;
  calls: { name: string; arguments: Obj }[];
  /** What the fixture policy intends, checked on the replay's results. */
  check(results: Obj[], db: Db): void;
}

// ---------------------------------------------------------------------------
// 1.4.1: a voluntary date change with a window seat.

const VOLUNTARY: FixtureScenario = {
  id: "1.4.1",
  currentDateTime: "2026-05-04 09:20 PST",
  world: {
    _current_date: "2026-05-04",
    reservations: {
      H7KD2Q: {
        confirmation_number: "H7KD2Q",
        status: "confirmed",
        fare_type: "non_refundable",
        booking_date: "2026-04-02T18:40:00-07:00",
        passengers: [passenger("PAX001", "Marisol", "Quintero", { seat_preference: "window" })],
        bookings: [{
          journey_id: "FL_SK410_20260512",
          fare_class: "main_cabin",
          fare_paid: 149,
          status: "confirmed",
          segments: [{
            flight_number: "SK410",
            date: "2026-05-12",
            fare_paid: 149,
            seat: "20A",
            bags_checked: 1,
            meal_request: null,
          }],
        }],
        ancillaries: { seat_selection_fee: 0, bags_fee: 35 },
      },
    },
    journeys: Object.fromEntries([
      journey("2026-05-12", {
        flight: "SK410",
        from: "PDX",
        to: "SEA",
        dep: "16:00",
        arr: "16:55",
        minutes: 55,
        fares: fares(119, 149, 259, 489),
        seats: seats(4, 9, 3, 2),
      }),
      journey("2026-05-14", {
        flight: "SK412",
        from: "PDX",
        to: "SEA",
        dep: "07:10",
        arr: "08:05",
        minutes: 55,
        fares: fares(129, 169, 279, 509),
        seats: seats(5, 11, 4, 2),
      }),
      journey("2026-05-14", {
        flight: "SK416",
        from: "PDX",
        to: "SEA",
        dep: "12:30",
        arr: "13:25",
        minutes: 55,
        fares: fares(149, 199, 299, 529),
        seats: seats(2, 6, 2, 1),
      }),
      journey("2026-05-14", {
        flight: "SK418",
        from: "PDX",
        to: "SEA",
        dep: "18:45",
        arr: "19:40",
        minutes: 55,
        fares: fares(99, 139, 249, 469),
        seats: seats(6, 14, 4, 2),
        seatTypes: { ...SEAT_TYPES, main_cabin: ["aisle", "middle"] },
      }),
    ]),
    disruptions: {},
    travel_credits: {},
    meal_vouchers: {},
    refunds: {},
  },
  record: {
    user_goal: {
      high_level_user_goal:
        "You want to move your Portland to Seattle flight from May 12 to the morning of May 14, keep a window seat, and pay no more than $100 in total for the change.",
      starting_utterance: "Hi, I'd like to move my flight to Seattle to a different day.",
      decision_tree: {
        must_have_criteria: [
          "The new flight is PDX to SEA on 2026-05-14 and leaves before noon.",
          "The total you pay for the change (fee plus fare difference) is $100 or less.",
          "You end up with a window seat on the new flight.",
        ],
        nice_to_have_criteria: ["Your checked bag stays on the booking."],
        negotiation_behavior: [
          "When asked, say you are booked PDX to SEA on May 12 and need the morning of May 14 instead.",
          "Ask for the all-in cost before agreeing to any option.",
          "If several options fit, take the cheapest one that leaves before noon.",
        ],
        resolution_condition:
          "The agent has rebooked you on a May 14 morning flight for $100 or less in total and confirmed a window seat.",
        failure_condition:
          "If no May 14 morning flight costs $100 or less, keep your original flight, thank the agent and say goodbye.",
        escalation_behavior: "Do not ask for a supervisor; decline a transfer if offered.",
        edge_cases: [
          "If offered an afternoon or evening flight, say you need to leave before noon.",
          "If offered standby, decline and ask for a confirmed seat.",
        ],
      },
      information_required: {
        confirmation_number: "H7KD2Q",
        first_name: "Marisol",
        last_name: "Quintero",
        seat_preference: { first_choice: "window", second_choice: "aisle", third_choice: "middle" },
        original_travel_details: [{
          origin: "PDX",
          destination: "SEA",
          flight_date: "2026-05-12",
          departure_time: "16:00",
          status: "confirmed",
        }],
      },
    },
    user_config: {
      name: "Marisol Quintero",
      gender: "woman",
      user_persona_id: 101,
      user_persona:
        "You are friendly and organised, you like to confirm details back, and you keep the call moving.",
    },
    expected_flow:
      "Agent authenticates, searches May 14 flights, quotes the change fee and fare difference, rebooks the morning flight after the caller agrees, then assigns a window seat.",
    scenario_context: {
      premise:
        "A passenger needs to travel two days later than booked and prefers an early flight.",
      user_priorities: [
        { rank: 1, priority: "Morning flight on May 14", satisfied: true },
        { rank: 2, priority: "Total under $100", satisfied: true },
        { rank: 3, priority: "Window seat", satisfied: true },
      ],
    },
  },
  calls: [
    {
      name: "get_reservation",
      arguments: { confirmation_number: "H7KD2Q", last_name: "Quintero" },
    },
    {
      name: "search_rebooking_options",
      arguments: {
        origin: "PDX",
        destination: "SEA",
        date: "2026-05-14",
        passenger_count: 1,
        fare_class: "main_cabin",
      },
    },
    {
      name: "rebook_flight",
      arguments: {
        confirmation_number: "H7KD2Q",
        journey_id: "FL_SK410_20260512",
        new_journey_id: "FL_SK412_20260514",
        rebooking_type: "voluntary",
        waive_change_fee: false,
      },
    },
    {
      name: "assign_seat",
      arguments: {
        confirmation_number: "H7KD2Q",
        passenger_id: "PAX001",
        journey_id: "FL_SK412_20260514",
        seat_preference: "window",
      },
    },
  ],
  check([, search, rebook, seat], db) {
    assert.deepEqual(
      (search!.options as Obj[]).map((o) => o.journey_id),
      ["FL_SK412_20260514", "FL_SK416_20260514", "FL_SK418_20260514"],
    );
    const cost = rebook!.cost_summary as Obj;
    assert.deepEqual([cost.change_fee, cost.fare_difference, cost.total_collected], [75, 20, 95]);
    assert.equal(seat!.seat_assigned, "21A");
    const booking = (db.reservations as Obj & { H7KD2Q: { bookings: Obj[] } }).H7KD2Q.bookings[1]!;
    assert.equal((booking.segments as Obj[])[0]!.bags_checked, 1);
  },
};

// ---------------------------------------------------------------------------
// 5.3.1: cancelling a refundable fare, with the fare and bag fees refunded.

const CANCELLATION: FixtureScenario = {
  id: "5.3.1",
  currentDateTime: "2026-05-28 14:05 MST",
  world: {
    _current_date: "2026-05-28",
    reservations: {
      T3NW8B: {
        confirmation_number: "T3NW8B",
        status: "confirmed",
        fare_type: "refundable",
        booking_date: "2026-03-11T08:15:00-06:00",
        passengers: [passenger("PAX001", "Oluwaseun", "Adeyemi")],
        bookings: [{
          journey_id: "FL_SK620_20260609",
          fare_class: "premium_economy",
          fare_paid: 512.4,
          status: "confirmed",
          segments: [{
            flight_number: "SK620",
            date: "2026-06-09",
            fare_paid: 512.4,
            seat: "11C",
            bags_checked: 1,
            meal_request: "vegetarian",
          }],
        }],
        ancillaries: { seat_selection_fee: 0, bags_fee: 40 },
      },
    },
    journeys: Object.fromEntries([
      journey("2026-06-09", {
        flight: "SK620",
        from: "DEN",
        to: "MSP",
        dep: "10:15",
        arr: "13:20",
        minutes: 125,
        fares: fares(219, 289, 512.4, 890),
        seats: seats(3, 10, 2, 1),
      }),
    ]),
    disruptions: {},
    travel_credits: {},
    meal_vouchers: {},
    refunds: {},
  },
  record: {
    user_goal: {
      high_level_user_goal:
        "Your conference in Minneapolis was called off; you want to cancel your June 9 flight from Denver and get your money back, including the bag fee, to your card.",
      starting_utterance: "Hello, I need to cancel a flight, my trip is off.",
      decision_tree: {
        must_have_criteria: [
          "The June 9 DEN to MSP booking is cancelled.",
          "The full fare goes back to your original payment, not a travel credit.",
          "The $40 checked bag fee is refunded as well.",
        ],
        nice_to_have_criteria: [],
        negotiation_behavior: [
          "If offered a travel credit instead of a refund, point out that your fare is refundable and ask for the refund.",
          "Ask how long the refund will take to reach your card.",
        ],
        resolution_condition:
          "The agent has cancelled the booking and confirmed refunds of the fare and the bag fee to your card.",
        failure_condition:
          "If the agent will only give a credit, say you will call back, thank them and say goodbye.",
        escalation_behavior: "Only ask for a live agent if the refund is refused twice.",
        edge_cases: ["If asked whether you want to rebook instead, say no, the trip is cancelled."],
      },
      information_required: {
        confirmation_number: "T3NW8B",
        last_name: "Adeyemi",
        first_name_if_asked: "Oluwaseun",
        seat_preference: { first_choice: "aisle", second_choice: "window", third_choice: "middle" },
        original_travel_details: [{
          origin: "DEN",
          destination: "MSP",
          flight_date: "2026-06-09",
          departure_time: "10:15",
          status: "confirmed",
        }],
      },
    },
    user_config: {
      name: "Oluwaseun Adeyemi",
      gender: "man",
      user_persona_id: 102,
      user_persona:
        "You are calm and precise; you ask exactly where the money goes and how long it takes.",
    },
    expected_flow:
      "Agent authenticates, confirms the fare is refundable, cancels the journey, then processes the fare refund and the bag fee refund separately.",
    scenario_context: {
      premise: "A passenger with a refundable premium economy fare cancels a trip.",
      user_priorities: [
        { rank: 1, priority: "Refund, not credit", satisfied: true },
        { rank: 2, priority: "Bag fee back too", satisfied: true },
      ],
    },
  },
  calls: [
    { name: "get_reservation", arguments: { confirmation_number: "T3NW8B", last_name: "Adeyemi" } },
    {
      name: "cancel_reservation",
      arguments: {
        confirmation_number: "T3NW8B",
        journey_id: "FL_SK620_20260609",
        cancellation_reason: "voluntary",
      },
    },
    {
      name: "process_refund",
      arguments: { confirmation_number: "T3NW8B", refund_amount: 512.4, refund_type: "full_fare" },
    },
    {
      name: "process_refund",
      arguments: {
        confirmation_number: "T3NW8B",
        refund_amount: 40,
        refund_type: "ancillary_fees",
      },
    },
  ],
  check([, cancel, fare, bags], db) {
    assert.deepEqual(
      [cancel!.is_refundable, cancel!.cancellation_fee, cancel!.refund_amount_eligible],
      [true, 0, 512.4],
    );
    assert.equal(cancel!.reservation_status, "cancelled");
    assert.deepEqual([fare!.refund_id, bags!.refund_id], ["REF-T3NW8B-001", "REF-T3NW8B-002"]);
    assert.equal(Object.keys(db.refunds as Obj).length, 2);
  },
};

// ---------------------------------------------------------------------------
// 2.5.1: an airline cancellation, rebooked the same evening, with a meal voucher.

const IRROPS: FixtureScenario = {
  id: "2.5.1",
  currentDateTime: "2026-07-02 12:40 CST",
  world: {
    _current_date: "2026-07-02",
    reservations: {
      R9PL4M: {
        confirmation_number: "R9PL4M",
        status: "confirmed",
        fare_type: "non_refundable",
        booking_date: "2026-06-01T10:00:00-05:00",
        passengers: [passenger("PAX001", "Henrik", "Solberg", { seat_preference: "aisle" })],
        bookings: [{
          journey_id: "FL_SK230_20260702",
          fare_class: "main_cabin",
          fare_paid: 214,
          status: "confirmed",
          segments: [{
            flight_number: "SK230",
            date: "2026-07-02",
            fare_paid: 214,
            seat: "24C",
            bags_checked: 1,
            meal_request: null,
          }],
        }],
        ancillaries: { seat_selection_fee: 0, bags_fee: 35 },
      },
    },
    journeys: Object.fromEntries([
      journey("2026-07-02", {
        flight: "SK230",
        from: "ORD",
        to: "BOS",
        dep: "14:20",
        arr: "17:35",
        minutes: 135,
        fares: fares(179, 214, 349, 620),
        seats: seats(0, 0, 0, 0),
        status: "cancelled",
        extra: { cancellation_reason: "mechanical" },
      }),
      journey("2026-07-02", {
        flight: "SK234",
        from: "ORD",
        to: "BOS",
        dep: "17:05",
        arr: "20:15",
        minutes: 130,
        fares: fares(199, 259, 389, 660),
        seats: seats(2, 0, 1, 1),
      }),
      journey("2026-07-02", {
        flight: "SK236",
        from: "ORD",
        to: "BOS",
        dep: "19:40",
        arr: "22:55",
        minutes: 135,
        fares: fares(189, 249, 369, 640),
        seats: seats(4, 7, 2, 1),
      }),
    ]),
    disruptions: {
      "SK230_2026-07-02": {
        flight_number: "SK230",
        date: "2026-07-02",
        disruption_type: "cancellation",
        cause: "mechanical",
        is_airline_fault: true,
        original_departure: "14:20",
        rebooking_fee_waived: true,
        meal_voucher_eligible: true,
        hotel_voucher_eligible: false,
      },
    },
    travel_credits: {},
    meal_vouchers: {},
    refunds: {},
  },
  record: {
    user_goal: {
      high_level_user_goal:
        "Your afternoon flight from Chicago to Boston today was cancelled; you want the next flight that still gets you home tonight, at no cost, with an aisle seat, and a meal voucher for the wait.",
      starting_utterance: "My flight to Boston just got cancelled, what are my options?",
      decision_tree: {
        must_have_criteria: [
          "You are rebooked ORD to BOS today, arriving before midnight.",
          "You pay nothing for the rebooking.",
          "You get an aisle seat on the new flight.",
        ],
        nice_to_have_criteria: ["A meal voucher for the wait at the airport."],
        negotiation_behavior: [
          "Say you are at the airport and want to get home tonight.",
          "If told there is a fee, remind the agent that the airline cancelled the flight.",
          "Ask whether you get anything for the long wait.",
        ],
        resolution_condition:
          "The agent has rebooked you on a flight home tonight at no charge, with an aisle seat, and told you about the meal voucher.",
        failure_condition:
          "If nothing gets you home tonight, accept the first flight tomorrow morning and ask about a hotel.",
        escalation_behavior: "Ask for a supervisor only if the agent charges you for the change.",
        edge_cases: ["If offered a flight to a different Boston-area airport, decline."],
      },
      information_required: {
        confirmation_number: "R9PL4M",
        last_name: "Solberg",
        first_name_if_asked: "Henrik",
        phone_number_if_asked: "+1-555-0100",
        seat_preference: { first_choice: "aisle", second_choice: "window", third_choice: "middle" },
        original_travel_details: [{
          origin: "ORD",
          destination: "BOS",
          flight_date: "2026-07-02",
          departure_time: "14:20",
          status: "cancelled",
        }],
      },
    },
    user_config: {
      name: "Henrik Solberg",
      gender: "man",
      user_persona_id: 103,
      user_persona:
        "You are tired and a little short-tempered after a long day, but you stay polite if the agent is helpful.",
    },
    expected_flow:
      "Agent authenticates, checks the flight status and disruption, finds the evening flight with main cabin seats, rebooks as an airline cancellation at no cost, assigns an aisle seat and issues a same-day meal voucher.",
    scenario_context: {
      premise: "A mechanical cancellation strands a passenger for the afternoon.",
      user_priorities: [
        { rank: 1, priority: "Home tonight", satisfied: true },
        { rank: 2, priority: "No charge", satisfied: true },
        { rank: 3, priority: "Aisle seat", satisfied: true },
      ],
    },
  },
  calls: [
    { name: "get_reservation", arguments: { confirmation_number: "R9PL4M", last_name: "Solberg" } },
    { name: "get_flight_status", arguments: { flight_number: "SK230", flight_date: "2026-07-02" } },
    { name: "get_disruption_info", arguments: { flight_number: "SK230", date: "2026-07-02" } },
    {
      name: "search_rebooking_options",
      arguments: {
        origin: "ORD",
        destination: "BOS",
        date: "2026-07-02",
        passenger_count: 1,
        fare_class: "main_cabin",
      },
    },
    {
      name: "rebook_flight",
      arguments: {
        confirmation_number: "R9PL4M",
        journey_id: "FL_SK230_20260702",
        new_journey_id: "FL_SK236_20260702",
        rebooking_type: "irrops_cancellation",
        waive_change_fee: true,
      },
    },
    {
      name: "assign_seat",
      arguments: {
        confirmation_number: "R9PL4M",
        passenger_id: "PAX001",
        journey_id: "FL_SK236_20260702",
        seat_preference: "aisle",
      },
    },
    {
      name: "issue_meal_voucher",
      arguments: {
        confirmation_number: "R9PL4M",
        passenger_id: "PAX001",
        voucher_reason: "cancellation_wait_same_day",
      },
    },
  ],
  check([, status, , search, rebook, seat, voucher], db) {
    assert.equal((status!.journey as Obj).status, "cancelled");
    // SK234 has no main cabin seat; the cancelled SK230 is not offered.
    assert.deepEqual((search!.options as Obj[]).map((o) => o.journey_id), ["FL_SK236_20260702"]);
    assert.equal((rebook!.cost_summary as Obj).total_collected, 0);
    assert.equal(seat!.seat_assigned, "21C");
    assert.equal(voucher!.amount, 15);
    const booking = (db.reservations as Obj & { R9PL4M: { bookings: Obj[] } }).R9PL4M.bookings[1]!;
    assert.deepEqual([booking.fare_paid, (booking.segments as Obj[])[0]!.bags_checked], [214, 1]);
  },
};

// ---------------------------------------------------------------------------
// 7.5.1: a policy exception the agent cannot grant, transferred to a live agent.

const TRANSFER: FixtureScenario = {
  id: "7.5.1",
  currentDateTime: "2026-08-19 16:30 EST",
  world: {
    _current_date: "2026-08-19",
    reservations: {
      W2ZC6F: {
        confirmation_number: "W2ZC6F",
        status: "confirmed",
        fare_type: "non_refundable",
        booking_date: "2026-07-30T21:10:00-04:00",
        passengers: [passenger("PAX001", "Imogen", "Farrow")],
        bookings: [{
          journey_id: "FL_SK880_20260904",
          fare_class: "basic_economy",
          fare_paid: 96,
          status: "confirmed",
          segments: [{
            flight_number: "SK880",
            date: "2026-09-04",
            fare_paid: 96,
            seat: null,
            bags_checked: 0,
            meal_request: null,
          }],
        }],
        ancillaries: { seat_selection_fee: 0, bags_fee: 0 },
      },
    },
    journeys: Object.fromEntries([
      journey("2026-09-04", {
        flight: "SK880",
        from: "RDU",
        to: "MCO",
        dep: "06:50",
        arr: "08:40",
        minutes: 110,
        fares: fares(96, 158, 260, null),
        seats: seats(5, 12, 3, 0),
      }),
    ]),
    disruptions: {},
    travel_credits: {},
    meal_vouchers: {},
    refunds: {},
  },
  record: {
    user_goal: {
      high_level_user_goal:
        "You want your basic economy fare to Orlando refunded in cash because your doctor told you not to fly; you will accept nothing less and want to talk to a person.",
      starting_utterance:
        "Hi, I have to cancel my Orlando trip for medical reasons and I want a refund.",
      decision_tree: {
        must_have_criteria: ["A full cash refund of the $96 fare."],
        nice_to_have_criteria: [],
        negotiation_behavior: [
          "Explain that your doctor has told you not to fly.",
          "If offered a travel credit, refuse it and ask for a person who can make an exception.",
        ],
        resolution_condition:
          "The agent transfers you to a live agent who can review a medical exception.",
        failure_condition:
          "If the agent will not transfer you, say you will write in, and say goodbye.",
        escalation_behavior: "Ask for a live agent once a cash refund is refused.",
        edge_cases: ["Do not accept a credit or a date change."],
      },
      information_required: {
        confirmation_number: "W2ZC6F",
        last_name: "Farrow",
        original_travel_details: [{
          origin: "RDU",
          destination: "MCO",
          flight_date: "2026-09-04",
          departure_time: "06:50",
          status: "confirmed",
        }],
        seat_preference: { first_choice: "window", second_choice: "aisle", third_choice: "middle" },
      },
    },
    user_config: {
      name: "Imogen Farrow",
      gender: "woman",
      user_persona_id: 104,
      user_persona: "You are firm and brief, and you repeat your request until it is handled.",
    },
    expected_flow:
      "Agent authenticates, explains that a basic economy fare is not refundable and offers what policy allows, then transfers the caller to a live agent on request.",
    scenario_context: {
      premise: "A medical exception is beyond the voice agent's authority.",
      user_priorities: [{ rank: 1, priority: "Cash refund", satisfied: false }],
    },
  },
  calls: [
    { name: "get_reservation", arguments: { confirmation_number: "W2ZC6F", last_name: "Farrow" } },
    {
      name: "transfer_to_agent",
      arguments: {
        confirmation_number: "W2ZC6F",
        transfer_reason: "policy_exception_needed",
        issue_summary:
          "Caller asks for a cash refund of a non-refundable basic economy fare (RDU to MCO, September 4) for medical reasons; credit declined.",
      },
    },
  ],
  check([, transfer], db) {
    assert.equal(transfer!.transfer_id, "TRF-W2ZC6F-001");
    assert.deepEqual(Object.keys(db.refunds as Obj), []);
  },
};

const SCENARIOS = [VOLUNTARY, IRROPS, CANCELLATION, TRANSFER];

const AGENT_YAML = `id: fixture_airline_agent
name: SkyWay fixture agent
description: A short policy for callbench's bundled eva-style scenarios.
role: You are the phone agent of SkyWay Airlines, helping callers change, cancel and recover their trips.
instructions: |
  ## Before anything else

  Ask for the confirmation number and the last name of a passenger, and look the booking up.

  ## How to work

  1. Understand what the caller needs before proposing anything.
  2. Tell the caller every fee, fare difference and refund or credit before you act, and wait for a clear yes.
  3. After a rebooking, seats must be assigned again: ask which seat type the caller prefers.
  4. Finish by summing up what changed.

  ## Policy

  - Voluntary change to another day: $75 change fee plus any fare difference (no fee in business or first).
  - Same-day change: $75, or $199 in basic economy.
  - Flights the airline cancels or delays: rebook free of charge on the next suitable flight, and offer a meal voucher for a wait of more than two hours ($12), four hours ($15), a same-day cancellation ($15), or an overnight stay ($25).
  - Cancellations: a refundable fare is refunded in full to the original payment, fare and ancillary fees in separate refunds. A non-refundable fare becomes a travel credit minus a $100 fee.
  - Exceptions beyond this policy (for example medical refunds of non-refundable fares): offer a transfer to a live agent and transfer once the caller agrees.
`;

/** Every fixture file, by name, with its exact text. */
export function evaFixtureFiles(): Record<string, string> {
  const files: Record<string, string> = { "airline_agent.yaml": AGENT_YAML };
  const lines: string[] = [];
  for (const s of SCENARIOS) {
    const env = new Environment(domain, { db: s.world }, {
      today: s.world._current_date as string,
      seed: `fixture:${s.id}`,
    });
    const results = s.calls.map((c) => {
      const r = env.call("agent", c.name, c.arguments);
      assert.ok(r.ok, `${s.id} ${c.name}: ${JSON.stringify(r.result)}`);
      return r.result as Obj;
    });
    s.check(results, env.db);
    const first = s.calls[0]!.arguments;
    const expected = {
      ...env.db,
      session: {
        confirmation_number: first.confirmation_number,
        last_name: String(first.last_name).toLowerCase(),
      },
    };
    files[`${s.id}.json`] = fixtureJson(s.world);
    lines.push(JSON.stringify({
      id: s.id,
      current_date_time: s.currentDateTime,
      ...s.record,
      ground_truth: { expected_scenario_db: expected },
      gold_calls: s.calls,
    }));
  }
  files["eva_airline_dataset.jsonl"] = lines.join("\n") + "\n";
  return files;
}

if (import.meta.main) writeFixtures(FIXTURE_DIR, evaFixtureFiles());

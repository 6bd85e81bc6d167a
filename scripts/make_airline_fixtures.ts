/**
 * Writes the bundled tau2_airline fixtures (`fixtures/tau2_airline/`): a small
 * airline world of our own (six flights, three users, three reservations), four
 * tasks in the tau2 format and a short policy, so the `tau2_airline` suite runs
 * offline. Everything here is written for callbench; only the file formats are the
 * benchmark's (the world split by top-level key into `db/{flights,users,
 * reservations}.json`). Each task's reference actions are replayed with
 * callbench's own tools: every call must succeed, and the end state must differ
 * from the initial one exactly for the tasks that change something, so the
 * fixture cannot drift from the tools.
 *
 *   deno run --allow-read --allow-write=fixtures/tau2_airline --allow-env=NODE_ENV \
 *     scripts/make_airline_fixtures.ts            # write
 *   ... scripts/make_airline_fixtures.ts --check  # exit 1 if the files on disk differ
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { domain } from "../src/domains/tau2_airline/mod.ts";
import { TAU2_AIRLINE_TODAY } from "../src/scenario/tau2/suites.ts";
import { Environment } from "../src/env/environment.ts";
import type { Db } from "../src/domains/domain.ts";
import { fixtureJson, writeFixtures } from "./_fixtures.ts";

export const FIXTURE_DIR = fileURLToPath(new URL("../fixtures/tau2_airline/", import.meta.url));

type Obj = Record<string, unknown>;
type Cabins = [business: number, economy: number, basic_economy: number];

/** A flight date still open for booking: seats left and prices per cabin. */
function open(seats: Cabins, prices: Cabins): Obj {
  return {
    status: "available",
    available_seats: { basic_economy: seats[2], economy: seats[1], business: seats[0] },
    prices: { basic_economy: prices[2], economy: prices[1], business: prices[0] },
  };
}

/** A flight date that has flown. */
function landed(date: string, departure: string, arrival: string): Obj {
  return {
    status: "landed",
    actual_departure_time_est: `${date}T${departure}:00`,
    actual_arrival_time_est: `${date}T${arrival}:00`,
  };
}

function flight(
  number: string,
  origin: string,
  destination: string,
  departs: string,
  arrives: string,
  dates: Obj,
): [string, Obj] {
  return [number, {
    origin,
    destination,
    flight_number: number,
    scheduled_departure_time_est: `${departs}:00`,
    scheduled_arrival_time_est: `${arrives}:00`,
    dates,
  }];
}

const NORA = { first_name: "Nora", last_name: "Vance", dob: "1984-09-12" };
const OMAR = { first_name: "Omar", last_name: "Haddad", dob: "1979-11-04" };
const YARA = { first_name: "Yara", last_name: "Haddad", dob: "2012-03-30" };
const LENA = { first_name: "Lena", last_name: "Brandt", dob: "1992-06-27" };

const FLIGHTS: Obj = Object.fromEntries([
  flight("HAT610", "SEA", "DEN", "07:00", "10:30", {
    "2024-05-14": landed("2024-05-14", "07:04", "10:26"),
    "2024-05-20": open([6, 9, 4], [412, 164, 92]),
    "2024-05-22": open([3, 12, 7], [455, 171, 98]),
  }),
  flight("HAT611", "DEN", "SEA", "12:00", "13:45", {
    "2024-05-22": open([4, 8, 5], [398, 176, 101]),
    "2024-05-23": open([2, 11, 9], [420, 158, 95]),
  }),
  flight("HAT612", "DEN", "SEA", "18:30", "20:15", {
    "2024-05-22": open([1, 0, 3], [510, 149, 87]),
  }),
  flight("HAT720", "BOS", "ATL", "09:00", "11:40", {
    "2024-05-13": { status: "cancelled" },
    "2024-05-25": open([5, 14, 6], [389, 142, 84]),
  }),
  flight("HAT721", "ATL", "BOS", "16:00", "18:35", {
    "2024-05-29": open([7, 10, 8], [402, 151, 90]),
  }),
  flight("HAT830", "ORD", "BOS", "06:15", "09:30", {
    "2024-05-18": open([2, 6, 1], [377, 139, 88]),
  }),
]);

const USERS: Obj = {
  nora_vance_2201: {
    user_id: "nora_vance_2201",
    name: { first_name: NORA.first_name, last_name: NORA.last_name },
    address: {
      address1: "48 Alder Court",
      address2: "Apt 3",
      city: "Tacoma",
      country: "USA",
      state: "WA",
      zip: "98402",
    },
    email: "nora.vance@example.test",
    dob: NORA.dob,
    payment_methods: {
      credit_card_5520114: {
        source: "credit_card",
        id: "credit_card_5520114",
        brand: "visa",
        last_four: "3381",
      },
    },
    saved_passengers: [],
    membership: "gold",
    reservations: ["K7PQ2M"],
  },
  omar_haddad_3307: {
    user_id: "omar_haddad_3307",
    name: { first_name: OMAR.first_name, last_name: OMAR.last_name },
    address: {
      address1: "902 Quarry Street",
      address2: "",
      city: "Quincy",
      country: "USA",
      state: "MA",
      zip: "02169",
    },
    email: "omar.haddad@example.test",
    dob: OMAR.dob,
    payment_methods: {
      credit_card_6630271: {
        source: "credit_card",
        id: "credit_card_6630271",
        brand: "mastercard",
        last_four: "9024",
      },
      certificate_6630288: { source: "certificate", id: "certificate_6630288", amount: 100.0 },
    },
    saved_passengers: [YARA],
    membership: "silver",
    reservations: ["R4TX8B", "Z9MW3C"],
  },
  lena_brandt_4415: {
    user_id: "lena_brandt_4415",
    name: { first_name: LENA.first_name, last_name: LENA.last_name },
    address: {
      address1: "15 Prairie View Road",
      address2: "",
      city: "Aurora",
      country: "USA",
      state: "CO",
      zip: "80012",
    },
    email: "lena.brandt@example.test",
    dob: LENA.dob,
    payment_methods: {
      gift_card_7740356: { source: "gift_card", id: "gift_card_7740356", amount: 300.0 },
      credit_card_7740312: {
        source: "credit_card",
        id: "credit_card_7740312",
        brand: "visa",
        last_four: "5176",
      },
    },
    saved_passengers: [],
    membership: "regular",
    reservations: [],
  },
};

const leg = (number: string, origin: string, destination: string, date: string, price: number) => ({
  origin,
  destination,
  flight_number: number,
  date,
  price,
});

const RESERVATIONS: Obj = {
  K7PQ2M: {
    reservation_id: "K7PQ2M",
    user_id: "nora_vance_2201",
    origin: "SEA",
    destination: "DEN",
    flight_type: "one_way",
    cabin: "economy",
    flights: [leg("HAT610", "SEA", "DEN", "2024-05-20", 164)],
    passengers: [NORA],
    payment_history: [{ payment_id: "credit_card_5520114", amount: 164 }],
    created_at: "2024-05-14T18:30:00",
    total_baggages: 1,
    nonfree_baggages: 0,
    insurance: "no",
  },
  R4TX8B: {
    reservation_id: "R4TX8B",
    user_id: "omar_haddad_3307",
    origin: "BOS",
    destination: "ATL",
    flight_type: "round_trip",
    cabin: "economy",
    flights: [
      leg("HAT720", "BOS", "ATL", "2024-05-25", 142),
      leg("HAT721", "ATL", "BOS", "2024-05-29", 151),
    ],
    passengers: [OMAR, YARA],
    payment_history: [{ payment_id: "credit_card_6630271", amount: 586 }],
    created_at: "2024-05-03T09:12:00",
    total_baggages: 2,
    nonfree_baggages: 0,
    insurance: "no",
  },
  Z9MW3C: {
    reservation_id: "Z9MW3C",
    user_id: "omar_haddad_3307",
    origin: "ORD",
    destination: "BOS",
    flight_type: "one_way",
    cabin: "basic_economy",
    flights: [leg("HAT830", "ORD", "BOS", "2024-05-18", 88)],
    passengers: [OMAR],
    payment_history: [{ payment_id: "credit_card_6630271", amount: 88 }],
    created_at: "2024-05-02T14:05:00",
    total_baggages: 0,
    nonfree_baggages: 0,
    insurance: "no",
  },
};

/** The agent's records, split by top-level key as the benchmark ships them. */
const DB: Record<"flights" | "users" | "reservations", Obj> = {
  flights: FLIGHTS,
  users: USERS,
  reservations: RESERVATIONS,
};

/** A fixture task, before it is written in the tau2 format. */
export interface AirlineFixtureTask {
  id: string;
  persona: string;
  purpose: string;
  instructions: Obj;
  /** Reference calls, all on the agent's side: [name, arguments]. */
  actions: [string, Obj][];
  /** Whether the reference calls change the world (else the expected hash is the initial one). */
  writes: boolean;
}

export const TASKS: readonly AirlineFixtureTask[] = [
  {
    id: "0",
    persona: "calm_caller",
    purpose: "Cancel a reservation booked less than 24 hours ago: allowed, refunded in full.",
    instructions: {
      task_instructions:
        "Confirm the cancellation when the agent asks. You want the refund on your original card.",
      domain: "airline",
      reason_for_call:
        "Your plans changed and you want to cancel reservation K7PQ2M, which you booked yesterday evening.",
      known_info: "You are Nora Vance.\nYour user id is nora_vance_2201.",
      unknown_info: null,
    },
    actions: [
      ["get_user_details", { user_id: "nora_vance_2201" }],
      ["get_reservation_details", { reservation_id: "K7PQ2M" }],
      ["cancel_reservation", { reservation_id: "K7PQ2M" }],
    ],
    writes: true,
  },
  {
    id: "1",
    persona: "brief_caller",
    purpose: "Book a one-way economy flight for one passenger, paid with a gift card.",
    instructions: {
      task_instructions:
        "You want the midday flight, economy, one checked bag, no insurance. Pay with your gift card only.",
      domain: "airline",
      reason_for_call:
        "You want to book a one-way flight from Denver to Seattle on May 22 for yourself.",
      known_info: "You are Lena Brandt.\nYour user id is lena_brandt_4415.",
      unknown_info: "You do not know the flight numbers.",
    },
    actions: [
      ["get_user_details", { user_id: "lena_brandt_4415" }],
      ["search_direct_flight", { origin: "DEN", destination: "SEA", date: "2024-05-22" }],
      ["book_reservation", {
        user_id: "lena_brandt_4415",
        origin: "DEN",
        destination: "SEA",
        flight_type: "one_way",
        cabin: "economy",
        flights: [{ flight_number: "HAT611", date: "2024-05-22" }],
        passengers: [LENA],
        payment_methods: [{ payment_id: "gift_card_7740356", amount: 176 }],
        total_baggages: 1,
        nonfree_baggages: 0,
        insurance: "no",
      }],
    ],
    writes: true,
  },
  {
    id: "2",
    persona: "calm_caller",
    purpose: "Add checked bags to a two-passenger economy trip: four are free, one is paid.",
    instructions: {
      task_instructions:
        "You want five checked bags in total for you and your daughter. Pay any fee with your credit card.",
      domain: "airline",
      reason_for_call: "You want to add checked bags to your reservation R4TX8B to Atlanta.",
      known_info: "You are Omar Haddad.\nYour user id is omar_haddad_3307.",
      unknown_info: null,
    },
    actions: [
      ["get_user_details", { user_id: "omar_haddad_3307" }],
      ["get_reservation_details", { reservation_id: "R4TX8B" }],
      ["update_reservation_baggages", {
        reservation_id: "R4TX8B",
        total_baggages: 5,
        nonfree_baggages: 1,
        payment_id: "credit_card_6630271",
      }],
    ],
    writes: true,
  },
  {
    id: "3",
    persona: "brief_caller",
    purpose:
      "Cancel a basic economy reservation booked two weeks ago without insurance: refused, nothing changes.",
    instructions: {
      task_instructions:
        "If the agent says you cannot get a refund, say you do not want to cancel then, and end the call.",
      domain: "airline",
      reason_for_call:
        "You want to cancel reservation Z9MW3C from Chicago to Boston and get your money back.",
      known_info: "You are Omar Haddad.\nYour user id is omar_haddad_3307.",
      unknown_info: null,
    },
    actions: [
      ["get_user_details", { user_id: "omar_haddad_3307" }],
      ["get_reservation_details", { reservation_id: "Z9MW3C" }],
    ],
    writes: false,
  },
];

const POLICY = `# Airline agent policy (callbench fixture)

You are a phone agent for an airline. Today is ${TAU2_AIRLINE_TODAY} and the time is 15:00 EST.

- Identify the caller by their user id before looking at or changing anything.
- Before any change (booking, cancellation, bags, flights, passengers), say what will
  change and what it costs, and go ahead only after the caller says yes.
- Call one tool at a time; state only what the tools returned or the caller told you.
- Transfer to a human agent only when the request is outside this policy.

## Booking
- Ask for the trip (one way or round trip, origin, destination, dates), the cabin and
  every passenger's first name, last name and date of birth (at most five passengers).
- Pay with methods from the caller's profile: at most one gift card, at most one
  certificate and at most one credit card; the amounts must add up to the total.
- Travel insurance is $30 per passenger. Ask whether the caller wants it.

## Checked bags
Free bags per passenger:

| membership | basic economy | economy | business |
| --- | --- | --- | --- |
| regular | 0 | 1 | 2 |
| silver | 1 | 2 | 3 |
| gold | 2 | 3 | 4 |

Each bag over the allowance is $50, paid with a credit card or gift card from the
profile. Bags can be added to a reservation, never removed.

## Cancellation
A reservation can be cancelled with a full refund to the original payment methods when
it was booked within the last 24 hours, when the airline cancelled a flight, when the
cabin is business, or when the caller bought travel insurance. Otherwise it cannot be
cancelled by an agent; say so and offer nothing else. A trip already partly flown
cannot be cancelled.
`;

/** Replays a task's calls with callbench's tools; throws unless they all succeed. */
export function replayTask(task: AirlineFixtureTask): void {
  const env = new Environment(domain, { db: structuredClone(DB) as Db }, {
    today: TAU2_AIRLINE_TODAY,
    seed: "fixture",
  });
  const initial = env.hashes().db_sha256;
  for (const [name, args] of task.actions) {
    const r = env.call("agent", name, args);
    if (!r.ok) throw new Error(`task ${task.id}: ${name} failed: ${JSON.stringify(r.result)}`);
    if (!r.record) env.sync();
  }
  const changed = env.hashes().db_sha256 !== initial;
  if (changed !== task.writes) {
    throw new Error(`task ${task.id}: the world ${changed ? "changed" : "did not change"}`);
  }
}

/** Every fixture file, path under the fixture folder -> text. */
export function airlineFixtureFiles(): Record<string, string> {
  for (const t of TASKS) replayTask(t);
  const json = fixtureJson;
  const tasks = TASKS.map((t) => ({
    id: t.id,
    description: { purpose: t.purpose, relevant_policies: null, notes: null },
    user_scenario: { persona: null, instructions: t.instructions },
    initial_state: null,
    evaluation_criteria: {
      actions: t.actions.map(([name, args], i) => ({
        action_id: `${t.id}_${i}`,
        name,
        arguments: args,
        info: null,
      })),
      communicate_info: [],
      nl_assertions: null,
      reward_basis: ["DB"],
    },
    annotations: null,
  }));
  const ids = TASKS.map((t) => t.id);
  return {
    "db/flights.json": json(DB.flights),
    "db/users.json": json(DB.users),
    "db/reservations.json": json(DB.reservations),
    "tasks.json": json(tasks),
    "tasks_voice.json": json({
      base_seed: 23,
      configs: Object.fromEntries(
        TASKS.map((t) => [t.id, { configs: { control: { persona_name: t.persona } } }]),
      ),
    }),
    "split_tasks.json": json({ train: ["0", "2"], test: ["1", "3"], base: ids }),
    "policy.md": POLICY,
  };
}

if (import.meta.main) writeFixtures(FIXTURE_DIR, airlineFixtureFiles());

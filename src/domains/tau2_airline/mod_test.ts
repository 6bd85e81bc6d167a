import { deepEqual, equal } from "node:assert/strict";
import { z } from "zod";
import { domain } from "./mod.ts";
import { openAirline, RESERVATION } from "./_testing.ts";

Deno.test("tau2_airline has tau2's 14 tools plus end_conversation, class names as aliases", () => {
  equal(domain.id, "tau2_airline");
  deepEqual(domain.tools.map((t) => t.name), [
    "get_user_details",
    "get_reservation_details",
    "list_all_airports",
    "search_direct_flight",
    "search_onestop_flight",
    "get_flight_status",
    "book_reservation",
    "cancel_reservation",
    "send_certificate",
    "update_reservation_baggages",
    "update_reservation_flights",
    "update_reservation_passengers",
    "calculate",
    "transfer_to_human_agents",
    "end_conversation",
  ]);
  equal(
    domain.tools.find((t) => t.name === "book_reservation")?.aliases?.[0],
    "BookReservationTool",
  );
  for (const t of domain.tools) equal(t.side, "agent");
});

Deno.test("a tool answers to its reference class name", () => {
  const call = openAirline().call("agent", "CancelReservationTool", {
    reservation_id: RESERVATION,
  });
  equal(call.ok, true);
  equal(call.tool, "cancel_reservation");
});

Deno.test("unknown extra arguments fail validation with pydantic's details", () => {
  const call = openAirline().call("agent", "get_user_details", { user_id: "x", verbose: true });
  deepEqual(call.result, {
    status: "error",
    error_type: "validation_error",
    message: "Tool arguments failed validation.",
    details: [{
      field: "verbose",
      error: "Extra inputs are not permitted",
      type: "extra_forbidden",
    }],
  });
});

Deno.test("validation errors name each field as pydantic locates it", () => {
  const call = openAirline().call("agent", "book_reservation", {
    user_id: 7,
    origin: "JFK",
    destination: "LAX",
    flight_type: "return",
    cabin: "economy",
    flights: [{ flight_number: "HAT001" }],
    passengers: [5],
    payment_methods: [{ payment_id: "credit_card_1", amount: "lots" }, {
      payment_id: "x",
      amount: 1.5,
    }],
    total_baggages: 0,
    insurance: "no",
  });
  deepEqual((call.result as { details: unknown[] }).details, [
    { field: "user_id", error: "Input should be a valid string", type: "string_type" },
    { field: "flight_type", error: "Input should be 'round_trip' or 'one_way'", type: "enum" },
    { field: "flights.0.date", error: "Field required", type: "missing" },
    {
      field: "passengers.0",
      error: "Input should be a valid dictionary or instance of Passenger",
      type: "model_type",
    },
    {
      field: "payment_methods.0.amount",
      error: "Input should be a valid integer, unable to parse string as an integer",
      type: "int_parsing",
    },
    {
      field: "payment_methods.1.amount",
      error: "Input should be a valid integer, got a number with a fractional part",
      type: "int_from_float",
    },
    { field: "nonfree_baggages", error: "Field required", type: "missing" },
  ]);
});

Deno.test("an enum of three lists its values as pydantic does", () => {
  const call = openAirline().call("agent", "update_reservation_flights", {
    reservation_id: RESERVATION,
    cabin: "first",
    flights: [],
    payment_id: "credit_card_1",
  });
  deepEqual((call.result as { details: unknown[] }).details, [
    {
      field: "cabin",
      error: "Input should be 'business', 'economy' or 'basic_economy'",
      type: "enum",
    },
  ]);
});

Deno.test("arguments that are not an object fail as the tool's params model", () => {
  const call = openAirline().call("agent", "get_flight_status", "HAT001");
  deepEqual((call.result as { details: unknown[] }).details, [
    {
      field: "",
      error: "Input should be a valid dictionary or instance of GetFlightStatusParams",
      type: "model_type",
    },
  ]);
});

Deno.test("every database tool answers an empty world with db_not_initialized", () => {
  const env = openAirline({});
  for (
    const [name, args] of [
      ["get_user_details", { user_id: "a" }],
      ["search_direct_flight", { origin: "A", destination: "B", date: "2024-05-01" }],
      ["book_reservation", {
        user_id: "a",
        origin: "A",
        destination: "B",
        flight_type: "one_way",
        cabin: "economy",
        flights: [],
        passengers: [],
        payment_methods: [],
        total_baggages: 0,
        nonfree_baggages: 0,
        insurance: "no",
      }],
      ["cancel_reservation", { reservation_id: "A" }],
    ] as const
  ) {
    equal(
      (env.call("agent", name, args).result as { error_type: string }).error_type,
      "db_not_initialized",
      name,
    );
  }
  equal(env.call("agent", "calculate", { expression: "1 + 1" }).ok, true);
});

Deno.test("every tool's argument schema converts to JSON Schema for an LLM", () => {
  for (const tool of domain.tools) {
    const schema = z.toJSONSchema(tool.args) as { type: string; additionalProperties?: boolean };
    equal(schema.type, "object", tool.name);
    equal(schema.additionalProperties, false, tool.name);
  }
  const book = z.toJSONSchema(domain.tools.find((t) => t.name === "book_reservation")!.args) as {
    properties: Record<string, { type?: string }>;
  };
  equal(book.properties.total_baggages?.type, "integer");
});

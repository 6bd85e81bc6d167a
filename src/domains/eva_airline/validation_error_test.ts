import assert from "node:assert/strict";
import { callFails, testEnv } from "./_test_world.ts";

Deno.test("a missing code field quotes the whole argument object, as pydantic does", () => {
  const r = callFails(testEnv(), "get_reservation", { last_name: "O'Neil" });
  assert.deepEqual(r, {
    status: "error",
    error_type: "invalid_confirmation_number_format",
    message:
      `Invalid confirmation_number '{'last_name': "O'Neil"}': must be 6 alphanumeric characters`,
  });
});

Deno.test("the first failing field with an eva error type wins over earlier generic ones", () => {
  const r = callFails(testEnv(), "search_rebooking_options", {
    origin: "BOS",
    destination: "ORD",
    date: "2026-04-17",
    passenger_count: "many",
    fare_class: "steerage",
  });
  assert.equal(r.error_type, "invalid_fare_class");
  assert.equal(
    r.message,
    "Invalid fare_class 'steerage': Input should be 'basic_economy', 'main_cabin', 'premium_economy', 'business', 'first' or 'any'",
  );
});

Deno.test("a non-string code and an optional code are worded by pydantic's own message", () => {
  const env = testEnv();
  const args = {
    confirmation_number: "QX7R2M",
    journey_id: "FL_SK100_20260415",
    new_journey_id: "FL_SK102_20260417",
    rebooking_type: "voluntary",
    waive_change_fee: false,
  };
  // A required code field quotes its documentation whatever went wrong.
  assert.equal(
    callFails(env, "rebook_flight", { ...args, journey_id: 42 }).message,
    "Invalid journey_id '42': must be FL_<flight>_<YYYYMMDD> (e.g. FL_SK621_20260320)",
  );
  // An optional one has no documentation for pydantic to find.
  assert.equal(
    callFails(env, "rebook_flight", { ...args, flight_number: "S1" }).message,
    "Invalid flight_number 'S1': String should match pattern '^[A-Za-z]{2,3}\\d{1,4}$'",
  );
});

Deno.test("arguments that are not an object name no field", () => {
  const r = testEnv().call("agent", "get_reservation", ["QX7R2M"]);
  assert.equal(r.ok, false);
  assert.deepEqual((r.result as { error_type: string }).error_type, "invalid_parameter");
  assert.match(
    (r.result as { message: string }).message,
    /^Invalid or missing parameter 'parameter'/,
  );
});

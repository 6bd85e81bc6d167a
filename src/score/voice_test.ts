import { deepEqual as assertEquals } from "node:assert/strict";
import { isCodeShaped, knownIdentifiers, spelledRuns, turnFlags, voiceFlags } from "./voice.ts";

Deno.test("turnFlags() flags a code said in canonical form next to its spelling", () => {
  const known = new Set(["EPXYEK"]);
  const flags = turnFlags("Your code is EPXYEK, spelled E, P, X, Y, E, K.", 3, known);
  assertEquals(flags.length, 1);
  assertEquals(flags[0]!.kind, "identifier");
  assertEquals(flags[0]!.identifier, "EPXYEK");
  assertEquals(flags[0]!.spelled, true);
  assertEquals(flags[0]!.turn, 3);
  assertEquals(flags[0]!.text.includes("EPXYEK"), true);
});

Deno.test("turnFlags() flags a code said only in canonical form as unspelled", () => {
  const flags = turnFlags("You are on flight SK621 tomorrow.", 0);
  assertEquals(flags.map((f) => [f.identifier, f.spelled]), [["SK621", false]]);
});

Deno.test("turnFlags() leaves a code that is only spelled alone", () => {
  assertEquals(turnFlags("Your code is E, P, X, Y, E, K.", 0, new Set(["EPXYEK"])), []);
  assertEquals(turnFlags("That is flight S K six two one.", 0), []);
  assertEquals(turnFlags("Order hash W two three seven.", 0), []);
});

Deno.test("turnFlags() flags an internal journey id, canonical or spelled", () => {
  const canonical = turnFlags("I found FL_SK621_20260320 for you.", 1);
  assertEquals(canonical.map((f) => [f.kind, f.identifier]), [["journey_id", "FL_SK621_20260320"]]);
  const spelled = turnFlags("That is F L underscore S K 6 2 1.", 1);
  assertEquals(spelled.map((f) => [f.kind, f.identifier, f.spelled]), [[
    "journey_id",
    "FL_SK621",
    true,
  ]]);
});

Deno.test("turnFlags() does not flag ordinary words, times, ordinals or short codes", () => {
  assertEquals(turnFlags("See you at 3pm on the 3rd, via 5G or LTE. OK? USA!", 0), []);
  // Airport codes are flagged only when the trial's data carries them.
  assertEquals(turnFlags("You fly to JFK.", 0), []);
  assertEquals(turnFlags("You fly to JFK.", 0, new Set(["JFK"])).length, 1);
});

Deno.test("voiceFlags() checks agent turns only", () => {
  const flags = voiceFlags([
    { speaker: "user", text: "My code is EPXYEK." },
    { speaker: "agent", text: "Thanks, and your flight is HAT001." },
  ], new Set(["EPXYEK"]));
  assertEquals(flags.map((f) => [f.turn, f.identifier]), [[1, "HAT001"]]);
});

Deno.test("spelledRuns() reads letters, digits, digit words and symbol words", () => {
  assertEquals(spelledRuns("It's E, P, X, Y, E, K and then nothing"), ["EPXYEK"]);
  assertEquals(spelledRuns("S-K-6-2-1."), ["SK621"]);
  assertEquals(spelledRuns("m i a underscore l i 3 6 6 8"), ["MIA_LI3668"]);
  assertEquals(spelledRuns("I am here at noon"), []);
});

Deno.test("isCodeShaped() wants capitals and digits, four characters or more", () => {
  assertEquals(isCodeShaped("SK621"), true);
  assertEquals(isCodeShaped("#W2378156"), true);
  assertEquals(isCodeShaped("A320"), true);
  assertEquals(isCodeShaped("MP3"), false);
  assertEquals(isCodeShaped("EPXYEK"), false);
  assertEquals(isCodeShaped("sk621"), false);
});

Deno.test("knownIdentifiers() collects codes from tool arguments and results", () => {
  const ids = knownIdentifiers([
    { confirmation_number: "EPXYEK", last_name: "Lee" },
    { status: "success", flights: [{ flight_number: "SK621", origin: "JFK", cabin: "economy" }] },
    { user_id: "mia_li_3668", note: "Hello there" },
  ]);
  assertEquals([...ids].sort(), ["EPXYEK", "SK621", "mia_li_3668"]);
});

Deno.test("IATA airport codes are read whole, never flagged; confirmation codes and ids are", () => {
  const known = knownIdentifiers([
    { confirmation_number: "EPXYEK", ticket_number: "TKT55", reservation_id: "ZFA04Y" },
    { origin: "ORD", destination: "MIA", airport_code: "SFO", journey: { origin: "JFK" } },
    { code: "LAX" },
  ]);
  assertEquals([...known].sort(), ["EPXYEK", "TKT55", "ZFA04Y"]);
  const flagged = turnFlags(
    "From ORD to MIA via LAX and JFK, your code EPXYEK, reservation ZFA04Y.",
    0,
    known,
  ).map((f) => f.identifier);
  assertEquals(flagged, ["EPXYEK", "ZFA04Y"]);
});

Deno.test("turnFlags() matches known identifiers as whole tokens only", () => {
  const known = new Set(["SK621", "mia_li_3668"]);
  assertEquals(
    turnFlags("Journey FL_SK621_2026 is set.", 0, known).map((f) => [f.kind, f.identifier]),
    [["journey_id", "FL_SK621_2026"]],
  );
  assertEquals(turnFlags("Your user id is mia_li_3668.", 0, known).map((f) => f.identifier), [
    "mia_li_3668",
  ]);
  assertEquals(turnFlags("Ask for xmia_li_3668 or SK621x.", 0, known), []);
  // In the order they are said.
  assertEquals(
    turnFlags("First mia_li_3668, then HAT002.", 0, known).map((f) => f.identifier),
    ["mia_li_3668", "HAT002"],
  );
});

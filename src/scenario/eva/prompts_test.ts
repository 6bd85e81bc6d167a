import assert from "node:assert/strict";
import { EvaRecordSchema } from "./record.ts";
import { evaDescription, evaKnownInfo, evaUserPrompt, spellOut } from "./prompts.ts";

const RECORD = EvaRecordSchema.parse({
  id: "9.1.1",
  user_goal: {
    high_level_user_goal: "You want a later flight. You also want an aisle seat.",
    starting_utterance: "Hi there.",
    decision_tree: {
      must_have_criteria: ["Leave after 5 PM."],
      negotiation_behavior: ["Ask for the price first."],
      failure_condition: "Keep the old flight.",
      edge_cases: ["Decline standby."],
    },
    information_required: {
      "Booking confirmation number": "AB12CD",
      passenger_last_name: "Nakamura",
      phone_number_if_asked: "+1-555-0199",
      "Email address (if requested for confirmation)": "k@example.org",
      max_total_additional_cost_usd: 80,
      seat_preference: { first_choice: "aisle", second_choice: "window" },
      original_travel_details: [
        { origin: "SFO", destination: "LAX", flight_date: "2026-01-02", status: "confirmed" },
      ],
      empty: null,
    },
  },
  user_config: { name: "Kei Nakamura", user_persona: "Patient and polite." },
  ground_truth: { expected_scenario_db: {} },
});

Deno.test("spellOut says a code one character at a time, digits as words", () => {
  assert.equal(spellOut("AB12cd"), "A, B, one, two, C, D");
  assert.equal(spellOut("FL_9"), "F, L, underscore, nine");
});

Deno.test("evaKnownInfo gives identity facts one label whatever the record calls them", () => {
  assert.deepEqual(evaKnownInfo(RECORD), {
    name: "Kei Nakamura",
    "confirmation number": "AB12CD",
    "last name": "Nakamura",
    "phone number": "+1-555-0199",
    email: "k@example.org",
    "max total additional cost usd": "80",
    "seat preference": "aisle, then window",
    "original travel details": "SFO to LAX on 2026-01-02, confirmed",
  });
});

Deno.test("the eva caller prompt holds persona, goal, steps, decision tree and facts", () => {
  const prompt = evaUserPrompt(RECORD, evaKnownInfo(RECORD));
  const sections = prompt.split("\n\n# ");
  assert.equal(sections.length, 4);
  assert.match(sections[0]!, /Your name is Kei Nakamura\.\nPatient and polite\./);
  assert.equal(
    sections[1],
    "Task\n\nYour goal is to: You want a later flight. You also want an aisle seat.",
  );
  assert.match(sections[2]!, /Step 1: Open the call by saying: "Hi there\."/);
  for (
    const line of [
      "- Must-have: Leave after 5 PM.",
      "- When negotiating: Ask for the price first.",
      "- Failure path: Keep the old flight.",
      "- Edge case: Decline standby.",
      "- Your confirmation number is AB12CD; say it as: A, B, one, two, C, D.",
    ]
  ) {
    assert.ok(sections[2]!.includes(line), line);
  }
  assert.match(
    sections[3]!,
    /### Things you know\n\n- name: Kei Nakamura\n- confirmation number: AB12CD/,
  );
  assert.equal(evaDescription(RECORD), "You want a later flight.");
});

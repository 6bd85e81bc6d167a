import assert from "node:assert/strict";
import {
  fillPlaceholders,
  goldSteps,
  placeholderValues,
  templatePattern,
  TraceRecordSchema,
} from "./gold_trace.ts";

const RECORD = TraceRecordSchema.parse({
  id: "9.1.1",
  ground_truth: {
    expected_trace: {
      trace: [
        { event_type: "user_utterance", utterance: "hello" },
        {
          event_type: "tool_call",
          tool_name: "get_reservation",
          params: { confirmation_number: "AB12CD", last_name: "<LAST_NAME>" },
        },
        {
          event_type: "tool_response",
          tool_name: "get_reservation",
          status: "success",
          response: { email: "<FIRST_NAME_ROMANIZED>.<LAST_NAME_ROMANIZED>@example.org" },
        },
        {
          event_type: "tool_call",
          tool_name: "transfer_to_agent",
          params: { confirmation_number: "AB12CD" },
        },
      ],
    },
  },
  culture_overrides: { en: { first_name: "Zoë", last_name: "Ånström", phone: "+1-555-0100" } },
  romanized_culture_overrides: { en: { first_name: "Zoe", last_name: "Anstrom" } },
});

Deno.test("goldSteps pairs each tool call with its response and fills the placeholders", () => {
  const steps = goldSteps(RECORD);
  assert.deepEqual(steps.map((s) => [s.name, s.arguments]), [
    ["get_reservation", { confirmation_number: "AB12CD", last_name: "Ånström" }],
    ["transfer_to_agent", { confirmation_number: "AB12CD" }],
  ]);
  assert.deepEqual(steps[0]!.response, { email: "Zoe.Anstrom@example.org" });
  assert.deepEqual(steps[0]!.rawResponse, {
    email: "<FIRST_NAME_ROMANIZED>.<LAST_NAME_ROMANIZED>@example.org",
  });
  assert.equal(steps[1]!.response, undefined);
});

Deno.test("placeholders fall back to the plain names when no romanised ones are given", () => {
  const values = placeholderValues({ ...RECORD, romanized_culture_overrides: undefined });
  assert.equal(values.LAST_NAME_ROMANIZED, "Ånström");
  assert.equal(fillPlaceholders("<PHONE> <UNKNOWN>", values), "+1-555-0100 <UNKNOWN>");
});

Deno.test("templatePattern matches what a templated string stands for, in any case", () => {
  const re = templatePattern("<FIRST_NAME_ROMANIZED>.<LAST_NAME_ROMANIZED>@example.com");
  assert.ok(re.test("samantha.rodriguez@example.com"));
  assert.ok(!re.test("samantha.rodriguez@example.org"));
  assert.ok(!re.test("@example.com"));
});

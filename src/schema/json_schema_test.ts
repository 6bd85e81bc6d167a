import assert from "node:assert/strict";
import { z } from "zod";
import { END_CALL_TOOL } from "../participants/llm_user.ts";
import { SEND_DTMF_TOOL } from "../bridge/tool_specs.ts";
import { argumentsJsonSchema, NO_ARGUMENTS } from "./json_schema.ts";

// What agents saw when these schemas were written by hand: the generated ones must
// read the same, to the byte (key order included), so prompts and wire frames stay.
const SEND_DTMF_BEFORE = JSON.stringify({
  type: "object",
  properties: {
    keys: { type: "string", pattern: "^[0-9*#A-D]+$", description: "Keys to press, in order" },
  },
  required: ["keys"],
  additionalProperties: false,
});
const END_CALL_BEFORE = JSON.stringify({
  type: "object",
  properties: {},
  additionalProperties: false,
});
const NO_PARAMETERS_BEFORE = JSON.stringify({ type: "object", properties: {} });

Deno.test("send_dtmf and end_call schemas made from zod read as the hand-written ones did", () => {
  assert.equal(JSON.stringify(SEND_DTMF_TOOL.parameters), SEND_DTMF_BEFORE);
  assert.equal(JSON.stringify(END_CALL_TOOL.parameters), END_CALL_BEFORE);
  assert.equal(JSON.stringify(argumentsJsonSchema(NO_ARGUMENTS)), NO_PARAMETERS_BEFORE);
});

Deno.test("argumentsJsonSchema drops $schema, reads the input side and caches per schema", () => {
  const args = z.object({ n: z.number().default(1) });
  const a = argumentsJsonSchema(args);
  assert.equal("$schema" in a, false);
  assert.deepEqual(a.required, undefined);
  assert.equal(argumentsJsonSchema(args), a);
});

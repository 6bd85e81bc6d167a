import assert from "node:assert/strict";
import { z } from "zod";
import { laxFloat, laxInt } from "./lax_numbers.ts";
import { tau2ValidationError, validationDetails } from "./validation_error.ts";

const Args = z.object({
  name: z.string(),
  gb: laxFloat(),
  limit: laxInt().default(12),
  settings: z.record(z.string(), z.unknown()).optional(),
  on: z.boolean().optional(),
}).strict();

function details(args: unknown) {
  const parsed = Args.safeParse(args);
  assert.equal(parsed.success, false);
  return validationDetails(parsed.error!, args);
}

Deno.test("tau2ValidationError() has the reference's envelope", () => {
  const parsed = Args.safeParse({});
  assert.deepEqual(tau2ValidationError(parsed.error!, {}), {
    status: "error",
    error_type: "validation_error",
    message: "Tool arguments failed validation.",
    details: [
      { field: "name", error: "Field required", type: "missing" },
      { field: "gb", error: "Field required", type: "missing" },
    ],
  });
});

Deno.test("validationDetails() names wrong types as pydantic does", () => {
  assert.deepEqual(details({ name: 5, gb: "lots", limit: 2.5, settings: [], on: "yes" }), [
    { field: "name", error: "Input should be a valid string", type: "string_type" },
    {
      field: "gb",
      error: "Input should be a valid number, unable to parse string as a number",
      type: "float_parsing",
    },
    {
      field: "limit",
      error: "Input should be a valid integer, got a number with a fractional part",
      type: "int_from_float",
    },
    { field: "settings", error: "Input should be a valid dictionary", type: "dict_type" },
    { field: "on", error: "Input should be a valid boolean", type: "bool_type" },
  ]);
  assert.deepEqual(details({ name: null, gb: true, limit: "x" }), [
    { field: "name", error: "Input should be a valid string", type: "string_type" },
    { field: "gb", error: "Input should be a valid number", type: "float_type" },
    {
      field: "limit",
      error: "Input should be a valid integer, unable to parse string as an integer",
      type: "int_parsing",
    },
  ]);
});

Deno.test("validationDetails() lists each unknown argument, and a non-object input", () => {
  assert.deepEqual(details({ name: "a", gb: 1, x: 1, y: 2 }), [
    { field: "x", error: "Extra inputs are not permitted", type: "extra_forbidden" },
    { field: "y", error: "Extra inputs are not permitted", type: "extra_forbidden" },
  ]);
  assert.deepEqual(details([1]), [
    { field: "", error: "Input should be a valid dictionary or object", type: "model_type" },
  ]);
});

Deno.test("lax numbers accept numeric strings, as pydantic's lax mode", () => {
  assert.deepEqual(Args.parse({ name: "a", gb: " 2.5 ", limit: "3" }), {
    name: "a",
    gb: 2.5,
    limit: 3,
  });
  assert.equal(Args.parse({ name: "a", gb: 2, limit: 4.0 }).limit, 4);
  assert.equal(Args.safeParse({ name: "a", gb: "" }).success, false);
});

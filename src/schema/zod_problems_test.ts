import assert from "node:assert/strict";
import { z } from "zod";
import { knownKeys, suggestName, zodProblems } from "./zod_problems.ts";

const Schema = z.strictObject({
  name: z.string(),
  side: z.enum(["agent", "user"]),
  limit: z.number().optional(),
  tools: z.array(
    z.union([z.strictObject({ tool: z.string() }), z.strictObject({ fn: z.string() })]),
  )
    .optional(),
  note: z.string().nullable().optional(),
});

function problems(value: unknown, named = false) {
  const r = Schema.safeParse(value);
  assert.equal(r.success, false);
  return zodProblems(r.error!, value, Schema, { namedFields: named, listKnown: named });
}

Deno.test("zodProblems words each kind of issue, with the field and a hint", () => {
  assert.deepEqual(problems({ side: "agnt", limit: "long", nmae: "x" }), [
    { path: ["name"], key: false, field: "name", message: "missing field" },
    {
      path: ["side"],
      key: false,
      field: "side",
      message: 'must be one of "agent", "user"',
      hint: 'did you mean "agent"?',
    },
    {
      path: ["limit"],
      key: false,
      field: "limit",
      message: 'expected a number, got string "long"',
    },
    {
      path: ["nmae"],
      key: true,
      field: "nmae",
      message: 'unknown field "nmae"',
      hint: 'did you mean "name"?',
    },
  ]);
});

Deno.test("zodProblems in the named wording lists known names when none is close", () => {
  const got = problems({ side: "user", zzzzzz: 1 }, true);
  assert.deepEqual(got.map((p) => [p.field, p.message, p.hint]), [
    ["name", 'missing field "name"', undefined],
    ["zzzzzz", 'unknown field "zzzzzz"', "known: name, side, limit, tools, note"],
  ]);
});

Deno.test("known keys reach through arrays, optionals and unions", () => {
  assert.deepEqual(knownKeys(Schema, ["tools", 0]), ["tool", "fn"]);
  assert.deepEqual(knownKeys(Schema, ["name"]), []);
  assert.equal(suggestName("lmt", ["limit", "name"]), "limit");
});

import assert from "node:assert/strict";
import { typeOf, typeScriptModule } from "./typescript.ts";

Deno.test("typeOf() writes zod's JSON Schema subset as TypeScript", () => {
  assert.equal(typeOf({ type: "string" }, ""), "string");
  assert.equal(typeOf({ type: "integer" }, ""), "number");
  assert.equal(typeOf({ type: ["string", "null"] }, ""), "string | null");
  assert.equal(typeOf({ enum: ["a", "b"] }, ""), '"a" | "b"');
  assert.equal(typeOf({ const: null }, ""), "null");
  assert.equal(typeOf({ anyOf: [{ type: "number" }, { type: "null" }] }, ""), "number | null");
  assert.equal(typeOf({ type: "array", items: { enum: ["x", "y"] } }, ""), '("x" | "y")[]');
  assert.equal(
    typeOf({ type: "array", prefixItems: [{ type: "string" }, { type: "number" }] }, ""),
    "[string, number]",
  );
  assert.equal(typeOf({}, ""), "unknown");
});

Deno.test("typeOf() writes objects: required and optional keys, docs, open objects and records", () => {
  const object = {
    type: "object",
    properties: { a: { type: "string", description: "the a" }, "b-c": { type: "number" } },
    required: ["a"],
    additionalProperties: {},
  };
  assert.equal(
    typeOf(object, ""),
    '{\n  /** the a */\n  a: string;\n  "b-c"?: number;\n  [key: string]: unknown;\n}',
  );
  assert.equal(
    typeOf({ type: "object", additionalProperties: { type: "number" } }, ""),
    "{\n  [key: string]: number;\n}",
  );
  const keys = { type: "string", enum: ["x", "y"] };
  assert.equal(
    typeOf({ type: "object", propertyNames: keys, additionalProperties: { type: "number" } }, ""),
    '{ [K in "x" | "y"]?: number }',
  );
  assert.equal(
    typeOf({
      type: "object",
      propertyNames: keys,
      additionalProperties: { type: "number" },
      required: ["x", "y"],
    }, ""),
    '{ [K in "x" | "y"]: number }',
  );
  assert.equal(
    typeOf({ type: "object", properties: {}, additionalProperties: false }, ""),
    "Record<string, never>",
  );
});

Deno.test("typeScriptModule() declares each type with its doc after the header", () => {
  const text = typeScriptModule("// header", [{
    name: "T",
    doc: "A t.",
    schema: { type: "boolean" },
  }]);
  assert.equal(text, "// header\n\n/** A t. */\nexport type T = boolean;\n");
});

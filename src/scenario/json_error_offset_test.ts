import assert from "node:assert/strict";
import { jsonErrorOffset } from "./json_error_offset.ts";

Deno.test("jsonErrorOffset agrees with JSON.parse on valid and invalid texts", () => {
  const texts = [
    '{"a": [1, -2.5e3, true, false, null, "x\\u00e9\\n"], "b": {}}',
    "[]",
    " 0 ",
    '{"a": 1,}',
    "[1 2]",
    '{"a" 1}',
    '"\\x"',
    "01",
    "[1,",
    "",
    "nul",
  ];
  for (const t of texts) {
    let valid = true;
    try {
      JSON.parse(t);
    } catch {
      valid = false;
    }
    assert.equal(jsonErrorOffset(t) === undefined, valid, t);
  }
  assert.equal(jsonErrorOffset('{"a": 1,}'), 8);
});

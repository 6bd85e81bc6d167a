import assert from "node:assert/strict";
import { jsonErrorOffset, locateJsonError } from "./json_error.ts";

Deno.test("locateJsonError accepts valid JSON", () => {
  for (const t of ['{"a":[1,2.5e-3,"x\\u00e9",true,false,null]}', " 1 ", '""', "[]"]) {
    assert.equal(locateJsonError(t), undefined, t);
  }
});

Deno.test("locateJsonError points at the first offending character", () => {
  assert.deepEqual(locateJsonError('{\n  "a": 1,\n  "b": }'), {
    line: 3,
    column: 8,
    message: 'unexpected "}"',
  });
  assert.deepEqual(locateJsonError("[1, 2"), {
    line: 1,
    column: 6,
    message: 'expected "," or "]", found end of input',
  });
  assert.equal(locateJsonError('{"a" 1}')?.message, 'expected ":", found "1"');
  assert.equal(locateJsonError('{"a":1} x')?.message, 'unexpected "x" after the value');
  assert.equal(locateJsonError('"abc')?.message, "unterminated string");
  assert.equal(locateJsonError("[01]")?.message, 'expected "," or "]", found "1"');
});

Deno.test("jsonErrorOffset agrees with JSON.parse on what is valid", () => {
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
    "-",
    "1.",
    '"\t"',
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
  assert.equal(jsonErrorOffset('{"a": 1,}')?.offset, 8);
});

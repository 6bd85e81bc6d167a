import assert from "node:assert/strict";
import { parsePythonJson } from "./python_json.ts";
import { PyInt, pyJsonDumps } from "./python_format.ts";

Deno.test("bad JSON arguments: Python's JSONDecodeError texts, position included", () => {
  // Each as Python 3.11's json.loads words it.
  const cases: [string, string][] = [
    ['{"a":1,}', "Expecting property name enclosed in double quotes: line 1 column 8 (char 7)"],
    ["[1,]", "Expecting value: line 1 column 4 (char 3)"],
    ["", "Expecting value: line 1 column 1 (char 0)"],
    ["{a:1}", "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"],
    ['{"a" 1}', "Expecting ':' delimiter: line 1 column 6 (char 5)"],
    ["[1 2]", "Expecting ',' delimiter: line 1 column 4 (char 3)"],
    ['"abc', "Unterminated string starting at: line 1 column 1 (char 0)"],
    ['{"a":1} x', "Extra data: line 1 column 9 (char 8)"],
    ['"a\\q"', "Invalid \\escape: line 1 column 3 (char 2)"],
    ['"\\u12"', "Invalid \\uXXXX escape: line 1 column 3 (char 2)"],
    ['{"a":"\n"}', "Invalid control character at: line 1 column 7 (char 6)"],
    ['{\n  "a": }', "Expecting value: line 2 column 8 (char 9)"],
  ];
  for (const [text, error] of cases) {
    assert.deepEqual(parsePythonJson(text, true), { ok: false, error }, JSON.stringify(text));
  }
});

Deno.test("numbers: all floats with parse_int=float, else integer literals stay ints", () => {
  const floats = parsePythonJson('{"a": 5, "b": 5.0}', true);
  assert.ok(floats.ok);
  assert.equal(pyJsonDumps(floats.value), '{"a": 5.0, "b": 5.0}');
  const kept = parsePythonJson('{"a": 5, "b": 5.0, "c": [1e2]}', false);
  assert.ok(kept.ok);
  assert.ok((kept.value as Record<string, unknown>).a instanceof PyInt);
  assert.equal(
    pyJsonDumps(kept.value, { indent: 2 }),
    '{\n  "a": 5,\n  "b": 5.0,\n  "c": [\n    100.0\n  ]\n}',
  );
});

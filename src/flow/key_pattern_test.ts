import assert from "node:assert/strict";
import { compileKeyPattern, isSingleKeyPattern, keyPatternProblem } from "./key_pattern.ts";

Deno.test("isSingleKeyPattern accepts one atom only", () => {
  for (const p of ["1", "#", "\\*", "\\#", "[0-9*#]", "[^1]", "\\d", ".", "A"]) {
    assert.equal(isSingleKeyPattern(p), true, p);
  }
  for (const p of ["12", "\\d{16}", "[0-9]+", "1|2", "[0-9][0-9]", "(1)", "0*"]) {
    assert.equal(isSingleKeyPattern(p), false, p);
  }
});

Deno.test("compileKeyPattern anchors the pattern at both ends", () => {
  assert.equal(compileKeyPattern("1").test("12"), false);
  assert.equal(compileKeyPattern("1|2").test("2"), true);
  assert.equal(compileKeyPattern("1|2").test("12"), false);
  assert.equal(compileKeyPattern("\\d{4}").test("0042"), true);
});

Deno.test("keyPatternProblem rejects empty, invalid and non-key patterns", () => {
  assert.equal(keyPatternProblem("[0-9*#]"), undefined);
  assert.equal(keyPatternProblem("(?:12|34)\\*?"), undefined);
  assert.equal(keyPatternProblem("[A-D]{2,3}"), undefined);
  assert.equal(keyPatternProblem(""), "is empty");
  assert.match(keyPatternProblem("*")!, /not a valid regular expression.*\\\*/);
  assert.match(keyPatternProblem("[0-9")!, /not a valid regular expression/);
  assert.match(keyPatternProblem("yes")!, /"y", which is not a key/);
  assert.match(keyPatternProblem("\\w+")!, /"\\\\w", which is not a key/);
  assert.match(keyPatternProblem("[a-z]")!, /"a", which is not a key/);
  assert.match(keyPatternProblem("(?=1)1")!, /not a key/);
});

Deno.test("key patterns: the key alphabet comes from src/dtmf/keys.ts, spelled nowhere here", async () => {
  const source = await Deno.readTextFile(new URL("./key_pattern.ts", import.meta.url));
  // Code only: the module doc may describe the alphabet.
  const code = source.replace(/\/\*\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, "");
  for (const spelled of ["0-9", "A-D", "0123456789", "ABCD"]) {
    assert.equal(code.includes(spelled), false, `key_pattern.ts spells ${spelled}`);
  }
  assert.match(code, /from "\.\.\/dtmf\/keys\.ts"/);
});

import assert from "node:assert/strict";
import { grepRank } from "./grep.ts";

const DOCS = ["fee fee charge", "Fee", "no match here", "charge"];

Deno.test("grep ranks by match count, case-insensitive, equal counts in document order", () => {
  assert.deepEqual(grepRank(DOCS, "fee|charge", 10), [
    { index: 0, count: 3 },
    { index: 1, count: 1 },
    { index: 3, count: 1 },
  ]);
  assert.deepEqual(grepRank(DOCS, "fee", 1), [{ index: 0, count: 2 }]);
  assert.deepEqual(grepRank(DOCS, "Fee", 10, true), [{ index: 1, count: 1 }]);
});

Deno.test("grep: a pattern that does not compile is searched literally; a blank one finds nothing", () => {
  assert.deepEqual(grepRank(["a (b", "(b (b"], "(b", 10), [
    { index: 1, count: 2 },
    { index: 0, count: 1 },
  ]);
  assert.deepEqual(grepRank(DOCS, "  ", 10), []);
  // Python's named groups work as they do there.
  assert.deepEqual(grepRank(["abab"], "(?P<x>ab)(?P=x)", 10), [{ index: 0, count: 1 }]);
});

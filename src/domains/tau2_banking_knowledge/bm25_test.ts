import assert from "node:assert/strict";
import { Bm25Okapi, tokenize } from "./bm25.ts";

// Scores of the rank_bm25 package's BM25Okapi on this corpus (computed once with it).
const CORPUS = ["the cat sat on the mat", "the dog ate the cat food", "a bird", "the the the end"];

Deno.test("BM25 scores as rank_bm25's BM25Okapi, to the last bit (idf floor for common terms included)", () => {
  const bm25 = new Bm25Okapi(CORPUS.map(tokenize));
  const scores = (q: string) => [...bm25.scores(q.split(" "))];
  assert.deepEqual(scores("the cat"), [
    0.19877955668907998,
    0.19877955668907998,
    0,
    0.2640928396012063,
  ]);
  assert.deepEqual(scores("bird food"), [0, 0.7367807481627858, 1.1297304805162716, 0]);
  assert.deepEqual(scores("end"), [0, 0, 0, 0.8918924846181091]);
  assert.deepEqual(scores("zebra"), [0, 0, 0, 0]);
});

Deno.test("tokens are Python's lower().split(): every Unicode space separates", () => {
  assert.deepEqual(tokenize("Fee\u00a0CHARGE\x1cx\u3000y \t\n"), ["fee", "charge", "x", "y"]);
});

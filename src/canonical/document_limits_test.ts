import { equal, match } from "node:assert/strict";
import { documentProblem, MAX_DOCUMENT_DEPTH } from "./document_limits.ts";

function nested(depth: number): string {
  return "[".repeat(depth) + "]".repeat(depth);
}

Deno.test("document limits: depth up to Python's recursion limit is accepted, deeper refused without overflow", () => {
  const ok = nested(MAX_DOCUMENT_DEPTH);
  equal(documentProblem(JSON.parse(ok), ok), undefined);
  const deep = nested(100_000);
  match(documentProblem(JSON.parse(deep), deep)!, /nested deeper than 1000 levels/);
});

Deno.test("document limits: integers past 2^53 are refused, safe ones and floats are not", () => {
  for (const text of ['{"a": 9007199254740991}', '{"a": 12345678901234567890.0}', '{"a": 1e30}']) {
    equal(documentProblem(JSON.parse(text), text), undefined, text);
  }
  // Long digit runs inside strings are not numbers.
  const s = '{"id": "12345678901234567890"}';
  equal(documentProblem(JSON.parse(s), s), undefined);
  const big = '{"users": {"u": {"balance": 12345678901234567890}}}';
  match(
    documentProblem(JSON.parse(big), big)!,
    /the integer 12345678901234567890 \(key "balance"\) is beyond 2\^53/,
  );
  const neg = "[-9007199254740993]";
  match(documentProblem(JSON.parse(neg), neg)!, /-9007199254740993/);
});

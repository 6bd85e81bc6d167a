import assert from "node:assert/strict";
import { deepFreeze, freezeWithin } from "./deep_freeze.ts";

Deno.test("deepFreeze freezes every level, at any depth, without recursion", () => {
  const doc = { a: [{ b: { c: 1 } }], d: "x" };
  deepFreeze(doc);
  assert.ok(Object.isFrozen(doc) && Object.isFrozen(doc.a) && Object.isFrozen(doc.a[0]!.b));
  let deep: unknown[] = [];
  const top = deep;
  for (let i = 0; i < 100_000; i++) deep = (deep[0] = []) as unknown[];
  deepFreeze(top);
  assert.ok(Object.isFrozen(deep));
});

Deno.test("freezeWithin says whether a document is within a depth", () => {
  assert.equal(freezeWithin([[[]]], 3), true);
  assert.equal(freezeWithin([[[]]], 2), false);
  assert.equal(freezeWithin(5, 0), true);
});

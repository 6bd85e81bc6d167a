import assert from "node:assert/strict";
import { checkValueLimits, MAX_VALUE_DEPTH } from "./limits.ts";

/** `[[[…]]]` nested `depth` levels, built without recursion. */
function nested(depth: number): unknown {
  let v: unknown = [];
  for (let i = 1; i < depth; i++) v = [v];
  return v;
}

Deno.test("checkValueLimits accepts 64 levels and refuses 65, naming where", () => {
  assert.equal(checkValueLimits(nested(MAX_VALUE_DEPTH)), undefined);
  assert.equal(checkValueLimits({ a: "x", b: [1, true, null] }), undefined);
  assert.equal(
    checkValueLimits(nested(MAX_VALUE_DEPTH + 1)),
    "nested deeper than 64 levels at [0][0][0][0][0][0]…",
  );
  assert.equal(
    checkValueLimits({ data: { arguments: { a: nested(80) } } }, { maxDepth: 10 }),
    "nested deeper than 10 levels at data.arguments.a[0][0][0]…",
  );
});

Deno.test("checkValueLimits refuses a 450k-deep value at once, without recursion", () => {
  const deep = JSON.parse("[".repeat(450_000) + "]".repeat(450_000));
  assert.match(
    checkValueLimits({ arguments: deep })!,
    /^nested deeper than 64 levels at arguments/,
  );
});

Deno.test("checkValueLimits bounds the size, cycles included", () => {
  assert.equal(checkValueLimits({ s: "x".repeat(90) }, { maxBytes: 100 }), undefined);
  assert.equal(
    checkValueLimits({ s: "x".repeat(100) }, { maxBytes: 100 }),
    "larger than 100 bytes at s",
  );
  assert.match(checkValueLimits(new Array(200).fill(0), { maxBytes: 100 })!, /larger than 100/);
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  assert.match(checkValueLimits(cyclic, { maxDepth: 1e9 })!, /^larger than 1048576 bytes/);
  assert.match(checkValueLimits(cyclic)!, /^nested deeper than 64 levels/);
});

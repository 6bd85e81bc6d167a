import assert from "node:assert/strict";
import { latenessOf } from "./lateness.ts";

Deno.test("latenessOf: median, 99th percentile and max of one stream's chunks, to 0.01 ms; zeros when empty", () => {
  assert.deepEqual(latenessOf([]), { p50: 0, p99: 0, max: 0 });
  const late = Array.from({ length: 200 }, (_, i) => (199 - i) / 100); // 1.99 … 0, unsorted
  late[7] = 12.3456;
  assert.deepEqual(latenessOf(late), { p50: 1, p99: 1.99, max: 12.35 });
  assert.equal(late[7], 12.3456, "what it is given is not sorted in place");
});

import assert from "node:assert/strict";
import { type ArrivedFrame, placeArrived } from "./arrival.ts";

const RATE = 8000;
/** A 20 ms frame of a constant non-zero value. */
const frame = (v: number) => new Int16Array(160).fill(v);
const zeros = (s: Int16Array) => s.filter((x) => x === 0).length;

Deno.test("placeArrived: real-time frames with jitter under 40 ms follow each other", () => {
  const frames: ArrivedFrame[] = Array.from(
    { length: 20 },
    (_, k) => ({ samples: frame(k + 1), at: 1000 + k * 20 + (k % 3 === 1 ? 35 : 0) }),
  );
  const p = placeArrived(frames, RATE)!;
  assert.equal(p.startMs, 1000);
  assert.equal(p.samples.length, 20 * 160);
  assert.equal(zeros(p.samples), 0);
});

Deno.test("placeArrived: a pause the speaker left is kept as silence", () => {
  const frames: ArrivedFrame[] = [
    ...Array.from({ length: 5 }, (_, k) => ({ samples: frame(1), at: k * 20 })),
    // 300 ms with nothing, then real-time frames again.
    ...Array.from({ length: 5 }, (_, k) => ({ samples: frame(2), at: 400 + k * 20 })),
  ];
  const p = placeArrived(frames, RATE)!;
  assert.equal(zeros(p.samples), 300 * 8);
  assert.equal(p.samples[400 * 8], 2, "the second stretch starts where it arrived");
});

Deno.test("placeArrived: frames held up and then arriving at once are no gap", () => {
  // Real-time frames, a 150 ms stall on the way, then the held frames all at once.
  const frames: ArrivedFrame[] = [
    ...Array.from({ length: 5 }, (_, k) => ({ samples: frame(1), at: k * 20 })),
    ...Array.from({ length: 8 }, () => ({ samples: frame(2), at: 250 })),
    ...Array.from({ length: 5 }, (_, k) => ({ samples: frame(3), at: 260 + k * 20 })),
  ];
  const p = placeArrived(frames, RATE)!;
  assert.equal(zeros(p.samples), 0);
  assert.equal(p.samples.length, 18 * 160);
});

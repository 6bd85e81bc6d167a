import { deepEqual as assertEquals } from "node:assert/strict";
import { histogram, latencyStats, niceStep } from "./latency_stats.ts";

Deno.test("latencyStats() takes percentiles as sorted[floor(count * p)]", () => {
  // Sorted: 100..1000 by 100 (10 samples): p50 = [5] = 600, p90 = [9] = 1000, p95 = [9].
  const samples = [1000, 100, 900, 200, 800, 300, 700, 400, 600, 500];
  assertEquals(latencyStats(samples), {
    count: 10,
    mean_ms: 550,
    p50_ms: 600,
    p90_ms: 1000,
    p95_ms: 1000,
    max_ms: 1000,
  });
  assertEquals(latencyStats([7]).p95_ms, 7);
});

Deno.test("latencyStats() gives nulls without samples", () => {
  assertEquals(latencyStats([]), {
    count: 0,
    mean_ms: null,
    p50_ms: null,
    p90_ms: null,
    p95_ms: null,
    max_ms: null,
  });
});

Deno.test("histogram() bins from zero with a 1-2-5 width", () => {
  // max 950 / 20 bins = 47.5 -> width 50; 950 falls in bin 19.
  const h = histogram([0, 49, 50, 950], 20)!;
  assertEquals(h.bin_width_ms, 50);
  assertEquals(h.counts.length, 20);
  assertEquals([h.counts[0], h.counts[1], h.counts[19]], [2, 1, 1]);
  assertEquals(histogram([]), null);
  assertEquals([niceStep(0.3), niceStep(3), niceStep(7), niceStep(10)], [0.5, 5, 10, 10]);
});

import { deepEqual as assertEquals, ok, throws } from "node:assert/strict";
import { bootstrap, holmBonferroni, mcnemarExact, pairedBootstrap } from "./stats.ts";

const close = (a: number, b: number) => Math.abs(a - b) < 1e-12;

Deno.test("pairedBootstrap() resamples scenario pairs with the seeded generator", () => {
  // mulberry32(1) draws 0.6271, 0.0027, 0.5274 | 0.9811, 0.9684, 0.2811 (computed apart),
  // so with 3 scenarios the two resamples are indices [1, 0, 1] and [2, 2, 0].
  // Differences B - A: [0.25, 0.5, 1]. Resample 1: (0.5 + 0.25 + 0.5) / 3 = 5/12;
  // resample 2: (1 + 1 + 0.25) / 3 = 3/4. The point estimate is 1.75 / 3 = 7/12.
  const e = pairedBootstrap([0, 0, 0], [0.25, 0.5, 1], { resamples: 2, seed: 1 });
  ok(close(e.delta, 7 / 12));
  ok(e.ci95 && close(e.ci95[0], 5 / 12) && close(e.ci95[1], 3 / 4), JSON.stringify(e));
  // Both resamples are above 0, none at or below: p = 2 · (1 + 0) / (1 + 2) = 2/3.
  ok(close(e.p!, 2 / 3));
});

Deno.test("pairedBootstrap() is deterministic for a seed and brackets the estimate", () => {
  const a = [1, 1, 1, 0, 1, 0.5, 1, 1, 0, 1];
  const b = [0, 1, 0, 0, 0.5, 0.5, 0, 1, 0, 0];
  const one = pairedBootstrap(a, b, { seed: 7 });
  assertEquals(pairedBootstrap(a, b, { seed: 7 }), one);
  ok(close(one.delta, -0.45)); // (-1 - 1 - 0.5 - 1 - 1) / 10
  ok(one.ci95![0] <= one.delta && one.delta <= one.ci95![1]);
  ok(one.ci95![1] < 0, "every scenario that changed got worse: the interval excludes 0");
  // Every pair differs by the same amount: the interval is that point.
  assertEquals(pairedBootstrap([0, 0, 0], [0.5, 0.5, 0.5]).ci95, [0.5, 0.5]);
  // No difference at all: every resample is 0, p = 1.
  assertEquals(pairedBootstrap([1, 0], [1, 0]).p, 1);
  // 2000 resamples all below 0: p = 2 / 2001.
  ok(close(pairedBootstrap([1, 1], [0, 0]).p!, 2 / 2001));
  // Differences 0 and 1 only: resample means lie in {0, 0.5, 1}; 2000 draws reach both ends.
  assertEquals(pairedBootstrap([0, 0], [0, 1]).ci95, [0, 1]);
  assertEquals(pairedBootstrap([], []), { delta: NaN, ci95: null, p: null });
  throws(() => pairedBootstrap([1], [1, 0]), RangeError);
});

Deno.test("bootstrap() leaves out resamples where the statistic is NaN", () => {
  // A statistic that is NaN unless unit 0 is drawn: only those resamples count.
  const e = bootstrap(2, (idx) => (Array.from(idx).includes(0) ? 1 : NaN), { seed: 3 });
  assertEquals([e.delta, e.ci95], [1, [1, 1]]);
});

Deno.test("mcnemarExact() is the two-sided binomial tail on the discordant pairs", () => {
  // n = 6, none the other way: 2 · (1/2)^6 = 1/32.
  ok(close(mcnemarExact(0, 6).p, 1 / 32));
  ok(close(mcnemarExact(6, 0).p, 1 / 32));
  // n = 6, one the other way: 2 · (C(6,0) + C(6,1)) / 64 = 14/64.
  ok(close(mcnemarExact(1, 5).p, 14 / 64));
  // n = 12, min 2: 2 · (1 + 12 + 66) / 4096 = 158/4096.
  ok(close(mcnemarExact(2, 10).p, 158 / 4096));
  // Balanced: the doubled tail exceeds 1 and is capped.
  assertEquals(mcnemarExact(3, 3).p, 1);
  assertEquals(mcnemarExact(0, 0), { a_only: 0, b_only: 0, p: 1 });
  // Large n stays finite: 2 · 2^-1000 underflows to 0 in doubles, never NaN.
  ok(Number.isFinite(mcnemarExact(0, 1000).p));
  throws(() => mcnemarExact(-1, 2), RangeError);
  throws(() => mcnemarExact(1.5, 2), RangeError);
});

Deno.test("holmBonferroni() steps down and keeps the adjusted p monotone", () => {
  // Sorted 0.01, 0.03, 0.04 times 3, 2, 1 = 0.03, 0.06, 0.04 -> monotone 0.03, 0.06, 0.06.
  const h = holmBonferroni([0.01, 0.04, 0.03]);
  ok(close(h.adjusted[0]!, 0.03) && close(h.adjusted[1]!, 0.06) && close(h.adjusted[2]!, 0.06));
  assertEquals(h.significant, [true, false, false]);
  // Bonferroni would reject only 0.01 (< 0.05/3); Holm also rejects 0.02 (2 · 0.02 = 0.04).
  assertEquals(holmBonferroni([0.02, 0.01, 0.5]).significant, [true, true, false]);
  assertEquals(holmBonferroni([0.6, 0.9]).adjusted, [1, 1]);
  // A test that could not be made is left out of the family.
  const n = holmBonferroni([0.03, NaN]);
  ok(close(n.adjusted[0]!, 0.03) && Number.isNaN(n.adjusted[1]!));
  assertEquals(n.significant, [true, false]);
  assertEquals(holmBonferroni([]), { adjusted: [], significant: [] });
});

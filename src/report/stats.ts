/**
 * Statistics for comparing two configurations over the same scenarios: a paired
 * bootstrap interval for a difference, McNemar's exact test on paired success, and
 * Holm-Bonferroni over a family of tests. Deterministic: the bootstrap draws from a
 * seeded generator (`src/random/`), so the same input and seed give the same interval.
 *
 * ```ts
 * // Per scenario, A's and B's success rate (same scenario at the same index):
 * const d = pairedBootstrap([1, 1, 0.5], [0, 1, 0.5]); // { delta: -1/3, ci95: [...], p }
 * const p = mcnemarExact(2, 0).p; // 2 pairs passed in A only, none in B only
 * const { significant } = holmBonferroni([p, 0.2, 0.001]);
 * ```
 *
 * @module
 */
import { mulberry32 } from "../random/mulberry32.ts";

/** How a bootstrap resamples. */
export interface BootstrapOptions {
  /** Resamples. Default 2000. */
  resamples?: number;
  /** Seed of the generator: the same seed gives the same interval. Default 1. */
  seed?: number;
  /** Coverage of the interval. Default 0.95. */
  confidence?: number;
}

/** A statistic's value on the data and its percentile bootstrap interval. */
export interface Estimate {
  /** The statistic on the data as given. */
  delta: number;
  /** The interval's ends (`confidence`, default 95%); `null` without units. */
  ci95: [number, number] | null;
  /**
   * Two-sided bootstrap p of "no difference": `2 · (1 + #resamples on the far side of 0)
   * / (1 + #resamples)`, at most 1 (1 when every resample is 0; `null` without units).
   */
  p: number | null;
}

/**
 * A percentile bootstrap over `n` units (scenarios): each resample draws `n` unit
 * indices with replacement and evaluates `statistic` on them; the interval is the
 * resamples' `(1 - confidence) / 2` and `(1 + confidence) / 2` quantiles
 * (`sorted[floor(q * resamples)]`). Pairing is the caller's: a statistic that reads
 * both configurations at the same index keeps each scenario's pair together.
 * A resample where the statistic is not a number (NaN) is left out.
 */
export function bootstrap(
  n: number,
  statistic: (indices: ArrayLike<number>) => number,
  options: BootstrapOptions = {},
): Estimate {
  const all = Array.from({ length: n }, (_, i) => i);
  const delta = statistic(all);
  if (n === 0) return { delta, ci95: null, p: null };
  const resamples = options.resamples ?? 2000;
  const confidence = options.confidence ?? 0.95;
  const random = mulberry32(options.seed ?? 1);
  const indices = new Int32Array(n);
  const values: number[] = [];
  for (let b = 0; b < resamples; b++) {
    for (let i = 0; i < n; i++) indices[i] = Math.floor(random() * n);
    const v = statistic(indices);
    if (!Number.isNaN(v)) values.push(v);
  }
  if (values.length === 0) return { delta, ci95: null, p: null };
  values.sort((x, y) => x - y);
  const at = (q: number) => values[Math.min(values.length - 1, Math.floor(q * values.length))]!;
  let atOrBelow = 0;
  let atOrAbove = 0;
  for (const v of values) {
    if (v <= 0) atOrBelow++;
    if (v >= 0) atOrAbove++;
  }
  const p = Math.min(1, (2 * (1 + Math.min(atOrBelow, atOrAbove))) / (1 + values.length));
  return { delta, ci95: [at((1 - confidence) / 2), at((1 + confidence) / 2)], p };
}

/**
 * The mean of `b[i] - a[i]` over paired units (scenarios), with a paired bootstrap
 * interval: B minus A, so a positive delta means B is higher.
 */
export function pairedBootstrap(
  a: readonly number[],
  b: readonly number[],
  options: BootstrapOptions = {},
): Estimate {
  if (a.length !== b.length) {
    throw new RangeError(`paired samples differ in length (${a.length} and ${b.length})`);
  }
  const diffs = a.map((x, i) => b[i]! - x);
  return bootstrap(diffs.length, (idx) => {
    if (idx.length === 0) return NaN;
    let sum = 0;
    for (let i = 0; i < idx.length; i++) sum += diffs[idx[i]!]!;
    return sum / idx.length;
  }, options);
}

/** McNemar's exact test: the discordant pairs and the two-sided p. */
export interface McNemar {
  /** Pairs that passed in A and failed in B. */
  a_only: number;
  /** Pairs that failed in A and passed in B. */
  b_only: number;
  /** Two-sided exact p: 2 · P(X ≤ min) for X ~ Binomial(a_only + b_only, 1/2), at most 1. */
  p: number;
}

/**
 * McNemar's exact (binomial) test on paired pass/fail outcomes, from the two
 * discordant counts; concordant pairs carry no information. No discordant pair: p = 1.
 */
export function mcnemarExact(aOnly: number, bOnly: number): McNemar {
  for (const [name, x] of [["aOnly", aOnly], ["bOnly", bOnly]] as const) {
    if (!Number.isInteger(x) || x < 0) throw new RangeError(`${name} must be a count, got ${x}`);
  }
  const n = aOnly + bOnly;
  const k = Math.min(aOnly, bOnly);
  // P(X <= k) summed in log space, so large n neither overflows nor underflows early.
  let tail = 0;
  let logC = 0; // log C(n, 0)
  for (let i = 0; i <= k; i++) {
    if (i > 0) logC += Math.log(n - i + 1) - Math.log(i);
    tail += Math.exp(logC - n * Math.LN2);
  }
  return { a_only: aOnly, b_only: bOnly, p: Math.min(1, 2 * tail) };
}

/** Holm-Bonferroni over a family of p-values, in the caller's order. */
export interface Holm {
  /** Each test's adjusted p (monotone, at most 1): reject when it is <= alpha. */
  adjusted: number[];
  /** Each test's outcome at `alpha`. */
  significant: boolean[];
}

/**
 * Holm's step-down correction: the i-th smallest of m p-values is multiplied by
 * (m - i) (i from 0), the products made non-decreasing in that order and capped at 1;
 * a test is significant when its adjusted p is at most `alpha` (default 0.05). This
 * holds the family-wise error rate at `alpha`. A `NaN` p (a test that could not be made)
 * is left out of the family and never significant.
 */
export function holmBonferroni(pValues: readonly number[], alpha = 0.05): Holm {
  const m = pValues.length;
  const order = pValues.map((p, i) => [p, i] as const).filter(([p]) => !Number.isNaN(p))
    .sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  const adjusted = new Array<number>(m).fill(NaN);
  let running = 0;
  order.forEach(([p, i], rank) => {
    running = Math.max(running, Math.min(1, p * (order.length - rank)));
    adjusted[i] = running;
  });
  return { adjusted, significant: adjusted.map((p) => !Number.isNaN(p) && p <= alpha) };
}

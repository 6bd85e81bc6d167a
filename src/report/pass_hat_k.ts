/**
 * pass^k: the chance that k trials of a scenario, drawn without replacement from its n
 * trials of which c succeeded, all succeed: C(c,k)/C(n,k), averaged over scenarios, for
 * k = 1..K with K the fewest trials of any scenario. Beside it, (c/n)^k (the same with
 * replacement) and a bootstrap 95% interval for pass^1 over scenarios.
 *
 * @module
 */
import { mulberry32 } from "../random/mulberry32.ts";

export { mulberry32 };

/** One scenario's trials: `n` with a boolean verdict, `c` of them successful. */
export interface ScenarioCount {
  n: number;
  c: number;
}

/** C(c,k)/C(n,k) for one scenario, as a product so it never overflows. */
export function passHatK(n: number, c: number, k: number): number {
  if (k < 1 || k > n) throw new RangeError(`pass^k needs 1 <= k <= n (k=${k}, n=${n})`);
  if (c < k) return 0;
  let p = 1;
  for (let i = 0; i < k; i++) p *= (c - i) / (n - i);
  return p;
}

export interface PassHatKPoint {
  k: number;
  /** Mean over scenarios of C(c,k)/C(n,k). */
  pass_hat_k: number;
  /** Mean over scenarios of (c/n)^k. */
  pass_power_k: number;
}

/** pass^k and (c/n)^k for k = 1..K (K = the fewest trials); empty without scenarios. */
export function passHatKCurve(counts: readonly ScenarioCount[]): PassHatKPoint[] {
  const scored = counts.filter((s) => s.n > 0);
  if (scored.length === 0) return [];
  const maxK = Math.min(...scored.map((s) => s.n));
  const points: PassHatKPoint[] = [];
  for (let k = 1; k <= maxK; k++) {
    let hat = 0;
    let power = 0;
    for (const s of scored) {
      hat += passHatK(s.n, s.c, k);
      power += (s.c / s.n) ** k;
    }
    points.push({ k, pass_hat_k: hat / scored.length, pass_power_k: power / scored.length });
  }
  return points;
}

export interface BootstrapOptions {
  /** Resamples. Default 2000. */
  resamples?: number;
  /** PRNG seed: the same seed gives the same interval. Default 1. */
  seed?: number;
}

/**
 * A percentile bootstrap 95% interval for pass^1 (the mean of c/n over scenarios),
 * resampling scenarios with replacement; `null` without scenarios. Deterministic:
 * a seeded generator, and the order of `counts` is the caller's (sort it).
 */
export function bootstrapPass1(
  counts: readonly ScenarioCount[],
  options: BootstrapOptions = {},
): [number, number] | null {
  const rates = counts.filter((s) => s.n > 0).map((s) => s.c / s.n);
  if (rates.length === 0) return null;
  const resamples = options.resamples ?? 2000;
  const random = mulberry32(options.seed ?? 1);
  const means = new Float64Array(resamples);
  for (let b = 0; b < resamples; b++) {
    let sum = 0;
    for (let i = 0; i < rates.length; i++) sum += rates[Math.floor(random() * rates.length)]!;
    means[b] = sum / rates.length;
  }
  means.sort();
  const at = (q: number) => means[Math.min(resamples - 1, Math.floor(q * resamples))]!;
  return [at(0.025), at(0.975)];
}

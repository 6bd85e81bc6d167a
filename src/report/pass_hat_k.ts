/**
 * pass^k: the chance that k trials of a scenario, drawn without replacement from its n
 * trials of which c succeeded, all succeed: C(c,k)/C(n,k), averaged over scenarios, for
 * k = 1..K with K the fewest trials of any scenario. Beside it, (c/n)^k (the same with
 * replacement) and a bootstrap 95% interval for pass^1 over scenarios.
 *
 * @module
 */
import { mulberry32 } from "../random/mulberry32.ts";
import { bootstrap, type BootstrapOptions } from "./stats.ts";

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

/**
 * A percentile bootstrap 95% interval for pass^1 (the mean of c/n over scenarios),
 * resampling scenarios with replacement (`bootstrap` of `./stats.ts`); `null` without
 * scenarios. Deterministic: a seeded generator, and the order of `counts` is the
 * caller's (sort it).
 */
export function bootstrapPass1(
  counts: readonly ScenarioCount[],
  options: Pick<BootstrapOptions, "resamples" | "seed"> = {},
): [number, number] | null {
  const rates = counts.filter((s) => s.n > 0).map((s) => s.c / s.n);
  return bootstrap(rates.length, (idx) => {
    let sum = 0;
    for (let i = 0; i < idx.length; i++) sum += rates[idx[i]!]!;
    return sum / idx.length;
  }, options).ci95;
}

/**
 * Latency statistics over pooled samples, with the reference's percentile rule:
 * the p-th percentile is `sorted[floor(count * p)]` (so p50 of 4 samples is the third).
 *
 * @module
 */
import { z } from "zod";

export const LatencyStatsSchema = z.object({
  count: z.number().int().nonnegative(),
  mean_ms: z.number().nullable(),
  p50_ms: z.number().nullable(),
  p90_ms: z.number().nullable(),
  p95_ms: z.number().nullable(),
  max_ms: z.number().nullable(),
});
export type LatencyStats = z.infer<typeof LatencyStatsSchema>;

/** Count, mean, p50/p90/p95 and max; `null`s when there are no samples. */
export function latencyStats(samples: ArrayLike<number>): LatencyStats {
  const count = samples.length;
  if (count === 0) {
    return { count, mean_ms: null, p50_ms: null, p90_ms: null, p95_ms: null, max_ms: null };
  }
  const sorted = Float64Array.from(samples).sort();
  let sum = 0;
  for (let i = 0; i < count; i++) sum += sorted[i]!;
  const at = (p: number) => sorted[Math.min(count - 1, Math.floor(count * p))]!;
  return {
    count,
    mean_ms: _round(sum / count),
    p50_ms: at(0.5),
    p90_ms: at(0.9),
    p95_ms: at(0.95),
    max_ms: sorted[count - 1]!,
  };
}

export const HistogramSchema = z.object({
  bin_width_ms: z.number().positive(),
  /** Samples in [i * width, (i + 1) * width); the last bin also holds the maximum. */
  counts: z.array(z.number().int().nonnegative()),
});
export type Histogram = z.infer<typeof HistogramSchema>;

/** Up to `bins` equal bins from 0, the width rounded up to a 1-2-5 step. */
export function histogram(samples: ArrayLike<number>, bins = 20): Histogram | null {
  if (samples.length === 0) return null;
  let max = 0;
  for (let i = 0; i < samples.length; i++) max = Math.max(max, samples[i]!);
  const width = niceStep(Math.max(max, 1) / bins);
  const n = Math.max(1, Math.min(bins, Math.floor(max / width) + 1));
  const counts = new Array<number>(n).fill(0);
  for (let i = 0; i < samples.length; i++) {
    const b = Math.min(n - 1, Math.max(0, Math.floor(samples[i]! / width)));
    counts[b]!++;
  }
  return { bin_width_ms: width, counts };
}

/** The smallest 1, 2 or 5 times a power of ten that is >= x. */
export function niceStep(x: number): number {
  const power = 10 ** Math.floor(Math.log10(x));
  for (const m of [1, 2, 5, 10]) if (m * power >= x) return m * power;
  return 10 * power;
}

function _round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

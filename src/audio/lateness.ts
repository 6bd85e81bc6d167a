/**
 * How late paced chunks go out on a real clock, pooled over every pacer of the
 * process: a histogram of 0.05 ms bins (to 50 ms, then 1 ms bins to 2 s), so the
 * percentiles of millions of chunks cost a fixed amount of memory, and one per
 * second of the last minute, for "how late over the last 10 s".
 *
 * @module
 */

/** Pooled lateness: count, median, 99th percentile and max, ms. */
export interface LatenessSummary {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

/**
 * One stream's lateness, exact: the median, 99th percentile and max of `lateMs`
 * (ms, to 0.01; zeros when empty). A stream keeps its chunks' lateness for this.
 */
export function latenessOf(lateMs: readonly number[]): { p50: number; p99: number; max: number } {
  const late = [...lateMs].sort((a, b) => a - b);
  const at = (q: number) =>
    late.length === 0 ? 0 : late[Math.min(late.length - 1, Math.floor(q * late.length))]!;
  const r = (x: number) => Math.round(x * 100) / 100;
  return { p50: r(at(0.5)), p99: r(at(0.99)), max: r(late[late.length - 1] ?? 0) };
}

const FINE_MS = 0.05;
const FINE_BINS = 1000; // to 50 ms
const COARSE_BINS = 1950; // 1 ms each, to 2000 ms
const BINS = FINE_BINS + COARSE_BINS + 1; // the last: beyond 2 s

function binOf(ms: number): number {
  if (ms < FINE_BINS * FINE_MS) return Math.max(0, Math.floor(ms / FINE_MS));
  return Math.min(BINS - 1, FINE_BINS + Math.floor(ms - FINE_BINS * FINE_MS));
}

/** The upper edge of a bin, ms (what a percentile falling in it reports). */
function edgeOf(bin: number): number {
  if (bin < FINE_BINS) return Math.round((bin + 1) * FINE_MS * 100) / 100;
  return FINE_BINS * FINE_MS + (bin - FINE_BINS + 1);
}

/** One histogram and its max. */
class Histogram {
  readonly bins = new Uint32Array(BINS);
  count = 0;
  max = 0;

  add(ms: number): void {
    this.bins[binOf(ms)]!++;
    this.count++;
    if (ms > this.max) this.max = ms;
  }

  clear(): void {
    this.bins.fill(0);
    this.count = 0;
    this.max = 0;
  }
}

function summarise(parts: readonly Histogram[]): LatenessSummary {
  let count = 0;
  let max = 0;
  for (const h of parts) {
    count += h.count;
    max = Math.max(max, h.max);
  }
  const at = (q: number): number => {
    if (count === 0) return 0;
    const rank = Math.ceil(q * count);
    let seen = 0;
    for (let b = 0; b < BINS; b++) {
      for (const h of parts) seen += h.bins[b]!;
      if (seen >= rank) return Math.min(edgeOf(b), max);
    }
    return max;
  };
  return { count, p50: at(0.5), p99: at(0.99), max: Math.round(max * 100) / 100 };
}

/** A meter's pooled total as plain data. */
export interface LatenessTotals {
  bins: Uint32Array;
  count: number;
  max: number;
  chunksDue: number;
  chunksSent: number;
}

/** Seconds of history kept for {@link LatenessMeter.recent}. */
const RECENT_SECONDS = 60;

/** Pooled lateness of paced chunks: since the last reset, and over recent seconds. */
export class LatenessMeter {
  readonly #total = new Histogram();
  readonly #seconds: Histogram[];
  /** The whole second (of `performance.now()`) each slot of `#seconds` holds. */
  readonly #secondOf: Float64Array;

  /** `recent: false` keeps the total only (a call's own meter: 12 KB, not 700). */
  constructor(options: { recent?: boolean } = {}) {
    const n = options.recent === false ? 0 : RECENT_SECONDS;
    this.#seconds = Array.from({ length: n }, () => new Histogram());
    this.#secondOf = new Float64Array(n).fill(-1);
  }

  /** Counts one chunk sent `lateMs` after its slot, at `nowMs` (`performance.now()`). */
  record(lateMs: number, nowMs: number): void {
    this.#total.add(lateMs);
    if (this.#seconds.length === 0) return;
    const second = Math.floor(nowMs / 1000);
    const slot = second % RECENT_SECONDS;
    if (this.#secondOf[slot] !== second) {
      this.#seconds[slot]!.clear();
      this.#secondOf[slot] = second;
    }
    this.#seconds[slot]!.add(lateMs);
  }

  /** Chunks of silence-filled pacers: due by their grids when they stopped, and sent. */
  chunksDue = 0;
  chunksSent = 0;

  /** A silence-filled pacer stopped with `due` slots past and `sent` chunks sent. */
  countDue(due: number, sent: number): void {
    this.chunksDue += due;
    this.chunksSent += sent;
  }

  /** The pooled total and counts as plain data (to send from a Worker). */
  totals(): LatenessTotals {
    return {
      bins: this.#total.bins.slice(),
      count: this.#total.count,
      max: this.#total.max,
      chunksDue: this.chunksDue,
      chunksSent: this.chunksSent,
    };
  }

  /** Adds another meter's {@link totals} (a Worker's) to this one's total. */
  addTotals(t: LatenessTotals): void {
    for (let b = 0; b < BINS; b++) this.#total.bins[b]! += t.bins[b] ?? 0;
    this.#total.count += t.count;
    this.#total.max = Math.max(this.#total.max, t.max);
    this.chunksDue += t.chunksDue;
    this.chunksSent += t.chunksSent;
  }

  /** Every chunk since the last {@link reset}. */
  summary(): LatenessSummary {
    return summarise([this.#total]);
  }

  /** The chunks of the last `windowMs` (whole seconds, at most a minute) before `nowMs`. */
  recent(windowMs: number, nowMs: number): LatenessSummary {
    const now = Math.floor(nowMs / 1000);
    if (this.#seconds.length === 0) return summarise([]);
    const back = Math.min(RECENT_SECONDS, Math.ceil(windowMs / 1000));
    const parts: Histogram[] = [];
    for (let s = now - back + 1; s <= now; s++) {
      const slot = ((s % RECENT_SECONDS) + RECENT_SECONDS) % RECENT_SECONDS;
      if (this.#secondOf[slot] === s) parts.push(this.#seconds[slot]!);
    }
    return summarise(parts);
  }

  /** Forgets the pooled total and the counts (the recent seconds stay). */
  reset(): void {
    this.#total.clear();
    this.chunksDue = 0;
    this.chunksSent = 0;
  }
}

/**
 * How many Workers a run uses when `--workers` is not given. A Worker costs a
 * start-up (its module graph and its own parse of the worlds, measured at about
 * half a second on a 2-core machine) before its first trial, while the main thread
 * runs trials at about 500 deterministic trials per second. So Workers are used only
 * when the run's deterministic (simulated-clock) trials take long enough in-process
 * to pay that back: `W` Workers save about `n / rate * (1 - 1/W)` seconds and cost
 * `startup`, so they are used when `n >= rate * startup * W / (W - 1)`.
 *
 * Real-clock calls (a `ws://` agent, an llm participant) are left in-process by
 * default: they spend their time waiting on the other end, which one event loop
 * overlaps with `--concurrency`. An explicit `--workers N` always wins.
 *
 * @module
 */

/** In-process deterministic trials per second assumed by the rule (measured about 550). */
export const IN_PROCESS_TRIALS_PER_S = 500;
/** A Worker's start-up assumed by the rule, in seconds (measured 0.5 to 0.8 s, loaded). */
export const WORKER_STARTUP_S = 1;

/** What the default rule looks at. */
export interface WorkerCountInput {
  /** The most Workers to use (the number of cores). */
  max: number;
  /** Trials run at once (no more Workers than that). */
  concurrency: number;
  /** Trials of the run on a simulated clock (both ends deterministic). */
  deterministicTrials: number;
}

/** The fewest deterministic trials for which `workers` Workers pay off (Infinity for 1). */
export function workersPayOffAt(workers: number): number {
  if (workers <= 1) return Infinity;
  return Math.ceil(IN_PROCESS_TRIALS_PER_S * WORKER_STARTUP_S * workers / (workers - 1));
}

/** The default Worker count: `max` (at most `concurrency`) when they pay off, else 1. */
export function defaultWorkerCount(input: WorkerCountInput): number {
  const w = Math.max(1, Math.min(input.max, input.concurrency));
  return input.deterministicTrials >= workersPayOffAt(w) ? w : 1;
}

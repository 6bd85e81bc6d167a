/**
 * How many Workers a run uses when `--workers` is not given. A Worker costs a
 * start-up (its module graph and its own parse of the worlds, measured at 0.3 s idle,
 * over 1 s busy, on a 2-core machine) before its first trial, while the main thread
 * runs trials at about 500 deterministic trials per second. So Workers are used only
 * when the run's deterministic (simulated-clock) trials take long enough in-process
 * to pay that back: `W` Workers save about `n / rate * (1 - 1/W)` seconds and cost
 * `startup`, so they are used when `n >= rate * startup * W / (W - 1)`.
 *
 * Workers pay only with idle cores: each one compiles the code and parses the worlds
 * again, so a trial costs more CPU on Workers than in-process until they are warm.
 * When the run may read the load average (`--allow-sys=loadavg`, as `deno task cli`
 * grants), no more Workers are used than the cores the other processes leave idle
 * (cores minus the 1-minute load average, our own thread counted as one): on a busy
 * machine the run stays in-process.
 *
 * Real-clock calls (a `ws://` agent, an llm participant) are left in-process by
 * default: they spend their time waiting on the other end, which one event loop
 * overlaps with `--concurrency`. Measured for real-time audio (`bench:audio:realtime
 * --calls 200 --seconds 10 --workers 1|2`, twice each, alternating): 34 to 40 µs of
 * CPU a chunk in-process (0.40 to 0.47 cores), 36 to 52 on two Workers (0.42 to 0.61),
 * so Workers cost CPU rather than save it, and the lateness followed the machine's CPU
 * wait either way (p99 52 and 184 ms in-process at 37% and 68% wait; 577 and 64 ms on
 * two Workers at 85% and 50%). An explicit `--workers N` always wins.
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
  /** The 1-minute load average, when known (see {@link loadAverage}). */
  loadAverage?: number;
}

/** The fewest deterministic trials for which `workers` Workers pay off (Infinity for 1). */
export function workersPayOffAt(workers: number): number {
  if (workers <= 1) return Infinity;
  return Math.ceil(IN_PROCESS_TRIALS_PER_S * WORKER_STARTUP_S * workers / (workers - 1));
}

/**
 * The default Worker count: `max` (at most `concurrency`, at most the cores left idle
 * by the load average plus our own) when they pay off, else 1.
 */
export function defaultWorkerCount(input: WorkerCountInput): number {
  let w = Math.max(1, Math.min(input.max, input.concurrency));
  if (input.loadAverage !== undefined) {
    w = Math.max(1, Math.min(w, Math.floor(input.max - input.loadAverage + 1)));
  }
  return input.deterministicTrials >= workersPayOffAt(w) ? w : 1;
}

/** The 1-minute load average, or undefined when the run may not read it (no prompt). */
export function loadAverage(): number | undefined {
  try {
    if (Deno.permissions.querySync({ name: "sys", kind: "loadavg" }).state !== "granted") {
      return undefined;
    }
    return Deno.loadavg()[0];
  } catch {
    return undefined;
  }
}

/**
 * How many real-time audio calls a run makes at once, and when it may start another.
 *
 * A real voice agent is tested in real time, so a run's wall time is its calls' audio
 * divided by how many run at once; but every call shares this process's pacers, and
 * past what the machine holds their chunks go out late (a late chunk is a gap the
 * agent hears). So:
 *
 * - {@link realTimeConcurrency}: by default as many calls as a table says one idle
 *   core holds at the lateness bound (measured with `bench:audio:realtime`), times
 *   the cores the other processes leave idle, capped by what the run asked for.
 * - {@link RealTimeGate}: before each new call, the pacers' pooled lateness p99 over
 *   the last 10 s is looked at; past the bound (5 ms) no call starts until it is back
 *   under (calls already running go on), unless this process used under half a core
 *   meanwhile: then the chunks were late because other processes held the CPUs, which
 *   holding our calls back does not change (on a shared 2-core machine at load 4 the
 *   p99 stayed past 5 ms with any number of calls, and a gate on lateness alone held 15
 *   of 40 eva calls until the first 25 had ended and their late seconds had left the
 *   window: 37 s for calls of at most 17 s). Each call's record shows its lateness.
 *
 * @module
 */
import type { WireFraming } from "../transport/mapping.ts";
import type { Clock } from "../clock/clock.ts";
import type { LatenessMeter } from "../audio/lateness.ts";
import process from "node:process";

/** The bound on pooled pacer lateness: p99 under this many ms. */
export const LATENESS_BOUND_MS = 5;
/** The window the gate looks at. */
export const LATENESS_WINDOW_MS = 10_000;

/**
 * New calls start at least this far apart (ms): a run's first calls do not all set up
 * at once (connect, handshake, first synthesis: tens of ms of work each, in which the
 * calls already started wait for their chunks). 50 calls take a second to start.
 */
export const START_SPACING_MS = 20;

/** Under this share of a core used by this process, late chunks are the machine's. */
export const OWN_BUSY_CORES = 0.5;

/**
 * Concurrent real-time calls per idle core, by wire framing (callbench's side; the
 * agent elsewhere). By CPU, the one measure a shared machine does not distort:
 * `bench:audio:realtime` at 50 calls used 0.15 to 0.21 cores in all three framings
 * with every chunk sent (0.23 to 0.42 at 200), so 50 calls keep callbench near a
 * quarter of a core. See the README's table.
 */
export const CALLS_PER_IDLE_CORE: Readonly<Record<WireFraming, number>> = {
  json: 50,
  protobuf: 50,
  twilio: 50,
  // Not measured yet: 10 ms appends both ways are twice Twilio's frames, so half its calls.
  "openai-realtime": 25,
};

/** What the default concurrency of real-time calls looks at. */
export interface RealTimeConcurrencyInput {
  framing: WireFraming;
  /** Cores of the machine. */
  cores: number;
  /** The 1-minute load average, when known. */
  loadAverage?: number;
  /** What the run asked for (`--concurrency`), when it did: a cap. */
  requested?: number;
}

/**
 * Calls at once: the table's calls per core times the idle cores (cores minus the
 * load average, our own thread counted as one, at least one core), at most `requested`.
 */
export function realTimeConcurrency(input: RealTimeConcurrencyInput): number {
  const idle = input.loadAverage === undefined
    ? input.cores
    : Math.max(1, Math.min(input.cores, input.cores - input.loadAverage + 1));
  const held = Math.max(1, Math.floor(CALLS_PER_IDLE_CORE[input.framing] * idle));
  return input.requested === undefined ? held : Math.max(1, Math.min(held, input.requested));
}

/** Why {@link realTimeConcurrency} gives what it does, in words (for a run that asked for more). */
export function realTimeConcurrencyWhy(input: RealTimeConcurrencyInput): string {
  const per = CALLS_PER_IDLE_CORE[input.framing];
  const idle = input.loadAverage === undefined
    ? input.cores
    : Math.max(1, Math.min(input.cores, input.cores - input.loadAverage + 1));
  const load = input.loadAverage === undefined
    ? ""
    : ` (load average ${input.loadAverage.toFixed(1)} on ${input.cores} cores)`;
  return `${per} real-time ${input.framing} calls per idle core hold the pacers' ` +
    `${LATENESS_BOUND_MS} ms lateness bound, and ${
      Number(idle.toFixed(1))
    } core(s) are idle${load}`;
}

/** Holds back new calls while the pooled pacer lateness is past the bound. */
export class RealTimeGate {
  readonly #meter: LatenessMeter;
  readonly #clock: Clock;
  readonly #wallNow: () => number;
  readonly #pollMs: number;
  readonly #cpuUs: () => number;
  readonly #spacingMs: number;
  /** The earliest the next call may start (on the gate's clock). */
  #nextStart = -Infinity;
  /** This process's CPU time (µs) at wall times (ms), oldest first, a window's worth. */
  #cpu: { wall: number; us: number }[] = [];
  /** Times a call waited for the lateness to recover. */
  held = 0;
  /** Calls started while late, because the lateness was not this process's doing. */
  admittedLate = 0;

  /**
   * `meter` is the pooled lateness (`realTimeLateness`); `wallNow` is the time base it
   * records in (`performance.now()`); `cpuUs` is this process's CPU time so far, µs
   * (user and system; all its threads); the gate waits on `clock`, checking every
   * `pollMs`; calls start at least `spacingMs` apart (default {@link START_SPACING_MS}).
   */
  constructor(options: {
    meter: LatenessMeter;
    clock: Clock;
    wallNow?: () => number;
    cpuUs?: () => number;
    pollMs?: number;
    spacingMs?: number;
  }) {
    this.#meter = options.meter;
    this.#clock = options.clock;
    this.#wallNow = options.wallNow ?? (() => performance.now());
    this.#cpuUs = options.cpuUs ?? processCpuUs;
    this.#pollMs = options.pollMs ?? 250;
    this.#spacingMs = options.spacingMs ?? START_SPACING_MS;
  }

  /**
   * Whether a call may start: the last 10 s of chunks went out within the bound (no
   * chunks: yes), or they did not while this process, over at least the last second,
   * used under {@link OWN_BUSY_CORES}.
   */
  get open(): boolean {
    const now = this.#wallNow();
    const us = this.#cpuUs();
    const cpu = this.#cpu;
    cpu.push({ wall: now, us });
    while (cpu.length > 2 && cpu[1]!.wall <= now - LATENESS_WINDOW_MS) cpu.shift();
    if (this.#meter.recent(LATENESS_WINDOW_MS, now).p99 <= LATENESS_BOUND_MS) return true;
    const span = now - cpu[0]!.wall;
    if (span < 1000) return false;
    return (us - cpu[0]!.us) / 1000 / span < OWN_BUSY_CORES;
  }

  /**
   * Resolves when a new call may start: when its turn in the spacing comes (at once for
   * the first), if the gate is open then.
   */
  async admit(signal?: AbortSignal): Promise<void> {
    const now = this.#clock.now();
    const at = Math.max(now, this.#nextStart);
    this.#nextStart = at + this.#spacingMs;
    if (at > now) await this.#clock.sleep(at - now, signal).catch(() => {});
    if (this.#admitNow()) return;
    this.held++;
    while (!this.#admitNow() && !signal?.aborted) {
      await this.#clock.sleep(this.#pollMs, signal).catch(() => {});
    }
  }

  #admitNow(): boolean {
    if (!this.open) return false;
    if (this.#meter.recent(LATENESS_WINDOW_MS, this.#wallNow()).p99 > LATENESS_BOUND_MS) {
      this.admittedLate++;
    }
    return true;
  }
}

/** This process's CPU time so far, µs (Deno's `process.cpuUsage`, every thread). */
function processCpuUs(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

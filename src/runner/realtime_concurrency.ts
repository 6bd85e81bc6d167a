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
 *   under (calls already running go on).
 *
 * @module
 */
import type { WireFraming } from "../transport/mapping.ts";
import type { Clock } from "../clock/clock.ts";
import type { LatenessMeter } from "../audio/lateness.ts";

/** The bound on pooled pacer lateness: p99 under this many ms. */
export const LATENESS_BOUND_MS = 5;
/** The window the gate looks at. */
export const LATENESS_WINDOW_MS = 10_000;

/**
 * Concurrent 20 s calls one idle core holds at the bound, by wire framing (callbench's
 * side; the agent elsewhere). Conservative: `bench:audio:realtime` on a 2-core machine
 * shared by other work; see the README's table.
 */
export const CALLS_PER_IDLE_CORE: Readonly<Record<WireFraming, number>> = {
  json: 25,
  protobuf: 25,
  twilio: 20,
  // Not measured yet: 10 ms appends both ways are twice Twilio's frames, so half its calls.
  "openai-realtime": 10,
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

/** Holds back new calls while the pooled pacer lateness is past the bound. */
export class RealTimeGate {
  readonly #meter: LatenessMeter;
  readonly #clock: Clock;
  readonly #wallNow: () => number;
  readonly #pollMs: number;
  /** Times a call waited for the lateness to recover. */
  held = 0;

  /**
   * `meter` is the pooled lateness (`realTimeLateness`); `wallNow` is the time base it
   * records in (`performance.now()`); the gate waits on `clock`, checking every `pollMs`.
   */
  constructor(options: {
    meter: LatenessMeter;
    clock: Clock;
    wallNow?: () => number;
    pollMs?: number;
  }) {
    this.#meter = options.meter;
    this.#clock = options.clock;
    this.#wallNow = options.wallNow ?? (() => performance.now());
    this.#pollMs = options.pollMs ?? 250;
  }

  /** Whether the last 10 s of chunks went out within the bound (no chunks: yes). */
  get open(): boolean {
    return this.#meter.recent(LATENESS_WINDOW_MS, this.#wallNow()).p99 <= LATENESS_BOUND_MS;
  }

  /** Resolves when a new call may start: at once when the gate is open. */
  async admit(signal?: AbortSignal): Promise<void> {
    if (this.open) return;
    this.held++;
    while (!this.open && !signal?.aborted) {
      await this.#clock.sleep(this.#pollMs, signal).catch(() => {});
    }
  }
}

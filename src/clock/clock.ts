/**
 * Clocks for a call. The simulated clock jumps from timer to timer once every
 * participant has settled, so a 30 s silence or a 900 s limit costs microseconds; the
 * real clock follows the wall clock for LLM and remote participants.
 *
 * @module
 */
import { clearImmediate, setImmediate } from "node:timers";

/** Milliseconds since the call started. */
export type CallTime = number;

/** Time as a participant and the call loop see it. */
export interface Clock {
  /** Simulated clocks jump from timer to timer; real ones follow the wall clock. */
  readonly simulated: boolean;
  /** The current call time: ms since the call started (since the clock was made). */
  now(): CallTime;
  /** Runs `fn` after `ms` unless cancelled; returns the cancel function. */
  timer(ms: number, fn: () => void): () => void;
  /** Resolves after `ms` of this clock's time; rejects with the signal's reason on abort. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /**
   * A clock that drives itself (simulated): fires its timers one after the other once
   * pending work has settled, until `done()`, and returns false when no timer is left
   * first (nothing more can happen). A real clock has none: time passes by itself.
   */
  runUntil?(done: () => boolean): Promise<boolean>;
  /**
   * A simulated clock waits for `work` (speech synthesis) before time moves on, so
   * synthesis costs no call time; a real clock has none (time passes meanwhile).
   */
  hold?(work: Promise<unknown>): void;
}

/** `Clock.sleep` over a clock's `timer`: both clocks sleep this way. */
function sleepOn(clock: Pick<Clock, "timer">, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const cancel = clock.timer(ms, () => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    });
    const onAbort = () => {
      cancel();
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

interface Timer {
  at: CallTime;
  seq: number;
  fn: () => void;
}

/** A discrete-event clock. Drive it with `run`. */
export class SimClock implements Clock {
  readonly simulated = true;
  #now = 0;
  #seq = 0;
  #timers: Timer[] = [];
  readonly #held = new Set<Promise<unknown>>();

  now(): CallTime {
    return this.#now;
  }

  timer(ms: number, fn: () => void): () => void {
    const t: Timer = { at: this.#now + Math.max(0, ms), seq: this.#seq++, fn };
    // Keep timers ordered by time, then by creation (ties fire in the order set).
    let i = this.#timers.length;
    while (i > 0 && (this.#timers[i - 1]!.at > t.at)) i--;
    this.#timers.splice(i, 0, t);
    return () => {
      const j = this.#timers.indexOf(t);
      if (j >= 0) this.#timers.splice(j, 1);
    };
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepOn(this, ms, signal);
  }

  /** Virtual time waits for `work` (speech synthesis) before the next timer fires. */
  hold(work: Promise<unknown>): void {
    this.#held.add(work);
    const release = () => this.#held.delete(work);
    work.then(release, release);
  }

  /** Settles pending reactions, then waits for held work until none is left. */
  async #settle(): Promise<void> {
    await settle();
    while (this.#held.size > 0) {
      await Promise.allSettled([...this.#held]);
      await settle();
    }
  }

  runUntil(done: () => boolean): Promise<boolean> {
    return this.run(done);
  }

  /** Number of timers pending. */
  get pending(): number {
    return this.#timers.length;
  }

  /**
   * Lets pending async work settle, then fires the next timer, until `done()` or no
   * timer is left. Returns whether `done()` became true.
   */
  async run(done: () => boolean): Promise<boolean> {
    while (true) {
      await this.#settle();
      if (done()) return true;
      const next = this.#timers.shift();
      if (!next) return false;
      this.#now = Math.max(this.#now, next.at);
      next.fn();
    }
  }

  /** Fires every timer due up to `ms` from now (tests). */
  async advance(ms: number): Promise<void> {
    const until = this.#now + ms;
    while (true) {
      await this.#settle();
      const next = this.#timers[0];
      if (!next || next.at > until) break;
      this.#timers.shift();
      this.#now = next.at;
      next.fn();
    }
    await this.#settle();
    this.#now = until;
  }
}

/**
 * Waits for queued promise reactions and one macrotask turn. `setImmediate` costs a
 * few microseconds where `setTimeout(0)` costs about a millisecond, and a simulated
 * call settles once per event.
 */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * The wall clock, from the moment it was made.
 *
 * Timers that are already due (0 ms, or less) run on `setImmediate`: Deno's
 * `setTimeout(fn, 0)` takes about 2 ms to fire, where `setImmediate` takes a few
 * microseconds, and the bridge sets a 0 ms timer for every utterance. Cancelling works
 * the same on either path.
 */
export class RealClock implements Clock {
  readonly simulated = false;
  readonly #start = performance.now();

  now(): CallTime {
    return performance.now() - this.#start;
  }

  timer(ms: number, fn: () => void): () => void {
    return _schedule(ms, fn);
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepOn(this, ms, signal);
  }
}

/** Runs `fn` after `ms` of wall time; a due timer takes the fast path. Returns the cancel. */
function _schedule(ms: number, fn: () => void): () => void {
  if (!(ms > 0)) {
    const id = setImmediate(fn);
    return () => clearImmediate(id);
  }
  // `setTimeout` drops the fraction of a millisecond, and would fire up to 1 ms early:
  // rounding up keeps the contract that `fn` runs no earlier than `ms` from now (a timer
  // set for when words end must not find them still being said).
  const id = setTimeout(fn, Math.ceil(ms));
  return () => clearTimeout(id);
}

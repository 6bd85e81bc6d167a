/**
 * A real-time pacer: sends audio in fixed chunks (default 16 ms, 512 bytes at 16 kHz,
 * as the reference harness does) on a fixed grid `start + k * chunkMs`, on any
 * `Clock`. Each tick sends every chunk whose time has come, so a late timer is caught
 * up instead of pushing every later chunk back: there is no drift, however long the
 * call. When nothing is queued it sends silence (or, with `silenceFill: false`, sends
 * nothing and keeps the grid). On a `SimClock` the same code runs in virtual time.
 *
 * On a real clock, every pacer of the process shares one timer ({@link RealTimeTicker}):
 * it wakes when the earliest pacer is due and ticks every pacer whose slot has come,
 * so 200 calls' 12,500 chunks a second cost about one wake-up a millisecond, not one
 * timer a chunk.
 *
 * @example
 * ```ts
 * const pacer = new Pacer({ clock, sampleRate: 16000, onChunk: (c) => send(c.samples) });
 * pacer.start();
 * pacer.enqueue(utterance);
 * await pacer.drained(); // the utterance is out; silence follows
 * pacer.clear(); // barge-in: drop what is still queued
 * pacer.stop();
 * ```
 *
 * @module
 */
import type { CallTime, Clock } from "../clock/clock.ts";
import { LatenessMeter, type LatenessSummary } from "./lateness.ts";

/**
 * The lateness of every chunk paced on a real clock in this process, pooled, and how
 * many chunks the silence-filled pacers sent against how many their grids made due.
 */
export const realTimeLateness: LatenessMeter = new LatenessMeter();

/** Each real clock's own meter: the lateness of one call's pacers (a clock a call). */
const latenessByClock = new WeakMap<Clock, LatenessMeter>();

/** How late the chunks of the pacers on `clock` went out, if any ran on a real clock. */
export function pacerLatenessOf(clock: Clock): LatenessSummary | undefined {
  return latenessByClock.get(clock)?.summary();
}

/** One chunk as sent. */
export interface PacedChunk {
  /**
   * Always a full chunk; queued audio is padded with zeros at the end of the queue. Read
   * only: it may be a view of the queued audio or the silence every pacer shares (copy
   * it to write into it, as a line's noise fill does).
   */
  samples: Int16Array;
  /** Chunk number since `start` (0, 1, 2, ...). */
  index: number;
  /** When it was due: `start + index * chunkMs` on the clock. */
  dueAt: CallTime;
  /** When it was sent (`dueAt` on a simulated clock; later when a timer fired late). */
  sentAt: CallTime;
  /** Samples of queued audio in it (0: pure silence fill). */
  audioSamples: number;
}

/** Zeros of each chunk size, shared by every pacer's silent chunks (never written). */
const _silence = new Map<number, Int16Array>();

function silence(size: number): Int16Array {
  let zeros = _silence.get(size);
  if (!zeros) _silence.set(size, zeros = new Int16Array(size));
  return zeros;
}

export interface PacerOptions {
  clock: Clock;
  sampleRate: number;
  /** Default 16. */
  chunkMs?: number;
  /** Send silence when nothing is queued (default true). */
  silenceFill?: boolean;
  /** Called for each chunk, in order. Must not throw. */
  onChunk: (chunk: PacedChunk) => void;
}

/** A pacer as the ticker sees it: when it is next due, and how to tick it. */
interface TickerEntry {
  /** `performance.now()` of its next slot. */
  dueWall: number;
  /** Its place in the heap (-1: not scheduled). */
  slot: number;
  tick(): void;
}

/**
 * One timer for every pacer on a real clock: a heap of entries by next due time,
 * and a single `setTimeout` for the earliest. Each wake-up ticks every entry whose
 * time has come (each entry reschedules itself while it runs).
 */
export class RealTimeTicker {
  readonly #heap: TickerEntry[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** When the pending timer is set to fire (`performance.now()`). */
  #timerAt = Infinity;
  /** Wake-ups so far (a benchmark's count of timers). */
  wakeups = 0;

  /** Entries scheduled. */
  get size(): number {
    return this.#heap.length;
  }

  /** Schedules (or moves) `entry` to `dueWall`. */
  schedule(entry: TickerEntry, dueWall: number): void {
    entry.dueWall = dueWall;
    if (entry.slot < 0) {
      entry.slot = this.#heap.length;
      this.#heap.push(entry);
    }
    this.#up(entry.slot);
    this.#down(entry.slot);
    this.#arm();
  }

  /** Takes `entry` off the schedule. */
  cancel(entry: TickerEntry): void {
    const i = entry.slot;
    if (i < 0) return;
    const last = this.#heap.pop()!;
    entry.slot = -1;
    if (last !== entry) {
      this.#heap[i] = last;
      last.slot = i;
      this.#up(i);
      this.#down(i);
    }
    if (this.#heap.length === 0) this.#disarm();
  }

  /**
   * Ticks every entry already due, if any, without waiting for the timer: a stream of
   * other work (a socket's frames read in one batch) calls this between its items, so
   * the chunks that came due meanwhile go out then, not after the whole batch.
   */
  poll(): void {
    const head = this.#heap[0];
    if (head === undefined || head.dueWall > performance.now()) return;
    this.#disarm();
    try {
      this.#run();
    } catch (error) {
      // A pacer's failing `onChunk` is thrown as from the timer, not into the caller.
      queueMicrotask(() => {
        throw error;
      });
    }
  }

  #wake = (): void => {
    this.#timer = undefined;
    this.#timerAt = Infinity;
    this.wakeups++;
    this.#run();
  };

  #run(): void {
    const now = performance.now();
    // Entries due now, taken off first: a tick reschedules its entry for its next slot.
    const due: TickerEntry[] = [];
    while (this.#heap.length > 0 && this.#heap[0]!.dueWall <= now) {
      const e = this.#heap[0]!;
      this.cancel(e);
      due.push(e);
    }
    let failure: { error: unknown } | undefined;
    for (const e of due) {
      try {
        e.tick();
      } catch (error) {
        // One pacer's failing `onChunk` must not stop the others: it is thrown after.
        failure ??= { error };
      }
    }
    this.#arm();
    if (failure) throw failure.error;
  }

  #arm(): void {
    const head = this.#heap[0];
    if (head === undefined) return this.#disarm();
    if (this.#timer !== undefined && this.#timerAt <= head.dueWall) return;
    this.#disarm();
    this.#timerAt = head.dueWall;
    const wait = head.dueWall - performance.now();
    this.#timer = setTimeout(this.#wake, wait > 0 ? wait : 0);
  }

  #disarm(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerAt = Infinity;
  }

  #up(i: number): void {
    const h = this.#heap;
    const e = h[i]!;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (h[p]!.dueWall <= e.dueWall) break;
      h[i] = h[p]!;
      h[i]!.slot = i;
      i = p;
    }
    h[i] = e;
    e.slot = i;
  }

  #down(i: number): void {
    const h = this.#heap;
    const n = h.length;
    const e = h[i]!;
    while (true) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && h[r]!.dueWall < h[l]!.dueWall ? r : l;
      if (h[c]!.dueWall >= e.dueWall) break;
      h[i] = h[c]!;
      h[i]!.slot = i;
      i = c;
    }
    h[i] = e;
    e.slot = i;
  }
}

/** The ticker every pacer on a real clock uses. */
export const realTimeTicker: RealTimeTicker = new RealTimeTicker();

/**
 * Lets the event loop run (timers, sockets) before a long piece of work goes on, while
 * real-time pacers are running in this thread: work of tens of ms done in one go (a
 * finished call's measures) would hold every other call's chunks and stamp their
 * peers' frames late. Resolves at once when no pacer runs on a real clock.
 */
export function yieldToRealTime(): Promise<void> {
  if (realTimeTicker.size === 0) return Promise.resolve();
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** Paces queued audio onto a fixed chunk grid. */
export class Pacer {
  readonly chunkMs: number;
  readonly sampleRate: number;
  readonly #clock: Clock;
  readonly #silenceFill: boolean;
  readonly #onChunk: (chunk: PacedChunk) => void;
  #queue: Int16Array[] = [];
  /** Samples of `#queue[0]` already sent. */
  #offset = 0;
  #queued = 0;
  #startAt = 0;
  #next = 0;
  #cancel: (() => void) | undefined;
  #running = false;
  #waiters: (() => void)[] = [];
  /** On a real clock: its place on the shared ticker, and wall time minus clock time. */
  readonly #entry: TickerEntry | undefined;
  #wallOffset = 0;
  readonly #meter: LatenessMeter | undefined;

  constructor(options: PacerOptions) {
    this.chunkMs = options.chunkMs ?? 16;
    if (!(this.chunkMs > 0)) throw new RangeError(`Invalid chunk length ${this.chunkMs} ms`);
    this.sampleRate = options.sampleRate;
    this.#clock = options.clock;
    this.#silenceFill = options.silenceFill ?? true;
    this.#onChunk = options.onChunk;
    if (!this.#clock.simulated) {
      this.#entry = { dueWall: 0, slot: -1, tick: () => this.#tick() };
      let meter = latenessByClock.get(this.#clock);
      if (!meter) latenessByClock.set(this.#clock, meter = new LatenessMeter({ recent: false }));
      this.#meter = meter;
    }
  }

  /**
   * Starts the grid now (the first chunk goes out at once), or at `atMs`: in the past
   * (audio that arrived while this thread was busy), the slots since then are due and go
   * out at once, each with its own `dueAt`; in the future, the first waits for it.
   */
  start(atMs?: CallTime): void {
    if (this.#running) return;
    this.#running = true;
    const now = this.#clock.now();
    this.#startAt = atMs ?? now;
    this.#wallOffset = performance.now() - now;
    this.#next = 0;
    this.#tick();
  }

  /** Stops sending; queued audio stays queued (and `drained` waiters keep waiting). */
  stop(): void {
    if (this.#running && this.#silenceFill && !this.#clock.simulated) {
      // Slots whose time had come by now: each should have been sent.
      const due = Math.floor((this.#clock.now() - this.#startAt) / this.chunkMs) + 1;
      realTimeLateness.countDue(due, this.#next);
    }
    this.#running = false;
    this.#cancel?.();
    this.#cancel = undefined;
    if (this.#entry) realTimeTicker.cancel(this.#entry);
  }

  /** Queues audio to send after what is already queued. */
  enqueue(samples: Int16Array): void {
    if (samples.length === 0) return;
    this.#queue.push(samples);
    this.#queued += samples.length;
  }

  /** Drops the queued audio (barge-in); returns how many samples were dropped. */
  clear(): number {
    const dropped = this.#queued;
    this.#queue = [];
    this.#offset = 0;
    this.#queued = 0;
    this.#wake();
    return dropped;
  }

  /** Drops the queued audio as {@link clear} does, and returns it. */
  takeQueued(): Int16Array {
    const out = new Int16Array(this.#queued);
    let at = 0;
    this.#queue.forEach((part, i) => {
      const rest = i === 0 ? part.subarray(this.#offset) : part;
      out.set(rest, at);
      at += rest.length;
    });
    this.clear();
    return out;
  }

  /** Samples queued and not yet sent. */
  get queuedSamples(): number {
    return this.#queued;
  }

  /** Resolves once nothing is queued (at once when nothing is). */
  drained(): Promise<void> {
    if (this.#queued === 0) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** First sample of chunk `k` (rounding down, so chunk sizes differ by at most one). */
  #sampleAt(k: number): number {
    return Math.floor((k * this.chunkMs * this.sampleRate) / 1000);
  }

  #tick(): void {
    this.#cancel = undefined;
    if (!this.#running) return;
    const now = this.#clock.now();
    // Send everything due (catching up after a late timer), then wait for the next slot.
    while (this.#startAt + this.#next * this.chunkMs <= now) {
      this.#send(this.#next, now);
      this.#next++;
      if (!this.#running) return;
    }
    const nextAt = this.#startAt + this.#next * this.chunkMs;
    if (this.#entry) realTimeTicker.schedule(this.#entry, nextAt + this.#wallOffset);
    else this.#cancel = this.#clock.timer(nextAt - now, () => this.#tick());
  }

  #send(k: number, now: CallTime): void {
    const size = this.#sampleAt(k + 1) - this.#sampleAt(k);
    if (this.#queued === 0 && !this.#silenceFill) return;
    // Most chunks are wholly inside one queued utterance or wholly silent: those are a
    // view of the utterance or the shared silence, not a new buffer each (every buffer
    // made counts towards the next full GC, whose pauses are most of a busy run's
    // lateness). Only a chunk across utterances, or padded at the queue's end, is new.
    const head = this.#queue[0];
    let samples: Int16Array;
    let filled = 0;
    if (head !== undefined && head.length - this.#offset >= size) {
      samples = head.subarray(this.#offset, this.#offset + size);
      filled = size;
      this.#offset += size;
      if (this.#offset === head.length) {
        this.#queue.shift();
        this.#offset = 0;
      }
    } else if (head === undefined) samples = silence(size);
    else samples = new Int16Array(size);
    while (filled < size && this.#queue.length > 0) {
      const head = this.#queue[0]!;
      const take = Math.min(size - filled, head.length - this.#offset);
      samples.set(head.subarray(this.#offset, this.#offset + take), filled);
      filled += take;
      this.#offset += take;
      if (this.#offset === head.length) {
        this.#queue.shift();
        this.#offset = 0;
      }
    }
    this.#queued -= filled;
    if (this.#meter) {
      const late = now - (this.#startAt + k * this.chunkMs);
      const wall = performance.now();
      realTimeLateness.record(late, wall);
      this.#meter.record(late, wall);
    }
    this.#onChunk({
      samples,
      index: k,
      dueAt: this.#startAt + k * this.chunkMs,
      sentAt: now,
      audioSamples: filled,
    });
    if (filled > 0 && this.#queued === 0) this.#wake();
  }

  #wake(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w();
  }
}

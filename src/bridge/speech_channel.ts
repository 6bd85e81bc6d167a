/**
 * One side's speech on the line: what it is saying now and what it has queued
 * behind that. An utterance begins when the line is free (the listener hears its
 * start, for barge-in) and is heard whole when it ends, or cut where the speaker
 * stopped or the line went dead. The channel knows nothing of the other side: the
 * call is told through the hooks.
 *
 * @module
 */
import type { Side } from "../domains/domain.ts";
import type { Turn } from "./outcome.ts";
import { type SaidUtterance, spokenPrefix, type Utterance } from "../speech/utterance.ts";
import type { Clock } from "./call.ts";

/** An utterance placed on the line, with the turn the record keeps for it. */
export interface LineUtterance {
  readonly utterance: Utterance;
  readonly turn: Turn;
  /** When the listener starts hearing it (call time, ms). */
  start: number;
  /** When it was to end, whole (a cut shows in its turn's `end_ms`). */
  end: number;
}

/** What the call does when an utterance begins and ends. */
export interface SpeechChannelHooks {
  /** The utterance begins on the line. */
  began(u: LineUtterance): void;
  /** The utterance ended: whole, or cut off (`interrupted`). */
  finished(u: LineUtterance, interrupted: boolean): void;
}

interface Entry {
  u: LineUtterance;
  cancel: () => void;
}

/** One side's speech queue. */
export class SpeechChannel {
  readonly side: Side;
  readonly #clock: Clock;
  readonly #hooks: SpeechChannelHooks;
  /** Whether utterances take time to say (else they end as they begin). */
  readonly #timed: boolean;
  #speaking: Entry | undefined;
  #queue: Entry[] = [];

  constructor(side: Side, clock: Clock, timed: boolean, hooks: SpeechChannelHooks) {
    this.side = side;
    this.#clock = clock;
    this.#timed = timed;
    this.#hooks = hooks;
  }

  /** What is being said now. */
  get speaking(): LineUtterance | undefined {
    return this.#speaking?.u;
  }

  /** When everything said and queued is out. */
  busyUntil(now: number = this.#clock.now()): number {
    return Math.max(now, this.#speaking?.u.end ?? now, ...this.#queue.map((e) => e.u.end));
  }

  /** How long `utterance` occupies the line. */
  lineDurationMs(utterance: Utterance): number {
    return this.#timed ? utterance.durationMs : 0;
  }

  /**
   * The turn an utterance would get if queued now (start when the line is free), for
   * the call to record before it decides to queue it. `at`: it began then (audio a
   * remote end already heard), or when the line was free after that.
   */
  plan(utterance: Utterance, at?: number): Turn {
    const start = at === undefined ? this.busyUntil() : this.busyUntil(at);
    return {
      speaker: this.side,
      text: utterance.text,
      start_ms: start,
      end_ms: start + this.lineDurationMs(utterance),
      ...(utterance.voice ? { voice: utterance.voice } : {}),
    };
  }

  /** Queues the utterance with its planned turn; it begins at once when the line is free. */
  say(utterance: Utterance, turn: Turn): LineUtterance {
    const now = this.#clock.now();
    const u: LineUtterance = { utterance, turn, start: turn.start_ms, end: turn.end_ms };
    const entry: Entry = { u, cancel: () => {} };
    this.#queue.push(entry);
    // Begin at once when the line is free, so the speaker's own timers set after
    // `say` (e.g. "when my prompt ends") fire after the listener has heard it.
    if (u.start <= now) this.#begin(entry);
    else entry.cancel = this.#clock.timer(u.start - now, () => this.#begin(entry));
    return u;
  }

  #begin(entry: Entry): void {
    this.#queue = this.#queue.filter((q) => q !== entry);
    this.#speaking = entry;
    this.#hooks.began(entry.u);
    entry.cancel = this.#clock.timer(
      entry.u.end - this.#clock.now(),
      () => this.#finish(entry, false),
    );
  }

  #finish(entry: Entry, interrupted: boolean): void {
    if (this.#speaking === entry) this.#speaking = undefined;
    this.#hooks.finished(entry.u, interrupted);
  }

  /** Cuts `u` at `now`: the words said so far stay in its turn. */
  #cut(u: LineUtterance, now: number): void {
    u.turn.text = spokenPrefix(u.utterance.text, now - u.start, u.utterance.durationMs);
    u.turn.end_ms = now;
    u.turn.interrupted = true;
  }

  /**
   * Barge-in: what is queued is dropped (its turns are returned, never said) and the
   * utterance in progress is cut now; the listener hears the words said so far.
   */
  stop(): Turn[] {
    const dropped = this.#dropQueue();
    const entry = this.#speaking;
    if (!entry) return dropped;
    entry.cancel();
    this.#cut(entry.u, this.#clock.now());
    this.#finish(entry, true);
    return dropped;
  }

  /**
   * The line went dead: what is queued is unsaid, what is being said is cut where it
   * stood. Returns the unsaid turns (including a cut utterance with no whole word)
   * and the cut utterance the listener heard part of, if any.
   */
  hangUp(): { unsaid: Turn[]; heard?: LineUtterance } {
    const now = this.#clock.now();
    const entry = this.#speaking;
    let heard: LineUtterance | undefined;
    const unsaid: Turn[] = [];
    if (entry) {
      entry.cancel();
      if (now < entry.u.end) {
        this.#cut(entry.u, now);
        if (entry.u.turn.text === "") unsaid.push(entry.u.turn);
        else heard = entry.u;
      }
    }
    unsaid.push(...this.#dropQueue());
    return heard ? { unsaid, heard } : { unsaid };
  }

  #dropQueue(): Turn[] {
    const dropped = this.#queue.map((q) => {
      q.cancel();
      return q.u.turn;
    });
    this.#queue = [];
    return dropped;
  }
}

/**
 * What `say` returns: the speaker learns when its words are out, once the utterance
 * is placed on the line (at once in text calls; after synthesis in audio calls).
 */
export class PendingSaid implements SaidUtterance {
  readonly #clock: Clock;
  #placed: LineUtterance | undefined;
  #waiting: { fn: () => void; cancel: () => void; cancelled: boolean }[] = [];

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** The utterance is on the line: waiting speakers are timed to its end. */
  place(u: LineUtterance): void {
    this.#placed = u;
    for (const w of this.#waiting) {
      if (!w.cancelled) w.cancel = this.#clock.timer(u.end - this.#clock.now(), w.fn);
    }
    this.#waiting = [];
  }

  get end(): number | undefined {
    return this.#placed?.end;
  }

  whenOut(fn: () => void): () => void {
    if (this.#placed) return this.#clock.timer(this.#placed.end - this.#clock.now(), fn);
    const w = { fn, cancel: () => {}, cancelled: false };
    this.#waiting.push(w);
    return () => {
      w.cancelled = true;
      w.cancel();
    };
  }
}

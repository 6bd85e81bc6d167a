/**
 * The bounds on how much a peer may send faster than a call can use it, shared by the
 * wire mappings (`./rtvi_audio.ts`, `./twilio_call.ts`, `./rtvi.ts`). Past one, the
 * trial ends with `protocol_error` at once, naming the bound: a peer that floods must
 * not make callbench hold gigabytes, nor turn a trial into minutes of nothing.
 *
 * @module
 */
import type { Clock } from "../bridge/call.ts";

/**
 * Audio a peer may send ahead of real time, ms: a bot that sends its whole reply as
 * fast as its TTS makes it stays far below; one that sends hours in seconds does not.
 */
export const MAX_AUDIO_AHEAD_MS = 60_000;
/** Audio one turn may hold, ms (a turn this long is an agent that never stops). */
export const MAX_TURN_AUDIO_MS = 120_000;
/** Each audio frame counts as at least this much against {@link MAX_AUDIO_AHEAD_MS} (empty frames too). */
export const MIN_FRAME_MS = 10;

/**
 * A leaky bucket on the call's clock: it holds what was added, less `perSecond` for
 * every second since; `add` says whether it still holds no more than `capacity`.
 */
export class LeakyBucket {
  readonly #clock: Clock;
  readonly #capacity: number;
  readonly #perMs: number;
  #level = 0;
  #at: number | undefined;

  constructor(clock: Clock, capacity: number, perSecond: number) {
    this.#clock = clock;
    this.#capacity = capacity;
    this.#perMs = perSecond / 1000;
  }

  /** Adds `amount`; false once the bucket holds more than its capacity. */
  add(amount: number): boolean {
    const now = this.#clock.now();
    if (this.#at !== undefined) {
      this.#level = Math.max(0, this.#level - (now - this.#at) * this.#perMs);
    }
    this.#at = now;
    this.#level += amount;
    return this.#level <= this.#capacity;
  }

  /** What it holds now. */
  get level(): number {
    const now = this.#clock.now();
    return this.#at === undefined ? 0 : Math.max(0, this.#level - (now - this.#at) * this.#perMs);
  }
}

/** An audio bucket: ms of audio ahead of real time, {@link MAX_AUDIO_AHEAD_MS} at most. */
export function audioAheadBucket(clock: Clock): LeakyBucket {
  return new LeakyBucket(clock, MAX_AUDIO_AHEAD_MS, 1000);
}

/** What exceeding the audio bucket is called in an error message. */
export const AUDIO_AHEAD_EXCEEDED =
  `sent audio faster than real time (more than ${MAX_AUDIO_AHEAD_MS} ms ahead)`;
/** What exceeding a turn's audio is called in an error message. */
export const TURN_AUDIO_EXCEEDED = `turn exceeded ${MAX_TURN_AUDIO_MS} ms of audio`;

/** Tool calls a peer may ask for at once... */
export const MAX_TOOL_CALL_BURST = 100;
/** ...and a second, on average, beyond that burst. */
export const TOOL_CALLS_PER_SECOND = 10;
/**
 * Characters of tool-call arguments a peer may send over a call: the call keeps every
 * tool call it runs until the record is written, and a record keeps 8 Mi characters of
 * turns and tool values in all.
 */
export const MAX_TOOL_ARGS_CHARS = 8 * 1024 * 1024;

/** The bounds on a peer's tool calls: their rate and their arguments' size over the call. */
export class ToolCallBounds {
  readonly #rate: LeakyBucket;
  #argsChars = 0;

  constructor(clock: Clock) {
    this.#rate = new LeakyBucket(clock, MAX_TOOL_CALL_BURST, TOOL_CALLS_PER_SECOND);
  }

  /** One more tool call with `argsChars` characters of arguments: what it exceeds, if anything. */
  take(argsChars: number): string | undefined {
    this.#argsChars += argsChars;
    if (!this.#rate.add(1)) {
      return `made tool calls faster than ${TOOL_CALLS_PER_SECOND} a second (beyond ${MAX_TOOL_CALL_BURST} at once)`;
    }
    if (this.#argsChars > MAX_TOOL_ARGS_CHARS) {
      return `sent more than ${MAX_TOOL_ARGS_CHARS} characters of tool-call arguments`;
    }
    return undefined;
  }
}

/**
 * Characters of traces and notes (`server-message` traces, `action-applied`, non-fatal
 * `error`s, function calls the bot runs itself) a peer may make a call keep; each
 * counts at least {@link MIN_NOTE_CHARS}.
 */
export const MAX_NOTES_CHARS = 8 * 1024 * 1024;
/** What one note counts at least against {@link MAX_NOTES_CHARS} (an entry's own cost). */
export const MIN_NOTE_CHARS = 64;

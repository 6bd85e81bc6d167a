/**
 * How the RTVI mapping assembles a bot's spoken turn: from `bot-output` (by
 * segment), `bot-tts-text` (words as spoken, the reference's transcript source) or
 * `bot-llm-text` (streamed tokens, for a bot that has no TTS), between
 * `bot-started-speaking` and `bot-stopped-speaking`, or from fragments less than
 * {@link FRAGMENT_GAP_MS} apart on the line's clock. A turn starts at its first
 * fragment (or `bot-started-speaking`), whenever its end is known.
 *
 * A turn is bounded: an open one that holds more than {@link MAX_TURN_TEXT_CHARS}
 * characters or {@link MAX_TURN_FRAGMENTS} fragments (an agent that never ends its
 * turn, or floods new segment ids) is dropped and `overflow` is told, once; the
 * mapping ends the trial with `protocol_error`. Nothing more is assembled after it.
 *
 * @module
 */
import type { Clock, Voice } from "../bridge/call.ts";

/**
 * Fragments that arrive without `bot-started-speaking`/`bot-stopped-speaking` around
 * them, less than this apart (on the line's clock), are one turn: a pipecat bot
 * streaming sentence by sentence pauses far less between sentences than between
 * turns, where the caller has to answer.
 */
export const FRAGMENT_GAP_MS = 700;

/** Characters one open turn may hold (a record keeps 32 Ki of a turn's text). */
export const MAX_TURN_TEXT_CHARS = 32 * 1024;
/** Fragments (`bot-output` segments, `bot-tts-text`, `bot-llm-text`) one open turn may hold. */
export const MAX_TURN_FRAGMENTS = 32 * 1024;

/**
 * One spoken turn being assembled. Its text comes from one source, the first that
 * has any: `bot-output`, `bot-tts-text`, `bot-llm-text`.
 */
interface Segment {
  outputs: Map<string | number, string>;
  tts: string[];
  llm: string[];
  voice?: Voice;
  /** Opened by `bot-started-speaking`: it ends at `bot-stopped-speaking`. */
  bracketed: boolean;
  /** Characters held (each `bot-output` segment counted by its latest text). */
  chars: number;
  /** Fragments held. */
  fragments: number;
  /** When it opened on the line's clock: its first fragment, or `bot-started-speaking`. */
  startMs: number;
}

const newSegment = (bracketed: boolean, startMs: number, llm: string[] = []): Segment => ({
  outputs: new Map(),
  tts: [],
  llm,
  bracketed,
  chars: llm.reduce((n, t) => n + t.length, 0),
  fragments: llm.length,
  startMs,
});

/** A finished turn, as the line is told it. */
export interface AssembledTurn {
  text: string;
  voice?: Voice;
  ttftMs?: number;
  /** When the turn began (its first fragment, or `bot-started-speaking`), on the line's clock. */
  startMs: number;
}

/** Assembles turns from RTVI bot events; `say` gets each finished one. */
export class TurnAssembler {
  readonly #clock: () => Clock;
  readonly #say: (turn: AssembledTurn) => void;
  readonly #overflow: (what: string) => void;
  #segment?: Segment;
  /** A turn went over its bounds: nothing more is assembled. */
  #overflowed = false;
  /** Cancels the gap timer of an unbracketed segment. */
  #cancelGap: () => void = () => {};
  /** The bot brackets its speech or speaks through TTS: LLM text alone is no turn. */
  #speaksAloud = false;
  #ttftMs?: number;

  /** `overflow` hears, once, what an open turn exceeded (e.g. `32768 characters`). */
  constructor(
    clock: () => Clock,
    say: (turn: AssembledTurn) => void,
    overflow: (what: string) => void = () => {},
  ) {
    this.#clock = clock;
    this.#say = say;
    this.#overflow = overflow;
  }

  /** `bot-started-speaking`. */
  startedSpeaking(): void {
    if (this.#overflowed) return;
    this.#speaksAloud = true;
    // LLM text streamed before the bot began speaking belongs to this turn.
    const pending = this.#segment;
    const carried = pending && !pending.bracketed && pending.outputs.size === 0 &&
        pending.tts.length === 0
      ? pending.llm
      : [];
    if (carried.length > 0) this.#segment = undefined;
    this.flush();
    const startMs = carried.length > 0 ? pending!.startMs : this.#clock().now();
    this.#segment = newSegment(true, startMs, [...carried]);
    this.#cancelGap();
  }

  /** `bot-output`. */
  output(
    text: string,
    segmentId: string | number | undefined,
    voice: Voice | undefined,
    willBeSpoken: boolean | undefined,
  ): void {
    if (this.#overflowed || (willBeSpoken === false && !this.#segment?.bracketed)) return;
    const segment = this.#open();
    // Progress updates repeat a segment's text under the same id: the last one wins.
    const id = segmentId ?? `#${segment.outputs.size}`;
    const before = segment.outputs.get(id);
    segment.outputs.set(id, text);
    if (voice) segment.voice = voice;
    this.#grew(segment, text.length - (before?.length ?? 0), before === undefined ? 1 : 0);
  }

  /** `bot-tts-started`. */
  ttsStarted(): void {
    this.#speaksAloud = true;
  }

  /** `bot-tts-text`. */
  ttsText(text: string): void {
    if (this.#overflowed) return;
    this.#speaksAloud = true;
    const segment = this.#open();
    segment.tts.push(text);
    this.#grew(segment, text.length, 1);
  }

  /** `bot-llm-text`. */
  llmText(text: string): void {
    if (this.#overflowed) return;
    const segment = this.#open();
    segment.llm.push(text);
    this.#grew(segment, text.length, 1);
  }

  /** A fragment was added: past the bounds the turn is dropped, else its gap restarts. */
  #grew(segment: Segment, chars: number, fragments: number): void {
    segment.chars += chars;
    segment.fragments += fragments;
    const over = segment.chars > MAX_TURN_TEXT_CHARS
      ? `${MAX_TURN_TEXT_CHARS} characters`
      : segment.fragments > MAX_TURN_FRAGMENTS
      ? `${MAX_TURN_FRAGMENTS} fragments`
      : undefined;
    if (over === undefined) return this.#fragmentArrived();
    this.#overflowed = true;
    this.#segment = undefined;
    this.#cancelGap();
    this.#overflow(over);
  }

  /** The LLM's time to first token, for the next turn (`metrics`). */
  set ttftMs(ms: number) {
    this.#ttftMs = ms;
  }

  /** Whether a turn is being assembled (text waiting for its end). */
  get open(): boolean {
    return this.#segment !== undefined;
  }

  /** Speaks the open segment, if it holds any text (`bot-stopped-speaking`, the end). */
  flush(): void {
    this.#cancelGap();
    const segment = this.#segment;
    this.#segment = undefined;
    if (!segment) return;
    const text = segment.outputs.size > 0
      ? joinFragments([...segment.outputs.values()])
      : segment.tts.length > 0
      ? joinFragments(segment.tts)
      : segment.llm.join("").replace(/\s+/g, " ").trim();
    if (text === "") return;
    const ttftMs = this.#ttftMs;
    this.#ttftMs = undefined;
    this.#say({
      text,
      ...(segment.voice ? { voice: segment.voice } : {}),
      ...(ttftMs !== undefined ? { ttftMs } : {}),
      startMs: segment.startMs,
    });
  }

  /** Stops the gap timer (the call is over). */
  cancel(): void {
    this.#cancelGap();
  }

  /** The segment being assembled, opened (unbracketed) if there is none. */
  #open(): Segment {
    return this.#segment ??= newSegment(false, this.#clock().now());
  }

  /** After a fragment outside brackets, the turn ends when the gap passes. */
  #fragmentArrived(): void {
    if (this.#segment?.bracketed !== false) return;
    this.#cancelGap();
    this.#cancelGap = this.#clock().timer(FRAGMENT_GAP_MS, () => {
      const segment = this.#segment;
      // LLM text of a bot that speaks aloud waits for its speech (or its brackets).
      if (
        segment && this.#speaksAloud && segment.outputs.size === 0 && segment.tts.length === 0
      ) return;
      this.flush();
    });
  }
}

/**
 * Joins spoken fragments (sentences, words) with one space between them, except
 * where a fragment already brings its own space or begins with closing punctuation
 * (`"done" + "."`, `"John" + "'s"`).
 */
export function joinFragments(parts: readonly string[]): string {
  let out = "";
  for (const part of parts) {
    if (part === "") continue;
    const glued = out === "" || /\s$/.test(out) || /^\s/.test(part) ||
      /^[.,!?;:%)\]}'\u2019\u201d\u2026]/.test(part) || /[(\[{$\u201c]$/.test(out);
    out += glued ? part : ` ${part}`;
  }
  return out.replace(/\s+/g, " ").trim();
}

/**
 * What an utterance is: its text, who is talking (the listener can tell a machine
 * from a person) and how long it takes to say. The duration comes from here and
 * nowhere else: from the audio when the utterance was synthesized, else from the
 * text (about 16 characters a second, 150 words a minute, never under 300 ms), which
 * is deterministic so a flow's timings reproduce exactly.
 *
 * @module
 */
import { durationMs as pcmDurationMs, type Pcm16 } from "../audio/pcm.ts";

/** Who is talking on the far end, as a listener can tell (flows.md). */
export type Voice = "MACHINE" | "VOICE";

/** Milliseconds per character of text-timed speech. */
export const MS_PER_CHARACTER = 60;
/** The shortest text-timed utterance. */
export const MIN_UTTERANCE_MS = 300;

/** One utterance, as the line carries it. */
export interface Utterance {
  readonly text: string;
  readonly voice?: Voice;
  /** How long it takes to say, in milliseconds. */
  readonly durationMs: number;
  /** The synthesized speech, in audio calls. */
  readonly audio?: Pcm16;
}

/** How long `text` takes to say when no audio gives the answer. */
export function textDurationMs(text: string): number {
  return Math.max(MIN_UTTERANCE_MS, Math.round(text.length * MS_PER_CHARACTER));
}

/** An utterance of `text`; its duration is the audio's when there is audio. */
export function utterance(text: string, voice?: Voice, audio?: Pcm16): Utterance {
  return {
    text,
    ...(voice ? { voice } : {}),
    durationMs: audio ? pcmDurationMs(audio) : textDurationMs(text),
    ...(audio ? { audio } : {}),
  };
}

/**
 * The words of `text` spoken in the first `elapsedMs` of an utterance lasting
 * `totalMs` (a cut-off utterance); whole words only.
 */
export function spokenPrefix(
  text: string,
  elapsedMs: number,
  totalMs: number = textDurationMs(text),
): string {
  if (elapsedMs >= totalMs) return text;
  const chars = Math.floor((Math.max(0, elapsedMs) / totalMs) * text.length);
  const cut = text.slice(0, chars);
  const lastSpace = cut.lastIndexOf(" ");
  return lastSpace > 0 ? cut.slice(0, lastSpace) : "";
}

/** What a speaker learns of its own utterance once the line has taken it. */
export interface SaidUtterance {
  /** When the words end on the line, whole, once known (at once in text calls). */
  readonly end?: number;
  /**
   * Runs `fn` when the words are out (at the utterance's end as placed on the line,
   * which in audio calls is known only once it is synthesized). Returns a cancel.
   */
  whenOut(fn: () => void): () => void;
}

/** Runs `fn` after `ms` unless cancelled (a call clock's `timer`). */
export type Timer = (ms: number, fn: () => void) => () => void;

/**
 * Runs `fn` once the speaker's words are out: as the line tells, else (a line that
 * does not time speech) after the text's duration. Returns a cancel.
 */
export function afterSaid(
  said: SaidUtterance | void,
  timer: Timer,
  text: string,
  fn: () => void,
): () => void {
  return said ? said.whenOut(fn) : timer(textDurationMs(text), fn);
}

/**
 * When the speaker's words will be out, read when asked: as the line placed them,
 * else (a line that does not time speech) `now` plus the text's duration.
 */
export function saidEnd(said: SaidUtterance | void, now: number, text: string): () => number {
  const estimate = now + textDurationMs(text);
  return () => (said ? said.end ?? Infinity : estimate);
}

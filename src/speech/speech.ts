/**
 * The speech seams: a TTS provider turns text into PCM16, an STT provider turns an
 * audio turn into text. Both return failures as data (`tts_error`, `stt_error`) so
 * the bridge can end one trial with that kind and carry on with the run.
 *
 * @module
 */
import { z } from "zod";
import type { Pcm16 } from "../audio/pcm.ts";

/** Why synthesis or transcription failed, as the trial record will carry it. */
export const speechErrorSchema = z.object({
  kind: z.enum(["tts_error", "stt_error"]).describe("Which provider failed"),
  provider: z.string().describe('The provider\'s name, e.g. "flite" or "openai"'),
  message: z.string().describe("What went wrong, in one line"),
  status: z.number().int().optional().describe("The HTTP status, when a server answered"),
});
/** Why synthesis or transcription failed (see `speechErrorSchema`). */
// The type is generated from the schema above (`deno task schema`): the package
// exports it without naming zod's types, and a test holds the two the same.
export type { SpeechError } from "../../schemas/types.ts";
import type { SpeechError } from "../../schemas/types.ts";

/** Synthesized speech, or why there is none. */
export type TtsResult =
  | { ok: true; audio: Pcm16; /** Served from the cache. */ cached?: boolean }
  | { ok: false; error: SpeechError };

/** A transcript, or why there is none. */
export type SttResult = { ok: true; text: string } | { ok: false; error: SpeechError };

/** How a record names a provider (and what goes into the config hash). */
export interface SpeechProviderInfo {
  /** "flite", "openai", "transcript". */
  provider: string;
  /** The provider's model, when it has one (openai). */
  model?: string;
  /** The voice spoken (TTS). */
  voice?: string;
  /** Output (TTS) or expected input (STT) rate, when fixed. */
  sampleRate?: number;
}

/** What to say. */
export interface TtsRequest {
  /** The words, as the speaker says them. */
  text: string;
  /** The provider's default voice unless given (one voice per participant). */
  voice?: string;
  /**
   * The speaker's language (BCP 47: `en`, `en-GB`, `es-MX`), when known. A provider that
   * cannot speak it answers a `tts_error` saying so (never another language's speech);
   * one whose voices speak any language (openai) goes by the text.
   */
  language?: string;
  /** Stops the synthesis (the result is then a `tts_error`). */
  signal?: AbortSignal;
}

/** The primary language subtag of a BCP 47 tag, lowercased (`en-GB` -> `en`): ISO 639's code. */
export function primaryLanguage(tag: string): string {
  return tag.split("-")[0]!.toLowerCase();
}

/** Text to speech. `synthesize` never throws: failures are `{ ok: false }`. */
export interface TtsProvider {
  /** How records name it. */
  readonly info: SpeechProviderInfo;
  /** The request's words as PCM16 audio, or why not. */
  synthesize(request: TtsRequest): Promise<TtsResult>;
  /** Releases what it holds (a Worker, a cache). */
  close(): Promise<void>;
}

/** An audio turn to transcribe. */
export interface SttRequest {
  /** The turn's audio. */
  audio: Pcm16;
  /** A language hint (ISO 639-1), when known. */
  language?: string;
  /** Words to expect (names, codes), passed as the provider's prompt. */
  prompt?: string;
  /** Stops the transcription (the result is then an `stt_error`). */
  signal?: AbortSignal;
}

/** Speech to text. `transcribe` never throws: failures are `{ ok: false }`. */
export interface SttProvider {
  /** How records name it. */
  readonly info: SpeechProviderInfo;
  /** The turn's words, or why not. */
  transcribe(request: SttRequest): Promise<SttResult>;
}

/** A `tts_error`. */
export function ttsError(provider: string, message: string, status?: number): TtsResult {
  return {
    ok: false,
    error: { kind: "tts_error", provider, message, ...(status !== undefined ? { status } : {}) },
  };
}

/** An `stt_error`. */
export function sttError(provider: string, message: string, status?: number): SttResult {
  return {
    ok: false,
    error: { kind: "stt_error", provider, message, ...(status !== undefined ? { status } : {}) },
  };
}

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
export type SpeechError = z.infer<typeof speechErrorSchema>;

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
  model?: string;
  voice?: string;
  /** Output (TTS) or expected input (STT) rate, when fixed. */
  sampleRate?: number;
}

export interface TtsRequest {
  text: string;
  /** The provider's default voice unless given (one voice per participant). */
  voice?: string;
  signal?: AbortSignal;
}

/** Text to speech. `synthesize` never throws: failures are `{ ok: false }`. */
export interface TtsProvider {
  readonly info: SpeechProviderInfo;
  synthesize(request: TtsRequest): Promise<TtsResult>;
  close(): Promise<void>;
}

export interface SttRequest {
  audio: Pcm16;
  /** A language hint (ISO 639-1), when known. */
  language?: string;
  /** Words to expect (names, codes), passed as the provider's prompt. */
  prompt?: string;
  signal?: AbortSignal;
}

/** Speech to text. `transcribe` never throws: failures are `{ ok: false }`. */
export interface SttProvider {
  readonly info: SpeechProviderInfo;
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

/**
 * The guard every audio payload passes on the wire, whatever carries it (a pipecat
 * protobuf `AudioRawFrame`, an RTVI `raw-audio` message, a Twilio `media` message):
 * a size cap, base64 validity, and for PCM16 a known sample rate, a channel count and
 * a byte count that holds whole sample frames. A bad payload is a {@link AudioProblem}
 * (data, to become an `error-response`), never an exception that ends a session.
 *
 * @module
 */
import { z } from "zod";

/**
 * Sample rates accepted for PCM16 audio, in Hz: the telephone, wideband and studio
 * rates pipecat bots and clients use. Anything else (0 included, which is what an
 * unset protobuf field reads as) is refused rather than guessed.
 */
export const AUDIO_SAMPLE_RATES: readonly number[] = Object.freeze([
  8000,
  11025,
  12000,
  16000,
  22050,
  24000,
  32000,
  44100,
  48000,
]);

/** PCM audio has one or two interleaved channels. */
export const MAX_AUDIO_CHANNELS = 2;

/**
 * The most decoded audio bytes one frame or message may carry: 512 KiB, which is
 * 2.7 s of 48 kHz stereo PCM16, 10.9 s of 24 kHz mono, or 65 s of 8 kHz µ-law. Its
 * base64 text (699,052 characters) plus an envelope stays under the 1 MiB frame cap of
 * `framing.ts`. Pipecat's eval harness sends 1 s slices, far below it.
 */
export const MAX_AUDIO_PAYLOAD_BYTES = 512 * 1024;

/** Why an audio payload was refused. */
export const AudioProblemCodeSchema = z.enum([
  /** Not the documented shape: wrong or missing fields, wrong types. */
  "malformed",
  /** The bytes end inside a field. */
  "truncated",
  /** More than {@link MAX_AUDIO_PAYLOAD_BYTES}. */
  "oversized",
  /** Not whole PCM16 sample frames (2 bytes × channels). */
  "odd_length",
  /** A sample rate outside {@link AUDIO_SAMPLE_RATES}. */
  "bad_sample_rate",
  /** A channel count other than 1 or 2. */
  "bad_channels",
  /** Not padded standard base64. */
  "bad_base64",
]).describe("Why an audio payload on the wire was refused");
export type AudioProblemCode = z.infer<typeof AudioProblemCodeSchema>;

/** A refused audio payload: a code to branch on and a message for an `error-response`. */
export const AudioProblemSchema = z.object({
  code: AudioProblemCodeSchema,
  message: z.string().describe("One line, without a trailing period"),
});
export type AudioProblem = z.infer<typeof AudioProblemSchema>;

/** A value, or the problem that prevented it. */
export type AudioResult<T> = { ok: true; value: T } | { ok: false; problem: AudioProblem };

/** PCM16 little-endian audio with its format, as every decoder here returns it. */
export interface PcmAudio {
  /** Interleaved signed 16-bit little-endian samples. */
  pcm: Uint8Array;
  sampleRate: number;
  numChannels: number;
}

/** Thrown by builders given audio they must not put on the wire (a caller's bug). */
export class AudioPayloadError extends Error {
  readonly problem: AudioProblem;
  constructor(problem: AudioProblem) {
    super(problem.message);
    this.name = "AudioPayloadError";
    this.problem = problem;
  }
}

/** An {@link AudioResult} failure. */
export function audioProblem(code: AudioProblemCode, message: string): AudioResult<never> {
  return { ok: false, problem: { code, message } };
}

/** Checks PCM16 audio and its format against the guard. */
export function checkPcm(
  pcm: Uint8Array,
  sampleRate: number,
  numChannels: number,
  maxBytes = MAX_AUDIO_PAYLOAD_BYTES,
): AudioResult<PcmAudio> {
  if (!AUDIO_SAMPLE_RATES.includes(sampleRate)) {
    return audioProblem(
      "bad_sample_rate",
      `unsupported sample rate ${sampleRate} Hz (one of ${AUDIO_SAMPLE_RATES.join(", ")})`,
    );
  }
  if (!Number.isInteger(numChannels) || numChannels < 1 || numChannels > MAX_AUDIO_CHANNELS) {
    return audioProblem("bad_channels", `unsupported channel count ${numChannels} (1 or 2)`);
  }
  if (pcm.length > maxBytes) return audioProblem("oversized", tooLarge(pcm.length, maxBytes));
  const frameBytes = 2 * numChannels;
  if (pcm.length % frameBytes !== 0) {
    return audioProblem(
      "odd_length",
      `${pcm.length} bytes of PCM16 is not a whole number of ${frameBytes}-byte sample frames`,
    );
  }
  return { ok: true, value: { pcm, sampleRate, numChannels } };
}

/** Like {@link checkPcm}, for builders: throws {@link AudioPayloadError}. */
export function assertPcm(pcm: Uint8Array, sampleRate: number, numChannels: number): void {
  const checked = checkPcm(pcm, sampleRate, numChannels);
  if (!checked.ok) throw new AudioPayloadError(checked.problem);
}

/**
 * Decodes padded standard base64 (RFC 4648 §4, as Python's `b64encode` and `btoa`
 * write it). The length is checked before decoding, so an oversized payload costs
 * nothing to refuse.
 */
export function decodeBase64(
  text: string,
  maxBytes = MAX_AUDIO_PAYLOAD_BYTES,
): AudioResult<Uint8Array> {
  const maxChars = Math.ceil(maxBytes / 3) * 4;
  if (text.length > maxChars) {
    return audioProblem("oversized", tooLarge(Math.floor(text.length / 4) * 3, maxBytes));
  }
  if (text.length % 4 !== 0) {
    return audioProblem("bad_base64", "audio is not padded standard base64");
  }
  let bytes: Uint8Array;
  try {
    // Strict: the standard alphabet, padding only at the end, zero padding bits.
    bytes = Uint8Array.fromBase64(text, { lastChunkHandling: "strict" });
  } catch {
    return audioProblem("bad_base64", "audio is not padded standard base64");
  }
  // The decoder skips ASCII whitespace, which padded base64 has none of: any would leave
  // fewer bytes than the text's length makes (a whole quantum of 3 at least).
  const pad = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
  if (bytes.length !== (text.length / 4) * 3 - pad) {
    return audioProblem("bad_base64", "audio is not padded standard base64");
  }
  if (bytes.length > maxBytes) return audioProblem("oversized", tooLarge(bytes.length, maxBytes));
  return { ok: true, value: bytes };
}

/** Padded standard base64 of `bytes`. */
export function encodeBase64(bytes: Uint8Array): string {
  return bytes.toBase64();
}

function tooLarge(size: number, limit: number): string {
  return `audio payload too large: ${size} bytes (limit ${limit})`;
}

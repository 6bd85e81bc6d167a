/**
 * The flite TTS Worker: synthesizes one utterance per message, off the main thread so
 * paced audio keeps its timing (synthesis on the main thread delays chunks).
 *
 * In: `{ id, voice, text, dir, rate }`. Out: `{ id, ok: true, samples, sampleRate, ms,
 * audioMs }` (samples transferred) or `{ id, ok: false, message }`. The audio comes
 * ready to play: flite's leading and trailing near-silence cut and resampled to `rate`
 * here, also off the main thread (the cut alone is a quarter of a millisecond per 3 s
 * of speech, and ten times that where the main thread's level code is polymorphic).
 *
 * @module
 */
/// <reference lib="deno.worker" />
import { isFliteVoice, loadFlite, silenceWasiWarning, synthesizeWithFlite } from "./_flite_wasi.ts";
import { trimSilence } from "../audio/energy.ts";
import { resample } from "../audio/resample.ts";
import { quoteInput } from "../problem/quote.ts";

silenceWasiWarning();

/** A request to the Worker. */
export interface FliteJob {
  id: number;
  voice: string;
  text: string;
  dir: string;
  /** The rate the audio is wanted at. */
  rate: number;
}

/** The Worker's answer. */
export type FliteAnswer =
  | {
    id: number;
    ok: true;
    /** Trimmed, at the job's rate. */
    samples: Int16Array;
    sampleRate: number;
    /** Synthesis time. */
    ms: number;
    /** Length of flite's output before the cut. */
    audioMs: number;
  }
  | { id: number; ok: false; message: string };

self.onmessage = async (event: MessageEvent<FliteJob>) => {
  const { id, voice, text, dir, rate } = event.data;
  const started = performance.now();
  try {
    if (!isFliteVoice(voice)) throw new Error(`Unknown flite voice ${quoteInput(voice)}`);
    const audio = await synthesizeWithFlite(await loadFlite(), voice, text, dir);
    const ms = performance.now() - started;
    // Flite's leading and trailing near-silence (a fading tail of 150-290 ms) is cut,
    // so the utterance ends where its speech ends by energy (src/audio/energy.ts).
    let samples = trimSilence(audio.samples, audio.sampleRate);
    if (audio.sampleRate !== rate) samples = resample(samples, audio.sampleRate, rate);
    // Its own buffer, whole: the one transferred.
    if (samples.byteOffset !== 0 || samples.byteLength !== samples.buffer.byteLength) {
      samples = samples.slice();
    }
    const answer: FliteAnswer = {
      id,
      ok: true,
      samples,
      sampleRate: rate,
      ms,
      audioMs: (audio.samples.length * 1000) / audio.sampleRate,
    };
    self.postMessage(answer, [samples.buffer as ArrayBuffer]);
  } catch (e) {
    const answer: FliteAnswer = { id, ok: false, message: (e as Error).message ?? String(e) };
    self.postMessage(answer);
  }
};

/**
 * The flite TTS Worker: synthesizes one utterance per message, off the main thread so
 * paced audio keeps its timing (synthesis on the main thread delays chunks).
 *
 * In: `{ id, voice, text, dir }`. Out: `{ id, ok: true, samples, sampleRate, ms }`
 * (samples transferred) or `{ id, ok: false, message }`.
 *
 * @module
 */
/// <reference lib="deno.worker" />
import { isFliteVoice, loadFlite, silenceWasiWarning, synthesizeWithFlite } from "./_flite_wasi.ts";

silenceWasiWarning();

/** A request to the Worker. */
export interface FliteJob {
  id: number;
  voice: string;
  text: string;
  dir: string;
}

/** The Worker's answer. */
export type FliteAnswer =
  | { id: number; ok: true; samples: Int16Array; sampleRate: number; ms: number }
  | { id: number; ok: false; message: string };

self.onmessage = async (event: MessageEvent<FliteJob>) => {
  const { id, voice, text, dir } = event.data;
  const started = performance.now();
  try {
    if (!isFliteVoice(voice)) throw new Error(`Unknown flite voice "${voice}"`);
    const audio = await synthesizeWithFlite(await loadFlite(), voice, text, dir);
    const answer: FliteAnswer = {
      id,
      ok: true,
      samples: audio.samples,
      sampleRate: audio.sampleRate,
      ms: performance.now() - started,
    };
    self.postMessage(answer, [audio.samples.buffer as ArrayBuffer]);
  } catch (e) {
    const answer: FliteAnswer = { id, ok: false, message: (e as Error).message ?? String(e) };
    self.postMessage(answer);
  }
};

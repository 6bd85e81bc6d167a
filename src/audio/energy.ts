/**
 * Where speech is in an utterance, by energy: the definition every audio measure uses
 * for the caller's end of speech and the agent's start (PROTOCOL.md, "Audio measures").
 *
 * The audio is cut into 10 ms frames. The utterance's active level is the mean power of
 * its active frames (frames within {@link ACTIVE_GATE_DB} of its loudest one). A frame is
 * speech when its power is at most {@link BELOW_ACTIVE_DB} below that level (and above
 * {@link FLOOR_DBFS}). Speech starts at the start of the first such frame and ends at the
 * end of the last. Unlike a VAD's decisions this has no hangover, and low-level noise or
 * a synthesizer's fading tail well below the voice does not count.
 *
 * @module
 */
import { meanPower16, powerDbfs } from "./pcm.ts";

/** Frame length of the energy measure, ms. */
export const ENERGY_FRAME_MS = 10;
/** A frame is speech when at most this far below the utterance's active level, dB. */
export const BELOW_ACTIVE_DB = 35;
/** Frames within this of the loudest frame make the active level, dB. */
export const ACTIVE_GATE_DB = 20;
/** Nothing quieter than this is speech, dBFS (dither, digital silence). */
export const FLOOR_DBFS = -70;

/** Where speech is in an utterance, ms from its first sample. */
export interface SpeechSpan {
  startMs: number;
  endMs: number;
  /** The utterance's active level, dBFS. */
  levelDb: number;
}

/** Mean power of each 10 ms frame, in dBFS (full scale = 32768); the last frame may be short. */
export function frameLevels(samples: Int16Array, sampleRate: number): Float64Array {
  const n = Math.round((sampleRate * ENERGY_FRAME_MS) / 1000);
  const frames = Math.ceil(samples.length / n);
  const out = new Float64Array(frames);
  for (let f = 0; f < frames; f++) {
    out[f] = powerDbfs(meanPower16(samples, f * n, Math.min(samples.length, (f + 1) * n)));
  }
  return out;
}

/** The utterance's speech span by energy; undefined when nothing in it is speech. */
export function speechSpan(samples: Int16Array, sampleRate: number): SpeechSpan | undefined {
  const levels = frameLevels(samples, sampleRate);
  let peak = -Infinity;
  for (const l of levels) peak = Math.max(peak, l);
  if (!(peak > FLOOR_DBFS)) return undefined;
  let sum = 0;
  let count = 0;
  for (const l of levels) {
    if (l >= peak - ACTIVE_GATE_DB) {
      sum += 10 ** (l / 10);
      count++;
    }
  }
  const levelDb = 10 * Math.log10(sum / count);
  const threshold = Math.max(FLOOR_DBFS, levelDb - BELOW_ACTIVE_DB);
  let first = -1;
  let last = -1;
  for (let f = 0; f < levels.length; f++) {
    if (levels[f]! >= threshold) {
      if (first < 0) first = f;
      last = f;
    }
  }
  const frameSamples = Math.round((sampleRate * ENERGY_FRAME_MS) / 1000);
  const ms = (s: number) => (Math.min(s, samples.length) * 1000) / sampleRate;
  return {
    startMs: ms(first * frameSamples),
    endMs: ms((last + 1) * frameSamples),
    levelDb,
  };
}

/**
 * The utterance without its leading and trailing near-silence (what {@link speechSpan}
 * does not count as speech), cut on 10 ms frame bounds; all of it when nothing is speech.
 */
export function trimSilence(samples: Int16Array, sampleRate: number): Int16Array {
  const span = speechSpan(samples, sampleRate);
  if (!span) return samples;
  const from = Math.round((span.startMs * sampleRate) / 1000);
  const to = Math.round((span.endMs * sampleRate) / 1000);
  return from === 0 && to === samples.length ? samples : samples.slice(from, to);
}

/**
 * Seeded noise and mixing at a signal-to-noise ratio: a trial's line noise reproduces
 * from the run's seed. Noise is Gaussian white noise from `mulberry32` (Box-Muller), or
 * any recording you pass (looped to length).
 *
 * @example
 * ```ts
 * const noisy = mixAtSnr(speech, 15, { seed: 42 }); // speech power / noise power = 15 dB
 * ```
 *
 * @module
 */
import { mulberry32 } from "../random/mulberry32.ts";
import { clip16, meanPower } from "./pcm.ts";

/** `length` samples of Gaussian white noise with the given RMS (int16 units). */
export function whiteNoise(length: number, rms: number, seed: number): Int16Array {
  const rand = mulberry32(seed);
  const out = new Int16Array(length);
  for (let i = 0; i < length; i += 2) {
    // Box-Muller: two independent normals from two uniforms (1 - u avoids log(0)).
    const r = Math.sqrt(-2 * Math.log(1 - rand()));
    const t = 2 * Math.PI * rand();
    out[i] = clip16(rms * r * Math.cos(t));
    if (i + 1 < length) out[i + 1] = clip16(rms * r * Math.sin(t));
  }
  return out;
}

export interface MixOptions {
  /** Seed for white noise (used when `noise` is not given). Default 1. */
  seed?: number;
  /** A noise recording to use instead of white noise; looped to the signal's length. */
  noise?: Int16Array;
  /**
   * The signal power the SNR refers to (int16 units squared). Default: the mean power
   * of the whole signal; pass the power of the speech alone when it has long pauses.
   */
  signalPower?: number;
}

/** `signal` plus noise scaled so signal power / noise power is `snrDb`; clipped to int16. */
export function mixAtSnr(signal: Int16Array, snrDb: number, options: MixOptions = {}): Int16Array {
  const ps = options.signalPower ?? meanPower(signal);
  const target = ps / 10 ** (snrDb / 10);
  let noise: Int16Array;
  let gain = 1;
  if (options.noise) {
    if (options.noise.length === 0) throw new RangeError("Empty noise recording");
    noise = options.noise;
    const pn = meanPower(noise);
    gain = pn === 0 ? 0 : Math.sqrt(target / pn);
  } else {
    noise = whiteNoise(signal.length, Math.sqrt(target), options.seed ?? 1);
  }
  const out = new Int16Array(signal.length);
  for (let i = 0; i < signal.length; i++) {
    out[i] = clip16(signal[i]! + gain * noise[i % noise.length]!);
  }
  return out;
}

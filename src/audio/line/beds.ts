/**
 * Generated noise beds (no recordings): coloured noise, babble, a street, a car, a
 * café and an office, each a seeded loop of {@link BED_LOOP_S} seconds at unit mean
 * power (float, int16 units). They are built from Gaussian noise shaped by filters and
 * envelopes:
 *
 * - `white`, `pink` (a three-pole approximation of 1/f), `brown` (leaky integration);
 * - `babble`: six flite voices saying seeded sentences (made once per thread by
 *   `prepareBabble`, src/speech/babble.ts, and handed over with {@link setBabbleTalkers}),
 *   each at a seeded offset and a level within 6 dB of the others;
 * - `street`: traffic rumble (brown noise below 800 Hz), pink hiss and vehicles passing
 *   (a slow ±3 dB swell);
 * - `car`: engine and road rumble below 250 Hz with engine harmonics near 35 Hz, and
 *   tyre hiss;
 * - `noisy-cafe`: twelve talkers of speech-shaped noise (200–3000 Hz, peak near 500 Hz,
 *   in talk spurts of 1–3 s with pauses, modulated at a syllable rate of 3–6 Hz), pink
 *   noise and the clatter of dishes (short decaying bursts near 3 kHz);
 * - `office`: ventilation (pink below 4 kHz), mains hum at 50 Hz and harmonics,
 *   keyboard clicks and three distant talkers.
 *
 * Beds are cached per bed, rate and variant (a trial's seed picks one of
 * {@link BED_VARIANTS} and an offset into it).
 *
 * @module
 */
import { mulberry32 } from "../../random/mulberry32.ts";
import { resample } from "../resample.ts";
import { Biquad, cascade, normalize, power } from "./filters.ts";
import type { NoiseBed } from "./spec.ts";

/** Seconds in a bed's loop. */
export const BED_LOOP_S = 8;
/** Variants of each bed (a trial's seed picks one). */
export const BED_VARIANTS = 4;

type Rand = () => number;

function gauss(rand: Rand): () => number {
  let spare: number | undefined;
  return () => {
    if (spare !== undefined) {
      const s = spare;
      spare = undefined;
      return s;
    }
    const r = Math.sqrt(-2 * Math.log(1 - rand()));
    const t = 2 * Math.PI * rand();
    spare = r * Math.sin(t);
    return r * Math.cos(t);
  };
}

function white(n: number, rand: Rand): Float32Array {
  const g = gauss(rand);
  const x = new Float32Array(n);
  for (let i = 0; i < n; i++) x[i] = g();
  return x;
}

function pink(n: number, rand: Rand): Float32Array {
  const x = white(n, rand);
  let b0 = 0, b1 = 0, b2 = 0;
  for (let i = 0; i < n; i++) {
    const w = x[i]!;
    b0 = 0.99765 * b0 + w * 0.099046;
    b1 = 0.963 * b1 + w * 0.2965164;
    b2 = 0.57 * b2 + w * 1.0526913;
    x[i] = b0 + b1 + b2 + w * 0.1848;
  }
  return normalize(x);
}

function brown(n: number, rand: Rand): Float32Array {
  const x = white(n, rand);
  let y = 0;
  for (let i = 0; i < n; i++) {
    y = 0.997 * y + x[i]!;
    x[i] = y;
  }
  return normalize(x);
}

/** `n` samples of speech-shaped noise from `talkers` talkers in spurts. */
function babble(n: number, rate: number, rand: Rand, talkers: number): Float32Array {
  const out = new Float32Array(n);
  for (let k = 0; k < talkers; k++) {
    const voice = cascade(pink(n, rand), [
      Biquad.highPass(200, rate),
      Biquad.lowPass(3000, rate),
      Biquad.bandPass(400 + 300 * rand(), rate, 0.8),
    ]);
    normalize(voice);
    // Talk spurts of 1–3 s, pauses of 0.3–1 s, syllables at 3–6 Hz.
    let talking = rand() < 0.6;
    let syl = 3 + 3 * rand();
    let phase = rand() * 2 * Math.PI;
    let end = Math.floor(rand() * rate);
    for (let j = 0; j < n; j++) {
      if (j >= end) {
        talking = !talking;
        end = j + Math.floor((talking ? 1 + 2 * rand() : 0.3 + 0.7 * rand()) * rate);
        syl = 3 + 3 * rand();
      }
      phase += (2 * Math.PI * syl) / rate;
      const env = talking ? 0.5 + 0.5 * Math.sin(phase) : 0;
      out[j] = out[j]! + voice[j]! * env * env;
    }
  }
  return normalize(out);
}

let babbleTalkers: { tracks: readonly Int16Array[]; rate: number } | undefined;

/** Hands the `babble` bed its talkers: one track of speech per talker, at `rate`. */
export function setBabbleTalkers(tracks: readonly Int16Array[], rate: number): void {
  babbleTalkers = { tracks, rate };
  for (const key of [...cache.keys()]) if (key.startsWith("babble|")) cache.delete(key);
}

/** Whether the `babble` bed has its talkers. */
export function hasBabbleTalkers(): boolean {
  return babbleTalkers !== undefined;
}

/** The talkers mixed: each at unit power times a level of 0 to −6 dB, from a seeded offset. */
function talkers(n: number, rate: number, rand: Rand): Float32Array {
  if (!babbleTalkers) {
    throw new Error(
      "The babble bed is made of flite voices: await prepareLineBeds(spec) " +
        "(src/speech/babble.ts) before the line is used",
    );
  }
  const out = new Float32Array(n);
  for (const t of babbleTalkers.tracks) {
    const track = Float32Array.from(
      rate === babbleTalkers.rate ? t : resample(t, babbleTalkers.rate, rate),
    );
    const p = power(track);
    if (p === 0) continue;
    const gain = 10 ** (-6 * rand() / 20) / Math.sqrt(p);
    for (let i = 0, j = Math.floor(rand() * track.length); i < n; i++) {
      out[i] = out[i]! + gain * track[j]!;
      if (++j === track.length) j = 0;
    }
  }
  return normalize(out);
}

function add(into: Float32Array, x: Float32Array, gain: number): Float32Array {
  for (let i = 0; i < into.length; i++) into[i] = into[i]! + gain * x[i]!;
  return into;
}

/** Short decaying bursts (dishes, keys) about every `everyS` seconds. */
function clicks(
  n: number,
  rate: number,
  rand: Rand,
  everyS: number,
  hz: number,
  ms: number,
): Float32Array {
  const out = new Float32Array(n);
  const burst = Math.floor((ms * rate) / 1000);
  let at = Math.floor(rand() * everyS * rate);
  while (at < n) {
    const level = 0.3 + 0.7 * rand();
    const g = gauss(rand);
    for (let j = 0; j < burst && at + j < n; j++) {
      out[at + j] = level * g() * Math.exp((-5 * j) / burst);
    }
    at += Math.floor((0.2 + 1.6 * rand()) * everyS * rate);
  }
  cascade(out, [Biquad.bandPass(Math.min(hz, rate * 0.4), rate, 1.2)]);
  return out;
}

function sines(
  n: number,
  rate: number,
  rand: Rand,
  freqs: readonly [number, number][],
): Float32Array {
  const out = new Float32Array(n);
  for (const [f, a] of freqs) {
    const phase = rand() * 2 * Math.PI;
    const wobble = 0.5 + rand();
    for (let i = 0; i < n; i++) {
      const t = i / rate;
      out[i] = out[i]! +
        a * Math.sin(2 * Math.PI * f * t + phase + 0.3 * Math.sin(2 * Math.PI * wobble * t));
    }
  }
  return out;
}

function generate(bed: NoiseBed, n: number, rate: number, rand: Rand): Float32Array {
  switch (bed) {
    case "white":
      return normalize(white(n, rand));
    case "pink":
      return pink(n, rand);
    case "brown":
      return brown(n, rand);
    case "babble":
      return talkers(n, rate, rand);
    case "street": {
      const x = cascade(brown(n, rand), [Biquad.lowPass(800, rate)]);
      normalize(x);
      add(x, pink(n, rand), 0.3);
      // Vehicles passing: a slow swell of about ±3 dB.
      const f = 0.1 + 0.1 * rand();
      const phase = rand() * 2 * Math.PI;
      for (let i = 0; i < n; i++) {
        x[i] = x[i]! * (1 + 0.35 * Math.sin((2 * Math.PI * f * i) / rate + phase));
      }
      return normalize(x);
    }
    case "car": {
      const x = cascade(brown(n, rand), [Biquad.lowPass(250, rate)]);
      normalize(x);
      const f0 = 30 + 10 * rand();
      add(x, sines(n, rate, rand, [[f0, 0.5], [2 * f0, 0.3], [3 * f0, 0.15]]), 1);
      add(x, cascade(pink(n, rand), [Biquad.highPass(1000, rate)]), 0.1);
      return normalize(x);
    }
    case "noisy-cafe": {
      const x = babble(n, rate, rand, 12);
      add(x, pink(n, rand), 0.5);
      add(x, normalize(clicks(n, rate, rand, 0.7, 3000, 40)), 0.5);
      return normalize(x);
    }
    case "office": {
      const x = cascade(pink(n, rand), [Biquad.lowPass(4000, rate)]);
      normalize(x);
      add(x, sines(n, rate, rand, [[50, 0.3], [100, 0.15], [150, 0.1]]), 1);
      add(x, normalize(clicks(n, rate, rand, 0.25, 2500, 15)), 0.4);
      add(x, babble(n, rate, rand, 3), 0.4);
      return normalize(x);
    }
  }
}

const cache = new Map<string, Float32Array>();

/** The loop of `bed` at `rate`, variant `variant` (unit power; cached, do not change it). */
export function noiseBed(bed: NoiseBed, rate: number, variant: number): Float32Array {
  const key = `${bed}|${rate}|${variant}`;
  let x = cache.get(key);
  if (!x) {
    // The seed names the bed, so every bed's variants differ from the others'.
    let h = 0x811c9dc5;
    for (const c of key) h = Math.imul(h ^ c.charCodeAt(0), 0x01000193);
    const n = Math.round(BED_LOOP_S * rate);
    const fade = Math.round(rate / 20);
    const raw = generate(bed, n + fade, rate, mulberry32(h >>> 0));
    // The tail is faded into the head, so the loop has no seam.
    x = raw.slice(0, n);
    for (let i = 0; i < fade; i++) {
      const a = i / fade;
      x[i] = a * raw[i]! + (1 - a) * raw[n + i]!;
    }
    normalize(x);
    cache.set(key, x);
  }
  return x;
}

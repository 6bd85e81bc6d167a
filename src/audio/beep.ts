/**
 * The voicemail beep: a pure tone, generated and detected. The detector looks for a
 * single steady tone (default 300-3000 Hz) lasting at least `minMs` (default 200 ms):
 * in each 32 ms block the frequency is estimated from zero crossings, refined by
 * Goertzel, and the block counts when that one frequency holds most of its energy and
 * stays within 3% of the run's. Speech (many harmonics, moving pitch) and DTMF (two
 * tones) do not pass.
 *
 * @example
 * ```ts
 * const beep = beepTone({ sampleRate: 8000 }); // 1 kHz, 500 ms
 * new BeepDetector({ sampleRate: 8000 }).push(beep); // [{ atMs: 0, frequency: ~1000 }]
 * ```
 *
 * @module
 */
import { clip16, samplesFor } from "./pcm.ts";
import { ToneBlocks } from "./tone_blocks.ts";

export interface BeepToneOptions {
  sampleRate: number;
  /** Default 1000 Hz. */
  frequency?: number;
  /** Default 500 ms. */
  ms?: number;
  /** Peak amplitude (int16 units); default 12000 (about -9 dBFS). */
  amplitude?: number;
  /** Raised-cosine fade in and out, against clicks; default 5 ms. */
  fadeMs?: number;
}

/** A beep. */
export function beepTone(options: BeepToneOptions): Int16Array {
  const rate = options.sampleRate;
  const n = samplesFor(rate, options.ms ?? 500);
  const fade = Math.min(Math.floor(n / 2), samplesFor(rate, options.fadeMs ?? 5));
  const amp = options.amplitude ?? 12000;
  const w = (2 * Math.PI * (options.frequency ?? 1000)) / rate;
  const out = new Int16Array(n);
  for (let i = 0; i < n; i++) {
    const edge = Math.min(i, n - 1 - i);
    const g = edge < fade ? 0.5 - 0.5 * Math.cos((Math.PI * edge) / fade) : 1;
    out[i] = clip16(amp * g * Math.sin(w * i));
  }
  return out;
}

/** A beep the detector heard. */
export interface BeepEvent {
  /** Start of the first block of the tone, in ms from the first sample pushed. */
  atMs: number;
  /** Its frequency, estimated. */
  frequency: number;
}

export interface BeepDetectorOptions {
  sampleRate: number;
  /** Least tone length; default 200 ms. */
  minMs?: number;
  minFrequency?: number;
  maxFrequency?: number;
  /** Least share of a block's energy at the tone; default 0.8. */
  minToneShare?: number;
  /** Least block level, dBFS; default -40. */
  floorDbfs?: number;
}

/** A streaming beep detector. */
export class BeepDetector {
  readonly sampleRate: number;
  readonly #blocks: ToneBlocks;
  readonly #floor: number;
  readonly #share: number;
  readonly #minBlocks: number;
  readonly #fmin: number;
  readonly #fmax: number;
  #run = 0;
  #runStart = 0;
  #runFreq = 0;
  #reported = false;

  constructor(options: BeepDetectorOptions) {
    this.sampleRate = options.sampleRate;
    const n = Math.round(options.sampleRate * 0.032);
    this.#blocks = new ToneBlocks(n, n);
    const floorAmp = 32768 * 10 ** ((options.floorDbfs ?? -40) / 20);
    this.#floor = floorAmp * floorAmp * this.#blocks.windowPower;
    this.#share = options.minToneShare ?? 0.8;
    // The first and last blocks may straddle the tone's edges: count whole blocks.
    this.#minBlocks = Math.max(2, Math.floor((options.minMs ?? 200) / 32) - 1);
    this.#fmin = options.minFrequency ?? 300;
    this.#fmax = Math.min(options.maxFrequency ?? 3000, options.sampleRate * 0.45);
  }

  /** Beeps confirmed by this chunk (each reported once, when it has lasted `minMs`). */
  push(samples: Int16Array): BeepEvent[] {
    const events: BeepEvent[] = [];
    this.#blocks.push(samples, (energy, start) => this.#block(events, energy, start));
    return events;
  }

  #block(events: BeepEvent[], energy: number, start: number): void {
    const startMs = (start * 1000) / this.sampleRate;
    const f = this.#tone(energy);
    const steady = f !== undefined && this.#run > 0 &&
      Math.abs(f - this.#runFreq) <= 0.03 * this.#runFreq;
    if (f === undefined) {
      this.#run = 0;
      this.#reported = false;
      return;
    }
    if (!steady) {
      this.#run = 1;
      this.#runStart = startMs;
      this.#runFreq = f;
      this.#reported = false;
    } else {
      this.#run++;
    }
    if (!this.#reported && this.#run >= this.#minBlocks) {
      this.#reported = true;
      events.push({ atMs: this.#runStart, frequency: Math.round(this.#runFreq) });
    }
  }

  /** The block's frequency when it is one pure tone, else undefined. */
  #tone(energy: number): number | undefined {
    if (energy < this.#floor) return undefined;
    const blocks = this.#blocks;
    const n = blocks.n;
    const x = blocks.raw;
    // Zero crossings, interpolated, over the unwindowed block.
    let first = -1;
    let last = -1;
    let crossings = 0;
    for (let i = 1; i < n; i++) {
      const a = x[i - 1]!;
      const b = x[i]!;
      if ((a < 0 && b >= 0) || (a >= 0 && b < 0)) {
        const t = i - 1 + a / (a - b);
        if (first < 0) first = t;
        last = t;
        crossings++;
      }
    }
    if (crossings < 3) return undefined;
    const estimate = ((crossings - 1) / 2) * (this.sampleRate / (last - first));
    if (estimate < this.#fmin || estimate > this.#fmax) return undefined;
    let bestF = estimate;
    let bestP = 0;
    for (const d of [-0.02, -0.01, 0, 0.01, 0.02]) {
      const f = estimate * (1 + d);
      const p = blocks.power(2 * Math.cos((2 * Math.PI * f) / this.sampleRate));
      if (p > bestP) {
        bestP = p;
        bestF = f;
      }
    }
    return bestP / energy >= this.#share ? bestF : undefined;
  }
}

/** Every beep in `samples` (one-shot). */
export function detectBeeps(
  samples: Int16Array,
  options: BeepDetectorOptions,
): BeepEvent[] {
  return new BeepDetector(options).push(samples);
}

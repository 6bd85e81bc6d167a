/**
 * In-band DTMF: tone generation, and a Goertzel detector (25.6 ms Hann-windowed
 * blocks, 50% overlap, a key confirmed by two blocks in a row). A block names a key
 * when one row and one column frequency stand out: each at least 6 dB above the
 * other frequencies of its group, within 8 dB of each other (twist), together holding
 * most of the block's energy, above a level floor. That last test keeps speech, whose
 * energy spreads over many harmonics, from passing for keys.
 *
 * @example
 * ```ts
 * const tones = dtmfTones("12#", { sampleRate: 8000 }); // 100 ms tones, 100 ms gaps
 * const detector = new DtmfDetector({ sampleRate: 8000 });
 * detector.push(tones); // [{ key: "1", atMs: 0 }, { key: "2", atMs: 192 }, ...]
 * ```
 *
 * @module
 */
import { clip16, samplesFor } from "./pcm.ts";
import { ToneBlocks } from "./tone_blocks.ts";

const ROWS = [697, 770, 852, 941] as const;
const COLS = [1209, 1336, 1477, 1633] as const;
/**
 * The keypad: the key at each row and column frequency (a layout, not the alphabet, which
 * is `DTMF_KEY_CHARS`; a test holds the two to the same sixteen keys).
 */
export const DTMF_KEYPAD: readonly string[] = ["123A", "456B", "789C", "*0#D"];

/** The row and column frequencies of a key, or undefined for a character that is none. */
export function dtmfFrequencies(key: string): [number, number] | undefined {
  const k = key.toUpperCase();
  for (let r = 0; r < 4; r++) {
    const c = DTMF_KEYPAD[r]!.indexOf(k);
    if (c >= 0 && k.length === 1) return [ROWS[r]!, COLS[c]!];
  }
  return undefined;
}

export interface DtmfToneOptions {
  sampleRate: number;
  /** Tone length; default 100 ms. */
  toneMs?: number;
  /** Silence after each tone; default 100 ms. */
  gapMs?: number;
  /** Peak amplitude of each of the two sines (int16 units); default 8000 (-12 dBFS). */
  amplitude?: number;
}

/** The tones for `keys` (ignoring characters that are not keys, such as spaces). */
export function dtmfTones(keys: string, options: DtmfToneOptions): Int16Array {
  const rate = options.sampleRate;
  const tone = samplesFor(rate, options.toneMs ?? 100);
  const gap = samplesFor(rate, options.gapMs ?? 100);
  const amp = options.amplitude ?? 8000;
  const valid = [...keys].map(dtmfFrequencies).filter((f) => f !== undefined);
  const out = new Int16Array(valid.length * (tone + gap));
  valid.forEach(([lo, hi], k) => {
    const at = k * (tone + gap);
    for (let i = 0; i < tone; i++) {
      const t = i / rate;
      out[at + i] = clip16(
        amp * (Math.sin(2 * Math.PI * lo * t) + Math.sin(2 * Math.PI * hi * t)),
      );
    }
  });
  return out;
}

/** A key the detector heard. */
export interface DtmfEvent {
  key: string;
  /** Start of the first confirming block, in ms from the first sample pushed. */
  atMs: number;
}

export interface DtmfDetectorOptions {
  sampleRate: number;
  /** Least mean level of a block to consider, in dBFS; default -45. */
  floorDbfs?: number;
  /** Least share of the block's energy in the two tones; default 0.6. */
  minToneShare?: number;
}

/** A streaming Goertzel DTMF detector. */
export class DtmfDetector {
  readonly sampleRate: number;
  readonly #blocks: ToneBlocks;
  readonly #coeffs: Float64Array;
  readonly #power = new Float64Array(8);
  readonly #floor: number;
  readonly #share: number;
  #prevKey: string | undefined;
  #prevAt = 0;
  #held: string | undefined;
  #misses = 0;
  /** When each key was last reported (ms), to drop a repeat inside one tone. */
  #lastReport = new Map<string, number>();

  constructor(options: DtmfDetectorOptions) {
    this.sampleRate = options.sampleRate;
    const n = Math.round(options.sampleRate * 0.0256);
    this.#blocks = new ToneBlocks(n, Math.floor(n / 2));
    this.#coeffs = Float64Array.from(
      [...ROWS, ...COLS],
      (f) => 2 * Math.cos((2 * Math.PI * f) / options.sampleRate),
    );
    const floorAmp = 32768 * 10 ** ((options.floorDbfs ?? -45) / 20);
    // Windowed block energy of a signal at the floor's mean power.
    this.#floor = floorAmp * floorAmp * this.#blocks.windowPower;
    this.#share = options.minToneShare ?? 0.6;
  }

  /** Keys confirmed by the blocks this chunk completes. */
  push(samples: Int16Array): DtmfEvent[] {
    const events: DtmfEvent[] = [];
    this.#blocks.push(samples, (energy, start) => this.#block(events, energy, start));
    return events;
  }

  /** The key one block shows, if any. */
  #classify(energy: number): string | undefined {
    if (energy < this.#floor) return undefined;
    const power = this.#power;
    for (let f = 0; f < 8; f++) power[f] = this.#blocks.power(this.#coeffs[f]!);
    const best = (from: number) => {
      let top = from;
      for (let f = from + 1; f < from + 4; f++) if (power[f]! > power[top]!) top = f;
      let second = 0;
      for (let f = from; f < from + 4; f++) if (f !== top) second = Math.max(second, power[f]!);
      return { top, ratio: power[top]! / Math.max(second, 1e-9) };
    };
    const row = best(0);
    const col = best(4);
    if (row.ratio < 4 || col.ratio < 4) return undefined;
    const pr = power[row.top]!;
    const pc = power[col.top]!;
    const twist = pr / pc;
    if (twist > 6.31 || twist < 1 / 6.31) return undefined;
    if ((pr + pc) / energy < this.#share) return undefined;
    return DTMF_KEYPAD[row.top]![col.top - 4];
  }

  #block(events: DtmfEvent[], energy: number, start: number): void {
    const key = this.#classify(energy);
    const at = (start * 1000) / this.sampleRate;
    if (key === undefined) {
      // Two quiet blocks in a row release the held key (one could be a glitch).
      if (++this.#misses >= 2) this.#held = undefined;
    } else {
      this.#misses = 0;
      if (key === this.#prevKey && key !== this.#held) {
        this.#held = key;
        // A tone broken up by loud speech must not count twice: the same key again
        // needs at least one shortest tone plus gap (40 + 40 ms, ITU-T Q.24).
        const last = this.#lastReport.get(key);
        if (last === undefined || this.#prevAt - last >= 80) {
          events.push({ key, atMs: this.#prevAt });
          this.#lastReport.set(key, this.#prevAt);
        }
      }
    }
    this.#prevKey = key;
    this.#prevAt = at;
  }
}

/** Every key in `samples` (one-shot). */
export function detectDtmf(samples: Int16Array, sampleRate: number): DtmfEvent[] {
  return new DtmfDetector({ sampleRate }).push(samples);
}

/**
 * What the beep and DTMF detectors share: pushed samples cut into Hann-windowed
 * blocks of `n` samples every `hop` samples (no per-block allocation), and the
 * Goertzel power of the windowed block at one frequency.
 *
 * @module
 */

/** Hann-windowed blocks of a stream, for tone detectors. */
export class ToneBlocks {
  readonly n: number;
  readonly hop: number;
  /** The current block as pushed (unwindowed). */
  readonly raw: Float64Array;
  /** The current block times the window. */
  readonly windowed: Float64Array;
  /** Σw²: a signal of mean power p has windowed block energy p·Σw². */
  readonly windowPower: number;
  readonly #window: Float64Array;
  /** Converts |X|² to the energy of the windowed tone: 2 Σw² / (Σw)². */
  readonly #toneScale: number;
  #len = 0;
  /** Index (in samples pushed) of the first sample of the current block. */
  #start = 0;

  constructor(n: number, hop: number) {
    this.n = n;
    this.hop = hop;
    this.#window = Float64Array.from(
      { length: n },
      (_, i) => 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (n - 1)),
    );
    let s1 = 0;
    let s2 = 0;
    for (const w of this.#window) {
      s1 += w;
      s2 += w * w;
    }
    this.windowPower = s2;
    this.#toneScale = (2 * s2) / (s1 * s1);
    this.raw = new Float64Array(n);
    this.windowed = new Float64Array(n);
  }

  /**
   * Feeds samples; for each block they complete, fills `raw` and `windowed` and calls
   * `onBlock` with the windowed block's energy and its first sample's index.
   */
  push(samples: Int16Array, onBlock: (energy: number, start: number) => void): void {
    const n = this.n;
    const raw = this.raw;
    let at = 0;
    while (at < samples.length) {
      const take = Math.min(n - this.#len, samples.length - at);
      for (let i = 0; i < take; i++) raw[this.#len + i] = samples[at + i]!;
      this.#len += take;
      at += take;
      if (this.#len === n) {
        let energy = 0;
        for (let i = 0; i < n; i++) {
          const v = raw[i]! * this.#window[i]!;
          this.windowed[i] = v;
          energy += v * v;
        }
        onBlock(energy, this.#start);
        raw.copyWithin(0, this.hop, n);
        this.#len = n - this.hop;
        this.#start += this.hop;
      }
    }
  }

  /** Energy of the windowed block's tone at `coeff` = 2 cos(2πf / rate) (Goertzel). */
  power(coeff: number): number {
    const x = this.windowed;
    let s1 = 0;
    let s2 = 0;
    for (let i = 0; i < x.length; i++) {
      const s0 = x[i]! + coeff * s1 - s2;
      s2 = s1;
      s1 = s0;
    }
    return (s1 * s1 + s2 * s2 - coeff * s1 * s2) * this.#toneScale;
  }
}

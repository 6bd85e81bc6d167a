/**
 * Second-order IIR sections (the audio EQ cookbook's low- and high-pass), run in place
 * over float samples; the line's band-limits, the muffled microphone and the noise beds'
 * colouring use them.
 *
 * @module
 */

/** One biquad section's normalized coefficients and state (direct form I). */
export class Biquad {
  #x1 = 0;
  #x2 = 0;
  #y1 = 0;
  #y2 = 0;
  private constructor(
    readonly b0: number,
    readonly b1: number,
    readonly b2: number,
    readonly a1: number,
    readonly a2: number,
  ) {}

  /** A Butterworth-Q (0.707) low-pass at `hz`. */
  static lowPass(hz: number, sampleRate: number, q = Math.SQRT1_2): Biquad {
    const w = (2 * Math.PI * Math.min(hz, sampleRate * 0.49)) / sampleRate;
    const alpha = Math.sin(w) / (2 * q);
    const c = Math.cos(w);
    const a0 = 1 + alpha;
    return new Biquad(
      (1 - c) / 2 / a0,
      (1 - c) / a0,
      (1 - c) / 2 / a0,
      (-2 * c) / a0,
      (1 - alpha) / a0,
    );
  }

  /** A Butterworth-Q (0.707) high-pass at `hz`. */
  static highPass(hz: number, sampleRate: number, q = Math.SQRT1_2): Biquad {
    const w = (2 * Math.PI * hz) / sampleRate;
    const alpha = Math.sin(w) / (2 * q);
    const c = Math.cos(w);
    const a0 = 1 + alpha;
    return new Biquad(
      (1 + c) / 2 / a0,
      -(1 + c) / a0,
      (1 + c) / 2 / a0,
      (-2 * c) / a0,
      (1 - alpha) / a0,
    );
  }

  /** A band-pass (constant 0 dB peak) around `hz`. */
  static bandPass(hz: number, sampleRate: number, q: number): Biquad {
    const w = (2 * Math.PI * hz) / sampleRate;
    const alpha = Math.sin(w) / (2 * q);
    const c = Math.cos(w);
    const a0 = 1 + alpha;
    return new Biquad(alpha / a0, 0, -alpha / a0, (-2 * c) / a0, (1 - alpha) / a0);
  }

  /** Filters `x` in place, carrying the state on. */
  run(x: Float32Array): Float32Array {
    const { b0, b1, b2, a1, a2 } = this;
    let x1 = this.#x1, x2 = this.#x2, y1 = this.#y1, y2 = this.#y2;
    for (let i = 0; i < x.length; i++) {
      const x0 = x[i]!;
      const y0 = b0 * x0 + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2;
      x2 = x1;
      x1 = x0;
      y2 = y1;
      y1 = y0;
      x[i] = y0;
    }
    this.#x1 = x1;
    this.#x2 = x2;
    this.#y1 = y1;
    this.#y2 = y2;
    return x;
  }
}

/** Runs `x` through each section in turn (fresh sections: no state is carried). */
export function cascade(x: Float32Array, sections: readonly Biquad[]): Float32Array {
  for (const s of sections) s.run(x);
  return x;
}

/** Mean power of float samples. */
export function power(x: ArrayLike<number>, from = 0, to = x.length): number {
  if (to <= from) return 0;
  let s = 0;
  for (let i = from; i < to; i++) s += x[i]! * x[i]!;
  return s / (to - from);
}

/** Scales `x` in place to unit mean power (silence stays silent). */
export function normalize(x: Float32Array): Float32Array {
  const p = power(x);
  if (p > 0) {
    const g = 1 / Math.sqrt(p);
    for (let i = 0; i < x.length; i++) x[i] = x[i]! * g;
  }
  return x;
}

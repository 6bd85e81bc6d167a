/**
 * A polyphase windowed-sinc resampler for mono PCM16, streaming: feed chunks of any
 * size to `process`, then `flush` once at the end; the output is the same as one
 * `resample` of the whole signal. Rates whose ratio reduces to at most
 * `MAX_PHASES` phases work (8, 16, 22.05, 24, 32, 44.1 and 48 kHz in every direction).
 *
 * The filter is a Kaiser-windowed sinc with 32 taps at the lower of the two rates (more
 * taps, in proportion, when downsampling), cut off so the stopband (about 80 dB down)
 * starts at the lower Nyquist frequency: aliases are removed, and the passband is flat
 * to about a third of the lower rate (2.6 kHz at 8 kHz, 5.3 kHz at 16 kHz). Output sample `n` is the signal at input time
 * `n * from / to` (zero phase: no delay to correct), and `process` holds back the last
 * few input samples until the samples after them arrive.
 *
 * @example
 * ```ts
 * const r = new Resampler(24000, 16000);
 * const out = [r.process(chunkA), r.process(chunkB), r.flush()];
 * const whole = resample(samples, 24000, 16000);
 * ```
 *
 * @module
 */

import { pcm16ByteProblem, pcm16Samples } from "./pcm.ts";

/** The rates the bridge meets on the wire. Others work when the ratio is simple enough. */
export const COMMON_RATES = [8000, 16000, 22050, 24000] as const;

/** The most polyphase phases (the reduced numerator of to/from) a resampler accepts. */
export const MAX_PHASES = 1024;

export interface ResamplerOptions {
  /** Taps at the lower rate; default 32. */
  taps?: number;
  /** Kaiser window beta; default 8 (about 80 dB stopband). */
  beta?: number;
}

/**
 * Filter banks by rates, taps and beta: every resampler of a conversion shares one (a
 * call makes one per direction, and computing a bank costs more than a second of
 * audio). The values are the float32 coefficients, held in doubles so the inner loop
 * reads no conversions (the products are the same).
 */
const _banks = new Map<string, Float64Array>();

function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}

/** Zeroth-order modified Bessel function of the first kind (for the Kaiser window). */
function besselI0(x: number): number {
  let sum = 1;
  let term = 1;
  const q = (x * x) / 4;
  for (let k = 1; k < 50; k++) {
    term *= q / (k * k);
    sum += term;
    if (term < sum * 1e-12) break;
  }
  return sum;
}

/** Whether `from` → `to` is a conversion a `Resampler` accepts. */
export function canResample(from: number, to: number): boolean {
  if (!Number.isInteger(from) || !Number.isInteger(to) || from <= 0 || to <= 0) return false;
  return to / gcd(from, to) <= MAX_PHASES;
}

/** Converts a stream of mono samples from one rate to another. */
export class Resampler {
  readonly from: number;
  readonly to: number;
  /** Upsampling factor L and downsampling factor M (to/from = L/M, reduced). */
  readonly #l: number;
  readonly #m: number;
  /** Taps per phase. */
  readonly #n: number;
  /** `#l` phases of `#n` coefficients each (float32 values, see `_banks`). */
  readonly #bank: Float64Array;
  /** Input not yet consumed; `#buf[0]` is input sample number `#bufStart` (int16 values). */
  #buf: Float64Array;
  #bufLen = 0;
  #bufStart: number;
  /** Next output: the input sample it sits on or after, and its phase (0..L-1). */
  #i = 0;
  #phase = 0;
  /** Input samples received so far. */
  #received = 0;
  readonly #identity: boolean;

  constructor(from: number, to: number, options: ResamplerOptions = {}) {
    if (!canResample(from, to)) {
      throw new RangeError(`Cannot resample ${from} Hz to ${to} Hz`);
    }
    this.from = from;
    this.to = to;
    const g = gcd(from, to);
    this.#l = to / g;
    this.#m = from / g;
    this.#identity = from === to;
    const taps = options.taps ?? 32;
    const beta = options.beta ?? 8;
    // Cutoff in cycles per input sample, and taps scaled to span the same time at the
    // lower rate.
    const ratio = Math.min(1, to / from);
    const n = 2 * Math.ceil((taps / ratio) / 2);
    this.#n = n;
    // Transition width of a Kaiser window (Kaiser's formula, A = 2.285 (N-1) dω + 8).
    const attenuation = beta / 0.1102 + 8.7;
    const transition = (attenuation - 8) / (2.285 * (n - 1) * 2 * Math.PI); // cycles/sample
    const fc = Math.max(0.05 * ratio, 0.5 * ratio - transition / 2);
    const half = n / 2;
    const key = `${this.#l}/${this.#m}/${n}/${fc}/${beta}`;
    let bank = _banks.get(key);
    if (!bank) _banks.set(key, bank = filterBank(this.#l, n, fc, beta));
    this.#bank = bank;
    // Before the first sample the signal is silent: start the history with zeros.
    this.#bufStart = -(half - 1);
    this.#buf = new Float64Array(Math.max(4096, n * 4));
    this.#bufLen = half - 1;
  }

  /** Taps per output sample (the cost per output sample). */
  get taps(): number {
    return this.#n;
  }

  /** Resamples the next chunk; returns the output samples now complete. */
  process(chunk: Int16Array): Int16Array {
    if (this.#identity) return chunk.slice();
    this.#append(chunk);
    this.#received += chunk.length;
    return this.#emit(this.#bufStart + this.#bufLen);
  }

  /**
   * {@link process} of little-endian PCM16 bytes (an even count), read in place: no
   * samples array is made for them. The output is the same. Given `into` (with room
   * for {@link outputFor} of the samples), it is written there from index 0 and the
   * view of it returned: no array is made for the output either.
   */
  processBytes(bytes: Uint8Array, into?: Int16Array): Int16Array {
    const problem = pcm16ByteProblem(bytes.length);
    if (problem) throw new RangeError(problem);
    const count = bytes.length / 2;
    // Checked before anything changes: a typed array drops what is written past its end.
    const due = into ? this.outputFor(count) : 0;
    if (into && into.length < due) {
      throw new RangeError(`room for ${into.length} samples, ${due} are due`);
    }
    if (this.#identity) return pcm16Samples(bytes, into);
    this.#reserve(count);
    const buf = this.#buf;
    let at = this.#bufLen;
    for (let j = 0; j < bytes.length; j += 2) {
      buf[at++] = (bytes[j]! | (bytes[j + 1]! << 8)) << 16 >> 16;
    }
    this.#bufLen = at;
    this.#received += count;
    return this.#emit(this.#bufStart + this.#bufLen, Infinity, into);
  }

  /** How many output samples `count` more input samples complete (exactly). */
  outputFor(count: number): number {
    if (this.#identity) return count;
    return this.#due(this.#bufStart + this.#bufLen + count, Infinity);
  }

  /**
   * The outputs due with input below index `available` (and instants before `limit`):
   * output k sits at `t = i·L + phase + k·M` (in 1/L input samples) and is due while
   * `floor(t / L) + half < available`, that is while `t < (available - half)·L`.
   */
  #due(available: number, limit: number): number {
    const l = this.#l;
    const last = Math.min(available - this.#n / 2, limit) * l - (this.#i * l + this.#phase);
    return Math.max(0, Math.ceil(last / this.#m));
  }

  /** Ends the stream: returns the remaining output (total = ceil(input * to / from)). */
  flush(): Int16Array {
    if (this.#identity) return new Int16Array(0);
    const half = this.#n / 2;
    this.#append(new Int16Array(half));
    const out = this.#emit(this.#bufStart + this.#bufLen, this.#received);
    this.#reset();
    return out;
  }

  #reset(): void {
    const half = this.#n / 2;
    this.#bufStart = -(half - 1);
    this.#buf.fill(0);
    this.#bufLen = half - 1;
    this.#i = 0;
    this.#phase = 0;
    this.#received = 0;
  }

  /** Makes room for `count` more input samples. */
  #reserve(count: number): void {
    if (this.#bufLen + count > this.#buf.length) {
      const bigger = new Float64Array(Math.max(this.#buf.length * 2, this.#bufLen + count));
      bigger.set(this.#buf.subarray(0, this.#bufLen));
      this.#buf = bigger;
    }
  }

  #append(chunk: Int16Array): void {
    this.#reserve(chunk.length);
    const buf = this.#buf;
    let at = this.#bufLen;
    for (let j = 0; j < chunk.length; j++) buf[at++] = chunk[j]!;
    this.#bufLen = at;
  }

  /**
   * Emits every output whose taps lie below input index `available` (and, when
   * flushing, whose instant lies before `limit`).
   */
  #emit(available: number, limit = Infinity, into?: Int16Array): Int16Array {
    const n = this.#n;
    const half = n / 2;
    const l = this.#l;
    const m = this.#m;
    const bank = this.#bank;
    const buf = this.#buf;
    const start = this.#bufStart;
    let i = this.#i;
    let phase = this.#phase;
    const due = this.#due(available, limit);
    const out = into ? into.subarray(0, due) : new Int16Array(due);
    let count = 0;
    // Four outputs at a time while four are due: four independent sums run side by side
    // (a single sum is a chain of dependent adds, each waiting on the last). Each output
    // is still summed alone and in tap order, so the values are the same.
    while (true) {
      let i1 = i, p1 = phase + m;
      if (p1 >= l) i1 += Math.floor(p1 / l), p1 %= l;
      let i2 = i1, p2 = p1 + m;
      if (p2 >= l) i2 += Math.floor(p2 / l), p2 %= l;
      let i3 = i2, p3 = p2 + m;
      if (p3 >= l) i3 += Math.floor(p3 / l), p3 %= l;
      if (!(i3 + half < available && i3 < limit)) break;
      const b0 = i - (half - 1) - start, r0 = phase * n;
      const b1 = i1 - (half - 1) - start, r1 = p1 * n;
      const b2 = i2 - (half - 1) - start, r2 = p2 * n;
      const b3 = i3 - (half - 1) - start, r3 = p3 * n;
      let a0 = 0, a1 = 0, a2 = 0, a3 = 0;
      // `n` is even: two taps a step, each sum still in tap order.
      for (let k = 0; k < n; k += 2) {
        a0 += buf[b0 + k]! * bank[r0 + k]!;
        a1 += buf[b1 + k]! * bank[r1 + k]!;
        a2 += buf[b2 + k]! * bank[r2 + k]!;
        a3 += buf[b3 + k]! * bank[r3 + k]!;
        a0 += buf[b0 + k + 1]! * bank[r0 + k + 1]!;
        a1 += buf[b1 + k + 1]! * bank[r1 + k + 1]!;
        a2 += buf[b2 + k + 1]! * bank[r2 + k + 1]!;
        a3 += buf[b3 + k + 1]! * bank[r3 + k + 1]!;
      }
      // clip16, inline (this loop is the resampler's whole cost).
      const o0 = Math.round(a0), o1 = Math.round(a1), o2 = Math.round(a2), o3 = Math.round(a3);
      out[count++] = o0 > 32767 ? 32767 : o0 < -32768 ? -32768 : o0;
      out[count++] = o1 > 32767 ? 32767 : o1 < -32768 ? -32768 : o1;
      out[count++] = o2 > 32767 ? 32767 : o2 < -32768 ? -32768 : o2;
      out[count++] = o3 > 32767 ? 32767 : o3 < -32768 ? -32768 : o3;
      i = i3;
      phase = p3 + m;
      if (phase >= l) i += Math.floor(phase / l), phase %= l;
    }
    while (i + half < available && i < limit) {
      const base = i - (half - 1) - start;
      const row = phase * n;
      let acc = 0;
      for (let k = 0; k < n; k++) acc += buf[base + k]! * bank[row + k]!;
      const r = Math.round(acc);
      out[count++] = r > 32767 ? 32767 : r < -32768 ? -32768 : r;
      phase += m;
      if (phase >= l) {
        const step = Math.floor(phase / l);
        i += step;
        phase -= step * l;
      }
    }
    this.#i = i;
    this.#phase = phase;
    // Drop input no longer needed (the next output's first tap onwards stays).
    const keepFrom = i - (half - 1) - start;
    if (keepFrom > 0) {
      const drop = Math.min(keepFrom, this.#bufLen);
      buf.copyWithin(0, drop, this.#bufLen);
      this.#bufLen -= drop;
      this.#bufStart += drop;
    }
    return out;
  }
}

/** The `l` phases of a Kaiser-windowed sinc of `n` taps cut off at `fc`, float32 values. */
function filterBank(l: number, n: number, fc: number, beta: number): Float64Array {
  const half = n / 2;
  const bank = new Float32Array(l * n);
  const row = new Float64Array(n);
  const i0beta = besselI0(beta);
  for (let p = 0; p < l; p++) {
    let sum = 0;
    for (let k = 0; k < n; k++) {
      // Distance from the output instant to input tap k.
      const t = p / l + (half - 1) - k;
      const x = 2 * fc * t;
      const sinc = t === 0 ? 1 : Math.sin(Math.PI * x) / (Math.PI * x);
      const r = t / half;
      const w = Math.abs(r) >= 1 ? 0 : besselI0(beta * Math.sqrt(1 - r * r)) / i0beta;
      row[k] = 2 * fc * sinc * w;
      sum += row[k]!;
    }
    // Unity gain at DC in every phase (no ripple from the phase position).
    for (let k = 0; k < n; k++) bank[p * n + k] = row[k]! / sum;
  }
  return Float64Array.from(bank);
}

/** Resamples a whole mono signal (`process` then `flush`). */
export function resample(
  samples: Int16Array,
  from: number,
  to: number,
  options?: ResamplerOptions,
): Int16Array {
  if (from === to) return samples.slice();
  const r = new Resampler(from, to, options);
  const a = r.process(samples);
  const b = r.flush();
  const out = new Int16Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

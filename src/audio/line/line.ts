/**
 * One direction of a phone line for one call: what the listener hears of each
 * utterance said at a call time, and the line's noise during silence (a real line is
 * never digitally silent). Seeded: the same spec and seed give the same bytes, whatever
 * order the audio is asked for in.
 *
 * The stages, in order: the speech set to the nominal active level of −26 dBFS (on
 * every line, clean included, so a line changes only what it names), the caller's room
 * (each noise bed at its SNR against that level, so the bed's level stays about
 * constant over the call; it is set again on each utterance to within a dB, so the SNR
 * is exact where the speech is), the device (`volume`, `muffled`: a
 * fourth-order low-pass, `clip`: drive then hard clipping), the codec (`phone`: a
 * 300–3400 Hz band-pass, 8 kHz, G.711 µ-law and back), then the network on the call's
 * grid of 20 ms frames (`loss`: Gilbert-Elliott, a lost frame is silence or a repeat of
 * the one before; `jitter`: a frame delayed past the 60 ms playout buffer is concealed
 * like a lost one; the buffer's own delay is not added).
 *
 * @example
 * ```ts
 * const line = new Line(parseLine("phone+street@10+loss@3%"), 42);
 * const heard = line.apply(utteranceAudio, 1200); // said at 1.2 s into the call
 * line.fill(chunk, 0, 3000, 16000); // the line's noise into a silent chunk at 3 s
 * line.frames(60_000); // { total: 3000, lost: ~90, late: 0 }
 * ```
 *
 * @module
 */
import { mulberry32 } from "../../random/mulberry32.ts";
import { mulawDecode, mulawEncode } from "../mulaw.ts";
import { clip16, type Pcm16, toMono } from "../pcm.ts";
import { resample } from "../resample.ts";
import { BED_VARIANTS, noiseBed } from "./beds.ts";
import { Biquad, cascade, power } from "./filters.ts";
import { GilbertElliott, JitterBuffer } from "./loss.ts";
import { isClean, type LineSpec, lineText } from "./spec.ts";

/** The network's frame, ms. */
export const LINE_FRAME_MS = 20;
/** The active level every line sets speech to first (dBFS, ITU-T P.56's nominal). */
export const NOMINAL_SPEECH_DBFS = -26;
const NOMINAL_POWER = 32768 * 32768 * 10 ** (NOMINAL_SPEECH_DBFS / 10);
/** Frames quieter than this far below the loudest are not active speech (SNR reference). */
const ACTIVE_RANGE_DB = 30;

/**
 * The active level of what a line made of an utterance (dBFS, 0.01 dB; null: silent):
 * the mean power of `heard` over the 20 ms frames that are active in `said` (within 30 dB
 * of its loudest), so the silences between words, noise on a noisy line, do not count.
 */
export function speechLevelDbfs(heard: Pcm16, said: Pcm16): number | null {
  const mono = toMono(said);
  const active = activeFrames(Float32Array.from(mono.samples), mono.sampleRate);
  const h = heard.samples;
  let sum = 0;
  let n = 0;
  for (const i of active.starts) {
    const end = Math.min(h.length, i + active.frame);
    for (let k = i; k < end; k++) sum += h[k]! * h[k]!;
    n += Math.max(0, end - i);
  }
  return sum > 0 ? Math.round(10 * Math.log10(sum / n / (32768 * 32768)) * 100) / 100 : null;
}

/** A 32-bit seed from any text (FNV-1a). */
export function seedFrom(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** Active power of `x`: the mean power of its 20 ms frames within 30 dB of the loudest. */
export function activePower(x: ArrayLike<number>, rate: number): number {
  const f = Math.max(1, Math.round((rate * LINE_FRAME_MS) / 1000));
  const frames: number[] = [];
  for (let i = 0; i < x.length; i += f) frames.push(power(x, i, Math.min(x.length, i + f)));
  const max = Math.max(0, ...frames);
  if (max === 0) return 0;
  const floor = max / 10 ** (ACTIVE_RANGE_DB / 10);
  const active = frames.filter((p) => p >= floor);
  return active.reduce((a, b) => a + b, 0) / active.length;
}

/** G.711 µ-law encode then decode (8 kHz samples): what the codec lets through. */
export function g711RoundTrip(samples8k: Int16Array): Int16Array {
  return mulawDecode(mulawEncode(samples8k));
}

interface Loops {
  /** The noise beds mixed at their levels (the room, before the device). */
  room: Float32Array;
  /** Running sums of the room's squares (`squares[i]`: samples before i), for the SNR reference. */
  squares: Float64Array;
  /** The same after the device and codec (what the line carries when the caller is silent). */
  heard: Int16Array;
  /** The same after the linear stages only, at the codec's rate (the fast path). */
  pre?: Float32Array;
}

interface SpeechPart {
  /** Active power (the SNR's reference). */
  pa: number;
  active: ActiveFrames;
  /** The linear stages' output at the codec's rate (the fast path). */
  linear?: Float32Array;
}

/** Each utterance audio's part per line (TTS-cached audio is shared between trials). */
const speechCache = new WeakMap<Int16Array, Map<string, SpeechPart>>();

let roundTrip: Int16Array | undefined;
/** G.711's round trip of every int16 value, by value + 32768 (one look-up per sample). */
function mulawRoundTrip(): Int16Array {
  if (!roundTrip) {
    const all = new Int16Array(65536);
    for (let i = 0; i < all.length; i++) all[i] = i - 32768;
    roundTrip = g711RoundTrip(all);
  }
  return roundTrip;
}

let scratchBuf = new Int16Array(0);
/** A reused array of at least `n` samples (the 8 kHz stage; never returned). */
function scratch(n: number): Int16Array {
  if (scratchBuf.length < n) scratchBuf = new Int16Array(Math.max(n, 2 * scratchBuf.length));
  return scratchBuf;
}

/** The phone's band: 300–3400 Hz, fourth order each side. */
function PHONE_BAND(rate: number): Biquad[] {
  return [
    Biquad.highPass(300, rate),
    Biquad.highPass(300, rate),
    Biquad.lowPass(3400, rate),
    Biquad.lowPass(3400, rate),
  ];
}

const loops = new Map<string, Loops>();
const MAX_LOOPS = 32;

/** One direction of a phone line for one call (see the module's description). */
export class Line {
  readonly spec: LineSpec;
  /** The canonical text of the spec. */
  readonly text: string;
  readonly clean: boolean;
  /** The SNR measured on each utterance given to `apply` (null: silent or no noise bed). */
  readonly snrDb: (number | null)[] = [];
  readonly #variant: number;
  readonly #offsetFraction: number;
  readonly #loss: GilbertElliott | undefined;
  readonly #jitter: JitterBuffer | undefined;
  /** The noise beds' total power (int16 units squared). */
  readonly #noisePower: number;

  constructor(spec: LineSpec, seed: number) {
    this.spec = spec;
    this.text = lineText(spec);
    this.clean = isClean(spec);
    this.#noisePower = spec.noise.reduce((t, n) => t + NOMINAL_POWER / 10 ** (n.snr_db / 10), 0);
    const rand = mulberry32(seed);
    this.#variant = Math.floor(rand() * BED_VARIANTS);
    this.#offsetFraction = rand();
    this.#loss = spec.loss && spec.loss.rate > 0
      ? new GilbertElliott(spec.loss.rate, spec.loss.burst, (seed ^ 0x9e3779b9) >>> 0)
      : undefined;
    this.#jitter = spec.jitter_ms
      ? new JitterBuffer(spec.jitter_ms, (seed ^ 0x85ebca6b) >>> 0)
      : undefined;
  }

  /**
   * What the listener hears of `audio` said at call time `startMs`. Its SNR is known at
   * once (`snrDb`); its samples are worked out when first read (an in-process listener
   * that never reads them costs nothing), the same bytes whenever that is.
   */
  apply(audio: Pcm16, startMs: number): Pcm16 {
    const mono = toMono(audio);
    const rate = mono.sampleRate;
    const sp = this.#speechOf(mono.samples, rate);
    // Every line, clean included, first sets the speech to the nominal active level: a
    // line changes only what it names (`volume@dB` changes the level on purpose).
    const g = sp.pa > 0 ? Math.sqrt(NOMINAL_POWER / sp.pa) : 1;
    if (this.clean) {
      this.snrDb.push(null);
      let heard: Int16Array | undefined;
      const samples = mono.samples;
      return {
        get samples() {
          return heard ??= Int16Array.from(samples, (v) => clip16(v * g));
        },
        sampleRate: rate,
        channels: 1,
      };
    }
    let c = 0;
    let snr: number | null = null;
    let loops: Loops | undefined;
    if (this.spec.noise.length > 0 && sp.pa > 0) {
      loops = this.#loops(rate);
      // The loop's power over a few seconds differs from its mean by up to a dB (brown
      // noise most): the bed's level is set again on each utterance's active frames.
      const local = activeNoise(
        sp.active,
        loops.squares,
        this.#position(startMs, rate, loops.room.length),
      );
      c = local > 0 ? Math.sqrt(this.#noisePower / local) : 0;
      if (local > 0) snr = Math.round(10 * Math.log10(NOMINAL_POWER / (c * c * local)) * 100) / 100;
    }
    this.snrDb.push(snr);
    let heard: Int16Array | undefined;
    const hear = () => heard ??= this.#heard(mono.samples, sp, g, loops, c, startMs, rate);
    return {
      get samples() {
        return hear();
      },
      sampleRate: rate,
      channels: 1,
    };
  }

  /** The samples `apply` promised. */
  #heard(
    samples: Int16Array,
    sp: SpeechPart,
    g: number,
    loops: Loops | undefined,
    c: number,
    startMs: number,
    rate: number,
  ): Int16Array {
    let out: Int16Array;
    if (sp.linear) {
      // Everything before the codec's quantization is linear: the speech's part is worked
      // out once per utterance audio, the noise's once per loop; here they are summed,
      // quantized and decoded in one pass with no array in between.
      const pre = loops?.pre;
      out = this.#decode(
        sp.linear,
        g,
        pre && c > 0 ? pre : undefined,
        c,
        pre ? this.#position(startMs, this.#codecRate(rate), pre.length) : 0,
        rate,
        samples.length,
      );
    } else {
      // Clipping between the linear stages (or an uncommon rate): the whole chain here.
      const x = Float32Array.from(samples, (v) => v * g);
      if (loops && c > 0) {
        const room = loops.room;
        for (let i = 0, j = this.#position(startMs, rate, room.length); i < x.length; i++) {
          x[i] = x[i]! + c * room[j]!;
          if (++j === room.length) j = 0;
        }
      }
      out = this.#codec(this.#device(x, rate), rate);
    }
    this.#network(out, startMs, rate);
    return out;
  }

  /** Whether the fast path applies: no clipping between the linear stages, a rate it knows. */
  #fast(rate: number): boolean {
    return this.spec.clip_db === undefined && (rate === 8000 || rate === 16000 || !this.spec.phone);
  }

  /** The rate the codec works at (8 kHz with `phone`). */
  #codecRate(rate: number): number {
    return this.spec.phone ? 8000 : rate;
  }

  /** The stages before quantization, all linear: device gain and filter, band-limit, to 8 kHz. */
  #linearPart(x: Float32Array, rate: number): Float32Array {
    const y = this.#device(x, rate);
    if (!this.spec.phone) return y;
    cascade(y, PHONE_BAND(rate));
    if (rate === 8000) return y;
    const i16 = Int16Array.from(y, (v) => clip16(v));
    return Float32Array.from(resample(i16, rate, 8000));
  }

  /**
   * The fast path's last stages in one pass: `g·speech + c·noise` (the noise loop read
   * from `at`, wrapping; each sum rounded to float32, the linear stages' type), quantized
   * to int16, then µ-law and back with linear interpolation to the line's rate (phone)
   * or as it is.
   */
  #decode(
    speech: Float32Array,
    g: number,
    noise: Float32Array | undefined,
    c: number,
    at: number,
    rate: number,
    length: number,
  ): Int16Array {
    const n = speech.length;
    const phone = this.spec.phone === true;
    const q = phone && rate !== 8000 ? scratch(n) : new Int16Array(n);
    const rt = phone ? mulawRoundTrip() : undefined;
    for (let k = 0, j = at; k < n; k++) {
      let y: number;
      if (noise) {
        y = Math.fround(g * speech[k]! + c * noise[j]!);
        if (++j === noise.length) j = 0;
      } else y = Math.fround(g * speech[k]!);
      // Math.round(y), exactly for a float32 y, and several times faster in V8.
      const v = Math.floor(y + 0.5);
      const s = v > 32767 ? 32767 : v < -32768 ? -32768 : v;
      q[k] = rt ? rt[s + 32768]! : s;
    }
    if (!phone || rate === 8000) return q;
    // 8 kHz to 16 kHz: each sample, then the mean of it and the next (the last repeated).
    const out = new Int16Array(length);
    const last = n - 1;
    const pairs = Math.min(last, length >> 1);
    let a = q[0]!;
    for (let k = 0, i = 0; k < pairs; k++) {
      const b = q[k + 1]!;
      out[i++] = a;
      out[i++] = (a + b) >> 1;
      a = b;
    }
    for (let i = 2 * pairs; i < length; i++) {
      const k = i >> 1;
      const a = q[Math.min(k, last)]!;
      out[i] = i & 1 ? (a + q[Math.min(k + 1, last)]!) >> 1 : a;
    }
    return out;
  }

  /** An utterance's own figures and linear part, worked out once per audio and line. */
  #speechOf(samples: Int16Array, rate: number): SpeechPart {
    const key = `${this.#linearKey()}|${rate}`;
    let byLine = speechCache.get(samples);
    if (!byLine) speechCache.set(samples, byLine = new Map());
    let sp = byLine.get(key);
    if (!sp) {
      const x = Float32Array.from(samples);
      const active = activeFrames(x, rate);
      sp = {
        pa: active.power,
        active,
        ...(this.#fast(rate) ? { linear: this.#linearPart(x, rate) } : {}),
      };
      byLine.set(key, sp);
    }
    return sp;
  }

  #linearKey(): string {
    const s = this.spec;
    return `${s.volume_db ?? 0}|${s.muffled_hz ?? ""}|${s.phone ? 1 : 0}|${s.clip_db ?? ""}`;
  }

  /**
   * The line's noise during silence: writes it into `samples[from..]` (silence there,
   * which it replaces), a stretch whose first sample is at call time `atMs`, at `rate`
   * (a transport's silence fill, the recording's caller channel).
   */
  fill(samples: Int16Array, from: number, atMs: number, rate: number): void {
    if (this.clean || from >= samples.length) return;
    // Digital silence stays silent through every other stage.
    if (this.spec.noise.length === 0) return;
    const heard = this.#loops(rate).heard;
    let j = this.#position(atMs, rate, heard.length);
    for (let i = from; i < samples.length;) {
      const len = Math.min(samples.length - i, heard.length - j);
      samples.set(heard.subarray(j, j + len), i);
      i += len;
      j = 0;
    }
    this.#network(samples.subarray(from), atMs, rate);
  }

  /** The call's frames on this line up to `durationMs`: all, lost, and late (jitter). */
  frames(durationMs: number): { total: number; lost: number; late: number } {
    const total = Math.ceil(durationMs / LINE_FRAME_MS);
    return {
      total,
      lost: this.#loss?.count(total) ?? 0,
      late: this.#jitter?.count(total) ?? 0,
    };
  }

  #position(atMs: number, rate: number, length: number): number {
    const at = Math.round((Math.max(0, atMs) * rate) / 1000) +
      Math.floor(this.#offsetFraction * length);
    return at % length;
  }

  #loops(rate: number): Loops {
    const key = `${this.text}|${rate}|${this.#variant}`;
    let l = loops.get(key);
    if (!l) {
      const beds = this.spec.noise.map((n) => ({
        bed: noiseBed(n.bed, rate, this.#variant),
        gain: Math.sqrt(NOMINAL_POWER / 10 ** (n.snr_db / 10)),
      }));
      const room = new Float32Array(beds[0]!.bed.length);
      for (const { bed, gain } of beds) {
        for (let i = 0; i < room.length; i++) room[i] = room[i]! + gain * bed[i]!;
      }
      // Device and codec over the loop, warmed up on its last 100 ms so the seam is clean.
      const warm = Math.min(room.length, Math.round(rate / 10));
      const x = new Float32Array(warm + room.length);
      x.set(room.subarray(room.length - warm));
      x.set(room, warm);
      let heard: Int16Array;
      let pre: Float32Array | undefined;
      if (this.#fast(rate)) {
        const cr = this.#codecRate(rate);
        const w = Math.round((warm * cr) / rate);
        pre = this.#linearPart(x, rate).slice(w, w + Math.round((room.length * cr) / rate));
        heard = this.#decode(pre, 1, undefined, 0, 0, rate, room.length);
      } else heard = this.#codec(this.#device(x, rate), rate).slice(warm);
      const squares = new Float64Array(room.length + 1);
      for (let i = 0; i < room.length; i++) squares[i + 1] = squares[i]! + room[i]! * room[i]!;
      l = { room, squares, heard, ...(pre ? { pre } : {}) };
      if (loops.size >= MAX_LOOPS) loops.delete(loops.keys().next().value!);
      loops.set(key, l);
    }
    return l;
  }

  #device(x: Float32Array, rate: number): Float32Array {
    const s = this.spec;
    if (s.volume_db) {
      const g = 10 ** (s.volume_db / 20);
      for (let i = 0; i < x.length; i++) x[i] = x[i]! * g;
    }
    if (s.muffled_hz !== undefined) {
      cascade(x, [Biquad.lowPass(s.muffled_hz, rate), Biquad.lowPass(s.muffled_hz, rate)]);
    }
    if (s.clip_db !== undefined) {
      const g = 10 ** (s.clip_db / 20);
      for (let i = 0; i < x.length; i++) {
        const v = x[i]! * g;
        x[i] = v > 32767 ? 32767 : v < -32768 ? -32768 : v;
      }
    }
    return x;
  }

  #codec(x: Float32Array, rate: number): Int16Array {
    const out = new Int16Array(x.length);
    if (!this.spec.phone) {
      for (let i = 0; i < x.length; i++) out[i] = clip16(x[i]!);
      return out;
    }
    cascade(x, PHONE_BAND(rate));
    for (let i = 0; i < x.length; i++) out[i] = clip16(x[i]!);
    const narrow = rate === 8000 ? out : resample(out, rate, 8000);
    const coded = g711RoundTrip(narrow);
    if (rate === 8000) return coded;
    const wide = resample(coded, 8000, rate);
    // The resampler's output length can differ by a sample or two: keep the input's.
    const fit = new Int16Array(x.length);
    fit.set(wide.subarray(0, Math.min(wide.length, fit.length)));
    return fit;
  }

  /** Conceals the lost and late frames of `x` (first sample at call time `startMs`) in place. */
  #network(x: Int16Array, startMs: number, rate: number): void {
    if (!this.#loss && !this.#jitter) return;
    const frameLen = Math.round((rate * LINE_FRAME_MS) / 1000);
    const conceal = this.spec.loss?.conceal ?? "silence";
    const first = Math.floor(startMs / LINE_FRAME_MS);
    const last = Math.floor((startMs + (x.length * 1000) / rate - 1e-9) / LINE_FRAME_MS);
    for (let k = Math.max(0, first); k <= last; k++) {
      if (!(this.#loss?.lost(k) || this.#jitter?.late(k))) continue;
      const j0 = Math.max(0, Math.round(((k * LINE_FRAME_MS - startMs) * rate) / 1000));
      const j1 = Math.min(
        x.length,
        Math.round((((k + 1) * LINE_FRAME_MS - startMs) * rate) / 1000),
      );
      for (let j = j0; j < j1; j++) {
        x[j] = conceal === "repeat" && j - frameLen >= 0 ? x[j - frameLen]! : 0;
      }
    }
  }
}

/** Which 20 ms frames of a signal are active speech, and their mean power. */
interface ActiveFrames {
  frame: number;
  length: number;
  /** Start of each active frame. */
  starts: number[];
  power: number;
}

function activeFrames(x: Float32Array, rate: number): ActiveFrames {
  const f = Math.max(1, Math.round((rate * LINE_FRAME_MS) / 1000));
  const p: number[] = [];
  for (let i = 0; i < x.length; i += f) p.push(power(x, i, Math.min(x.length, i + f)));
  const max = Math.max(0, ...p);
  const floor = max / 10 ** (ACTIVE_RANGE_DB / 10);
  const starts: number[] = [];
  let sum = 0;
  p.forEach((q, k) => {
    if (max > 0 && q >= floor) {
      starts.push(k * f);
      sum += q;
    }
  });
  return {
    frame: f,
    length: x.length,
    starts,
    power: starts.length === 0 ? 0 : sum / starts.length,
  };
}

/**
 * The noise loop's power over the speech's active frames, from loop position `at` (the
 * SNR's denominator), from the loop's running sums of squares.
 */
function activeNoise(active: ActiveFrames, squares: Float64Array, at: number): number {
  const len = squares.length - 1;
  let sum = 0;
  let n = 0;
  for (const i of active.starts) {
    const m = Math.min(active.length, i + active.frame) - i;
    const s = (at + i) % len;
    const e = s + m;
    sum += e <= len ? squares[e]! - squares[s]! : squares[len]! - squares[s]! + squares[e - len]!;
    n += m;
  }
  return n === 0 ? 0 : sum / n;
}

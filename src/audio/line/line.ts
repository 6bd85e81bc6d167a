/**
 * One direction of a phone line for one call: what the listener hears of each
 * utterance said at a call time, and the line's noise during silence (a real line is
 * never digitally silent). Seeded: the same spec and seed give the same bytes, whatever
 * order the audio is asked for in.
 *
 * The stages, in order: the caller's room (each noise bed at its SNR against the
 * speech's active level, the speech first set to the nominal level of −26 dBFS so the
 * bed's level stays about constant over the call; it is set again on each utterance to
 * within a dB, so the SNR is exact where the speech is), the device (`volume`, `muffled`: a
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
import { clip16, type Pcm16, pcm16, toMono } from "../pcm.ts";
import { resample } from "../resample.ts";
import { BED_VARIANTS, noiseBed } from "./beds.ts";
import { Biquad, cascade, power } from "./filters.ts";
import { GilbertElliott, JitterBuffer } from "./loss.ts";
import { isClean, type LineSpec, lineText } from "./spec.ts";

/** The network's frame, ms. */
export const LINE_FRAME_MS = 20;
/** The level speech is set to before a noise bed is mixed in (dBFS, ITU-T P.56's nominal). */
export const NOMINAL_SPEECH_DBFS = -26;
const NOMINAL_POWER = 32768 * 32768 * 10 ** (NOMINAL_SPEECH_DBFS / 10);
/** Frames quieter than this far below the loudest are not active speech (SNR reference). */
const ACTIVE_RANGE_DB = 30;

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
  /** The same after the device and codec (what the line carries when the caller is silent). */
  heard: Int16Array;
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

  /** What the listener hears of `audio` said at call time `startMs`. */
  apply(audio: Pcm16, startMs: number): Pcm16 {
    if (this.clean) return audio;
    const mono = toMono(audio);
    const rate = mono.sampleRate;
    const x = Float32Array.from(mono.samples);
    if (this.spec.noise.length > 0) {
      const pa = activePower(x, rate);
      if (pa > 0) {
        const g = Math.sqrt(NOMINAL_POWER / pa);
        for (let i = 0; i < x.length; i++) x[i] = x[i]! * g;
        const room = this.#loops(rate).room;
        const at = this.#position(startMs, rate, room.length);
        const noise = new Float32Array(x.length);
        for (let i = 0, j = at; i < x.length; i++, j = j + 1 === room.length ? 0 : j + 1) {
          noise[i] = room[j]!;
        }
        // The loop's power over a few seconds differs from its mean by up to a dB (brown
        // noise most): the bed's level is set again on each utterance's active frames.
        const local = activeNoise(x, noise, rate);
        const c = local > 0 ? Math.sqrt(this.#noisePower / local) : 0;
        for (let i = 0; i < x.length; i++) x[i] = x[i]! + c * noise[i]!;
        this.snrDb.push(
          local > 0
            ? Math.round(10 * Math.log10(NOMINAL_POWER / (c * c * local)) * 100) / 100
            : null,
        );
      } else this.snrDb.push(null);
    } else this.snrDb.push(null);
    const out = this.#codec(this.#device(x, rate), rate);
    this.#network(out, startMs, rate);
    return pcm16(out, rate);
  }

  /**
   * The line's noise during silence: adds it to `samples[from..]`, a stretch whose
   * first sample is at call time `atMs`, at `rate` (a transport's silence fill).
   */
  fill(samples: Int16Array, from: number, atMs: number, rate: number): void {
    if (this.clean || from >= samples.length) return;
    const n = samples.length - from;
    let seg: Int16Array;
    if (this.spec.noise.length > 0) {
      const heard = this.#loops(rate).heard;
      seg = new Int16Array(n);
      for (let i = 0, j = this.#position(atMs, rate, heard.length); i < n; i++) {
        seg[i] = heard[j]!;
        if (++j === heard.length) j = 0;
      }
    } else return; // digital silence stays silent through every other stage
    this.#network(seg, atMs, rate);
    for (let i = 0; i < n; i++) samples[from + i] = clip16(samples[from + i]! + seg[i]!);
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
      const heard = this.#codec(this.#device(x, rate), rate).slice(warm);
      l = { room, heard };
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
    cascade(x, [
      Biquad.highPass(300, rate),
      Biquad.highPass(300, rate),
      Biquad.lowPass(3400, rate),
      Biquad.lowPass(3400, rate),
    ]);
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

function activeNoise(speech: Float32Array, noise: Float32Array, rate: number): number {
  // The noise's power over the frames where the speech is active (the SNR's denominator).
  const f = Math.max(1, Math.round((rate * LINE_FRAME_MS) / 1000));
  const frames: [number, number][] = [];
  let max = 0;
  for (let i = 0; i < speech.length; i += f) {
    const p = power(speech, i, Math.min(speech.length, i + f));
    frames.push([i, p]);
    if (p > max) max = p;
  }
  const floor = max / 10 ** (ACTIVE_RANGE_DB / 10);
  let sum = 0;
  let n = 0;
  for (const [i, p] of frames) {
    if (p < floor) continue;
    const end = Math.min(speech.length, i + f);
    for (let j = i; j < end; j++) sum += noise[j]! * noise[j]!;
    n += end - i;
  }
  return n === 0 ? 0 : sum / n;
}

/**
 * PCM16 audio: signed 16-bit samples with their sample rate and channel count
 * (interleaved when there are two channels), and the few helpers every other audio
 * module needs. Bytes on the wire are little-endian, as in WAV, pipecat
 * `AudioRawFrame`s and RTVI `raw-audio`.
 *
 * @example
 * ```ts
 * const beep = pcm16(new Int16Array([0, 1000, 0, -1000]), 16000);
 * const call = concatPcm([beep, silence(16000, 20)]);
 * durationMs(call); // 20.25
 * const bytes = pcm16ToBytes(call.samples); // 650 bytes, little-endian
 * pcm16FromBytes(bytes); // { ok: true, samples }
 * ```
 *
 * @module
 */

/** Signed 16-bit PCM. Stereo samples are interleaved (left, right, left, ...). */
export interface Pcm16 {
  /** The samples, interleaved when stereo. */
  readonly samples: Int16Array;
  /** Samples per second per channel. */
  readonly sampleRate: number;
  /** 1 (mono) or 2 (stereo). */
  readonly channels: 1 | 2;
}

/** A problem with audio bytes or a format, as data. */
export interface AudioFormatProblem {
  ok: false;
  message: string;
}

/** Makes a `Pcm16`, checking the rate and that stereo samples come in pairs. */
export function pcm16(samples: Int16Array, sampleRate: number, channels: 1 | 2 = 1): Pcm16 {
  if (!Number.isInteger(sampleRate) || sampleRate <= 0) {
    throw new RangeError(`Invalid sample rate ${sampleRate}`);
  }
  if (samples.length % channels !== 0) {
    throw new RangeError(`${samples.length} samples do not split into ${channels} channels`);
  }
  return { samples, sampleRate, channels };
}

/** Samples per channel. */
export function frameCount(audio: Pcm16): number {
  return audio.samples.length / audio.channels;
}

/** Duration in milliseconds. */
export function durationMs(audio: Pcm16): number {
  return (frameCount(audio) * 1000) / audio.sampleRate;
}

/** Samples per channel in `ms` milliseconds at `sampleRate` (rounded to the nearest). */
export function samplesFor(sampleRate: number, ms: number): number {
  return Math.round((sampleRate * ms) / 1000);
}

/** `ms` milliseconds of digital silence. */
export function silence(sampleRate: number, ms: number, channels: 1 | 2 = 1): Pcm16 {
  return pcm16(new Int16Array(samplesFor(sampleRate, ms) * channels), sampleRate, channels);
}

/** Joins clips of one rate and channel count; throws a `RangeError` when they differ. */
export function concatPcm(parts: readonly Pcm16[]): Pcm16 {
  const first = parts[0];
  if (!first) throw new RangeError("Nothing to concatenate");
  for (const p of parts) {
    if (p.sampleRate !== first.sampleRate || p.channels !== first.channels) {
      throw new RangeError(
        `Cannot join ${p.sampleRate} Hz x${p.channels} audio to ${first.sampleRate} Hz x${first.channels}`,
      );
    }
  }
  return pcm16(concatSamples(parts.map((p) => p.samples)), first.sampleRate, first.channels);
}

/** Joins sample arrays into one (a copy). */
export function concatSamples(parts: readonly Int16Array[]): Int16Array {
  let total = 0;
  for (const p of parts) total += p.length;
  const out = new Int16Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** This host stores numbers little-endian, as PCM16 on the wire is: bytes copy as they are. */
const LITTLE_ENDIAN = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;

/** Samples as little-endian bytes (a copy; correct on any host byte order). */
export function pcm16ToBytes(samples: Int16Array): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(samples.length * 2);
  if (LITTLE_ENDIAN) {
    out.set(new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength));
    return out;
  }
  const view = new DataView(out.buffer);
  for (let i = 0; i < samples.length; i++) view.setInt16(i * 2, samples[i]!, true);
  return out;
}

/**
 * The samples as little-endian bytes: a view of their own memory on a little-endian
 * host (no copy; writing one writes the other), else a copy.
 */
export function pcm16BytesView(samples: Int16Array): Uint8Array<ArrayBuffer> {
  if (!LITTLE_ENDIAN || !(samples.buffer instanceof ArrayBuffer)) return pcm16ToBytes(samples);
  return new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength);
}

/** Why `byteCount` bytes are not PCM16 samples (an odd count), or undefined. */
export function pcm16ByteProblem(byteCount: number): string | undefined {
  return byteCount % 2 === 0 ? undefined : `PCM16 audio has an odd byte count (${byteCount})`;
}

/** Little-endian bytes as samples; an odd byte count is a problem, not a truncation. */
export function pcm16FromBytes(
  bytes: Uint8Array,
): { ok: true; samples: Int16Array } | AudioFormatProblem {
  const problem = pcm16ByteProblem(bytes.length);
  if (problem) return { ok: false, message: problem };
  return { ok: true, samples: pcm16Samples(bytes) };
}

/**
 * Little-endian bytes as samples, copied: into a new array, or into `into` from index 0
 * (the view of what was written is returned). An odd byte count, or too little room,
 * throws a `RangeError`.
 */
export function pcm16Samples(bytes: Uint8Array, into?: Int16Array): Int16Array {
  const problem = pcm16ByteProblem(bytes.length);
  if (problem) throw new RangeError(problem);
  const count = bytes.length / 2;
  if (into && into.length < count) {
    throw new RangeError(`room for ${into.length} samples, not ${count}`);
  }
  const samples = into ? into.subarray(0, count) : new Int16Array(count);
  if (LITTLE_ENDIAN) {
    new Uint8Array(samples.buffer, samples.byteOffset, bytes.length).set(bytes);
    return samples;
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < samples.length; i++) samples[i] = view.getInt16(i * 2, true);
  return samples;
}

/** Interleaves two mono channels into stereo; the shorter one is padded with silence. */
export function interleave(left: Int16Array, right: Int16Array): Int16Array {
  const n = Math.max(left.length, right.length);
  const out = new Int16Array(n * 2);
  // The shorter side is zeros past its end (the array's own): no test per sample.
  for (let i = 0; i < left.length; i++) out[2 * i] = left[i]!;
  for (let i = 0; i < right.length; i++) out[2 * i + 1] = right[i]!;
  return out;
}

/** Averages stereo to mono (mono is returned as it is). */
export function toMono(audio: Pcm16): Pcm16 {
  if (audio.channels === 1) return audio;
  const n = frameCount(audio);
  const out = new Int16Array(n);
  for (let i = 0; i < n; i++) {
    out[i] = (audio.samples[2 * i]! + audio.samples[2 * i + 1]!) >> 1;
  }
  return pcm16(out, audio.sampleRate, 1);
}

/** Rounds and clips a float sample (full scale ±32768) to int16. */
export function clip16(x: number): number {
  const r = Math.round(x);
  return r > 32767 ? 32767 : r < -32768 ? -32768 : r;
}

/** Mean power of samples, in int16 units squared (0 for none). */
export function meanPower(samples: ArrayLike<number>): number {
  // PCM16 has a loop of its own: one loop for every array type reads each element
  // through a generic access, ten times slower (2.1 against 0.2 ms for 3 s of audio).
  if (samples instanceof Int16Array) return meanPower16(samples, 0, samples.length);
  if (samples.length === 0) return 0;
  let sum = 0;
  for (let i = 0; i < samples.length; i++) sum += samples[i]! * samples[i]!;
  return sum / samples.length;
}

/** Mean power of `samples[from..to)` (0 for none), summed in order as {@link meanPower} does. */
export function meanPower16(samples: Int16Array, from: number, to: number): number {
  if (to <= from) return 0;
  let sum = 0;
  for (let i = from; i < to; i++) {
    const v = samples[i]!;
    sum += v * v;
  }
  return sum / (to - from);
}

/** Level in dB relative to a full-scale square wave (0 dBFS = power 32768²). */
export function dbfs(samples: ArrayLike<number>): number {
  return powerDbfs(meanPower(samples));
}

/** A mean power (int16 units squared, as {@link meanPower} gives) in dBFS. */
export function powerDbfs(p: number): number {
  return p === 0 ? -Infinity : 10 * Math.log10(p / (32768 * 32768));
}

/** A sine tone (tests, beeps): `amplitude` in int16 units, `phase` in radians. */
export function sine(
  sampleRate: number,
  frequency: number,
  ms: number,
  amplitude = 16000,
  phase = 0,
): Int16Array {
  const n = samplesFor(sampleRate, ms);
  const out = new Int16Array(n);
  const w = (2 * Math.PI * frequency) / sampleRate;
  for (let i = 0; i < n; i++) out[i] = clip16(amplitude * Math.sin(w * i + phase));
  return out;
}

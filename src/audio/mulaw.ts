/**
 * G.711 µ-law: 8-bit telephone samples (Twilio Media Streams, 8 kHz) to and from
 * 16-bit linear PCM. Encoding clips at ±32635 and adds the standard bias of 0x84; the
 * decoder returns the middle of each quantization interval, so a round trip is off by
 * at most half a step (4 in the smallest segment, 512 in the largest).
 *
 * @example
 * ```ts
 * const bytes = mulawEncode(new Int16Array([0, 1000, -1000])); // [0xff, 0xce, 0x4e]
 * mulawDecode(bytes); // Int16Array [0, 988, -988]
 * ```
 *
 * @module
 */

const BIAS = 0x84;
const CLIP = 32635;

/** One sample to a µ-law byte. */
export function mulawEncodeSample(sample: number): number {
  let x = Math.max(-32768, Math.min(32767, Math.round(sample)));
  const sign = x < 0 ? 0x80 : 0;
  if (x < 0) x = -x;
  if (x > CLIP) x = CLIP;
  x += BIAS;
  // Segment: position of the highest set bit above bit 7.
  let exponent = 7;
  for (let mask = 0x4000; (x & mask) === 0 && exponent > 0; mask >>= 1) exponent--;
  const mantissa = (x >> (exponent + 3)) & 0x0f;
  return ~(sign | (exponent << 4) | mantissa) & 0xff;
}

/** One µ-law byte to a linear sample. */
export function mulawDecodeSample(byte: number): number {
  const u = ~byte & 0xff;
  const exponent = (u >> 4) & 0x07;
  const t = (((u & 0x0f) << 3) + BIAS) << exponent;
  return u & 0x80 ? BIAS - t : t - BIAS;
}

const DECODE = Int16Array.from({ length: 256 }, (_, b) => mulawDecodeSample(b));
/**
 * Encoding depends on the sign and on the magnitude's top 13 bits: a table of positive
 * codes by magnitude >> 2; a negative code is the positive one without bit 7.
 */
const ENCODE = Uint8Array.from({ length: 8193 }, (_, i) => mulawEncodeSample(i * 4));

/**
 * Linear PCM16 samples to µ-law bytes: in `into` when it is long enough (a view of it is
 * returned, for bytes used at once), else in a new array.
 */
export function mulawEncode(samples: Int16Array, into?: Uint8Array): Uint8Array {
  const out = into && into.length >= samples.length
    ? into.subarray(0, samples.length)
    : new Uint8Array(samples.length);
  for (let i = 0; i < samples.length; i++) {
    const x = samples[i]!;
    out[i] = x < 0 ? ENCODE[-x >> 2]! & 0x7f : ENCODE[x >> 2]!;
  }
  return out;
}

/** µ-law bytes to linear PCM16 samples. */
export function mulawDecode(bytes: Uint8Array): Int16Array {
  const out = new Int16Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) out[i] = DECODE[bytes[i]!]!;
  return out;
}

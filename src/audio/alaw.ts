/**
 * G.711 A-law: 8-bit telephone samples (RTP payload type 8, PCMA, 8 kHz) to and from
 * 16-bit linear PCM. A-law quantizes the top 13 bits of a sample: eight segments of
 * sixteen steps, the first two segments with the same step. Even bits are inverted on
 * the wire (XOR 0x55) and bit 7 is set for positive values, so silence is 0xd5. The
 * decoder returns the middle of each quantization interval, so a round trip is off by
 * at most half a step (8 in the two smallest segments, 512 in the largest).
 *
 * @example
 * ```ts
 * const bytes = alawEncode(new Int16Array([0, 1000, -1000])); // [0xd5, 0xfa, 0x7a]
 * alawDecode(bytes); // Int16Array [8, 1008, -1008]
 * ```
 *
 * @module
 */

/** The A-law code of a zero sample (the line's silence). */
export const ALAW_SILENCE = 0xd5;

/** One sample to an A-law byte. */
export function alawEncodeSample(sample: number): number {
  const x16 = Math.max(-32768, Math.min(32767, Math.round(sample)));
  // 13-bit magnitude; negative values use the one's complement so that -1..-8 map
  // to the smallest negative step, as the standard's encoder does.
  let x = x16 >> 3;
  let mask: number;
  if (x >= 0) {
    mask = 0xd5;
  } else {
    mask = 0x55;
    x = -x - 1;
  }
  let segment = 0;
  while (segment < 7 && x > (0x20 << segment) - 1) segment++;
  const mantissa = segment < 2 ? (x >> 1) & 0x0f : (x >> segment) & 0x0f;
  return ((segment << 4) | mantissa) ^ mask;
}

/** One A-law byte to a linear sample. */
export function alawDecodeSample(byte: number): number {
  const a = (byte ^ 0x55) & 0xff;
  const segment = (a >> 4) & 0x07;
  const mantissa = a & 0x0f;
  // Middle of the interval, in 13-bit units: 2m+1 in segment 0, (2m+33) << (s-1) above.
  const magnitude13 = segment === 0 ? 2 * mantissa + 1 : (2 * mantissa + 33) << (segment - 1);
  const value = magnitude13 << 3;
  return a & 0x80 ? value : -value;
}

const DECODE = Int16Array.from({ length: 256 }, (_, b) => alawDecodeSample(b));
/** Codes by the sample's top 13 bits (offset by 4096 so every index is positive). */
const ENCODE = Uint8Array.from({ length: 8192 }, (_, i) => alawEncodeSample((i - 4096) << 3));

/** Linear PCM16 samples to A-law bytes. */
export function alawEncode(samples: Int16Array): Uint8Array {
  const out = new Uint8Array(samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = ENCODE[(samples[i]! >> 3) + 4096]!;
  return out;
}

/** A-law bytes to linear PCM16 samples. */
export function alawDecode(bytes: Uint8Array): Int16Array {
  const out = new Int16Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) out[i] = DECODE[bytes[i]!]!;
  return out;
}

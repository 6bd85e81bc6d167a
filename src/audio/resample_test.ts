import assert from "node:assert/strict";
import { COMMON_RATES, resample, Resampler } from "./resample.ts";
import { mulberry32 } from "../random/mulberry32.ts";

function sineAt(rate: number, freq: number, n: number, amp: number): Float64Array {
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = amp * Math.sin((2 * Math.PI * freq * i) / rate);
  return out;
}

/** SNR in dB of `got` against the ideal, skipping `edge` samples at each end. */
function snrDb(got: Int16Array, ideal: Float64Array, edge: number): number {
  let s = 0;
  let e = 0;
  for (let i = edge; i < Math.min(got.length, ideal.length) - edge; i++) {
    s += ideal[i]! * ideal[i]!;
    e += (got[i]! - ideal[i]!) ** 2;
  }
  return 10 * Math.log10(s / e);
}

function toInt16(x: Float64Array): Int16Array {
  return Int16Array.from(x, (v) => Math.round(v));
}

Deno.test("resample() keeps a 1 kHz sine above 60 dB SNR between every pair of common rates", () => {
  for (const from of COMMON_RATES) {
    for (const to of COMMON_RATES) {
      if (from === to) continue;
      const input = toInt16(sineAt(from, 1000, from, 12000));
      const out = resample(input, from, to);
      assert.deepEqual(out.length, Math.ceil((input.length * to) / from));
      const snr = snrDb(out, sineAt(to, 1000, out.length, 12000), 200);
      assert.ok(snr > 60, `${from} -> ${to}: ${snr.toFixed(1)} dB`);
    }
  }
});

Deno.test("resample() keeps in-band tones near each lower Nyquist above 60 dB SNR", () => {
  for (
    const [from, to, freq] of [[8000, 24000, 2500], [24000, 8000, 2500], [16000, 22050, 5000], [
      22050,
      16000,
      5000,
    ]] as const
  ) {
    const input = toInt16(sineAt(from, freq, from, 12000));
    const out = resample(input, from, to);
    const snr = snrDb(out, sineAt(to, freq, out.length, 12000), 200);
    assert.ok(snr > 60, `${from} -> ${to} at ${freq} Hz: ${snr.toFixed(1)} dB`);
  }
});

Deno.test("resample() removes tones above the new Nyquist frequency instead of aliasing them", () => {
  for (
    const [from, to, freq] of [[24000, 8000, 6000], [16000, 8000, 5000], [22050, 8000, 5500], [
      24000,
      16000,
      10000,
    ], [24000, 22050, 11500]] as const
  ) {
    const input = toInt16(sineAt(from, freq, from, 16000));
    const out = resample(input, from, to);
    let p = 0;
    for (let i = 200; i < out.length - 200; i++) p += out[i]! * out[i]!;
    const level = 10 * Math.log10(p / (out.length - 400) / (16000 * 16000 / 2));
    assert.ok(level < -60, `${from} -> ${to}, ${freq} Hz left at ${level.toFixed(1)} dB`);
  }
});

Deno.test("Resampler.process() over random chunks gives the same output as one resample()", () => {
  const rand = mulberry32(7);
  for (const [from, to] of [[24000, 16000], [16000, 24000], [22050, 8000], [8000, 22050]]) {
    const input = Int16Array.from({ length: 12345 }, () => Math.round((rand() - 0.5) * 20000));
    const whole = resample(input, from!, to!);
    const r = new Resampler(from!, to!);
    const parts: number[] = [];
    let at = 0;
    while (at < input.length) {
      const n = Math.floor(rand() * 700);
      parts.push(...r.process(input.subarray(at, at + n)));
      at += n;
    }
    parts.push(...r.flush());
    assert.deepEqual(Int16Array.from(parts), whole, `${from} -> ${to}`);
  }
});

Deno.test("Resampler.outputFor() is exact, and processBytes() writes into a given array: the same samples, no array of its own", () => {
  const rand = mulberry32(5);
  for (
    const [from, to] of [[24000, 16000], [8000, 16000], [16000, 8000], [44100, 16000], [
      16000,
      16000,
    ]]
  ) {
    const input = Int16Array.from({ length: 9000 }, () => Math.round((rand() - 0.5) * 60000));
    const bytes = new Uint8Array(input.buffer);
    const alone = new Resampler(from!, to!);
    const into = new Resampler(from!, to!);
    const room = new Int16Array(4000);
    // Chunks of odd sizes, so the phase at each chunk's start varies.
    for (let at = 0, k = 0; at < input.length; k++) {
      const size = Math.min(input.length - at, [160, 480, 1, 333, 960][k % 5]!);
      const chunk = bytes.subarray(2 * at, 2 * (at + size));
      const due = alone.outputFor(size);
      const a = alone.processBytes(chunk);
      assert.equal(a.length, due, `${from} -> ${to} at ${at}`);
      assert.equal(a.buffer.byteLength, a.byteLength, "an array exactly its length");
      assert.equal(into.outputFor(size), due);
      const b = into.processBytes(chunk, room.subarray(7));
      assert.equal(b.buffer, room.buffer);
      assert.equal(b.byteOffset, 14);
      assert.deepEqual([...b], [...a]);
      at += size;
    }
  }
  const r = new Resampler(24000, 16000);
  assert.throws(
    () => r.processBytes(new Uint8Array(960), new Int16Array(300)),
    /room for 300 samples/,
  );
});

Deno.test("Resampler.processBytes() reads little-endian PCM16 in place, from views at odd offsets, as process() does", () => {
  const rand = mulberry32(11);
  for (const [from, to] of [[24000, 16000], [8000, 16000], [16000, 16000]]) {
    const input = Int16Array.from({ length: 5000 }, () => Math.round((rand() - 0.5) * 65535));
    input[0] = -32768;
    input[1] = 32767;
    // The bytes one past the start of a bigger buffer: an odd offset, as a socket's read gives.
    const backing = new Uint8Array(input.length * 2 + 3);
    const bytes = backing.subarray(1, 1 + input.length * 2);
    for (let i = 0; i < input.length; i++) {
      bytes[2 * i] = input[i]! & 0xff;
      bytes[2 * i + 1] = (input[i]! >> 8) & 0xff;
    }
    const byBytes = new Resampler(from!, to!);
    const bySamples = new Resampler(from!, to!);
    const a: number[] = [];
    const b: number[] = [];
    for (let at = 0; at < input.length; at += 480) {
      a.push(...byBytes.processBytes(bytes.subarray(2 * at, 2 * Math.min(input.length, at + 480))));
      b.push(...bySamples.process(input.subarray(at, at + 480)));
    }
    a.push(...byBytes.flush());
    b.push(...bySamples.flush());
    assert.deepEqual(a, b, `${from} -> ${to}`);
    if (from === to) assert.deepEqual(a, [...input]);
  }
  assert.throws(
    () => new Resampler(24000, 16000).processBytes(new Uint8Array(3)),
    /odd byte count \(3\)/,
  );
});

Deno.test("Resampler rejects rates whose ratio needs too many phases", () => {
  assert.throws(() => new Resampler(16000, 16001), RangeError);
  assert.throws(() => new Resampler(0, 16000), RangeError);
});

Deno.test("resample() between equal rates copies the samples", () => {
  const input = new Int16Array([1, 2, 3]);
  const out = resample(input, 16000, 16000);
  assert.deepEqual(out, input);
  assert.ok(out !== input);
});

Deno.test("resample() and Resampler give the bytes they always gave, between every pair of 7 rates", async () => {
  // The inner loop runs four outputs side by side; each is still summed alone, in tap
  // order, so the bytes are those of one output at a time (pinned by this digest of
  // the earlier loop's output: loud enough to clip, whole and in random chunks).
  const rates = [8000, 16000, 22050, 24000, 32000, 44100, 48000];
  const rand = mulberry32(12345);
  const signal = Int16Array.from({ length: 20000 }, (_, i) => {
    const loud = i % 3000 < 1500 ? 1.2 : 0.3;
    const v = Math.round(30000 * Math.sin(i * 0.05) * loud + 3000 * (rand() - 0.5));
    return Math.max(-32768, Math.min(32767, v));
  });
  const parts: Int16Array[] = [];
  for (const from of rates) {
    for (const to of rates) {
      parts.push(resample(signal, from, to));
      const r = new Resampler(from, to);
      for (let at = 0; at < signal.length;) {
        const n = 1 + Math.floor(rand() * 700);
        parts.push(r.process(signal.subarray(at, at + n)));
        at += n;
      }
      parts.push(r.flush());
    }
  }
  const bytes = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const p of parts) {
    bytes.set(new Uint8Array(p.buffer, p.byteOffset, p.byteLength), at);
    at += p.byteLength;
  }
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  assert.equal(
    Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join(""),
    "3aeff18d17c1f5e1b4e44522d53fa735a3b4603ee1e085ca3ffcd86caef94109",
  );
});

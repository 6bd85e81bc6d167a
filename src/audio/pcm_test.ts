import assert from "node:assert/strict";
import {
  concatPcm,
  concatSamples,
  durationMs,
  interleave,
  pcm16,
  pcm16FromBytes,
  pcm16Samples,
  pcm16ToBytes,
  silence,
  toMono,
} from "./pcm.ts";

Deno.test("pcm16ToBytes() writes little-endian and pcm16FromBytes() reads it back", () => {
  const samples = new Int16Array([0, 1, -1, 32767, -32768, 0x1234]);
  const bytes = pcm16ToBytes(samples);
  assert.deepEqual([...bytes.subarray(0, 6)], [0, 0, 1, 0, 0xff, 0xff]);
  assert.deepEqual([...bytes.subarray(10)], [0x34, 0x12]);
  const back = pcm16FromBytes(bytes);
  assert.ok(back.ok);
  assert.deepEqual(back.samples, samples);
});

Deno.test("pcm16FromBytes() reads an unaligned view and rejects an odd byte count", () => {
  const buf = new Uint8Array([9, 2, 0, 3, 0]);
  const back = pcm16FromBytes(buf.subarray(1));
  assert.ok(back.ok);
  assert.deepEqual([...back.samples], [2, 3]);
  const odd = pcm16FromBytes(new Uint8Array(3));
  assert.ok(!odd.ok && odd.message.includes("odd byte count (3)"));
});

Deno.test("pcm16Samples() copies an unaligned view's samples and throws a RangeError on an odd byte count", () => {
  const buf = new Uint8Array([9, 2, 0, 0xfe, 0xff]);
  const samples = pcm16Samples(buf.subarray(1));
  assert.deepEqual([...samples], [2, -2]);
  buf[1] = 7;
  assert.equal(samples[0], 2, "a copy, not a view");
  assert.throws(() => pcm16Samples(new Uint8Array(3)), RangeError);
});

Deno.test("durationMs(), silence() and concatPcm() agree on lengths", () => {
  const a = silence(16000, 16);
  assert.equal(a.samples.length, 256);
  const b = pcm16(new Int16Array([1, 2, 3, 4]), 16000);
  const joined = concatPcm([a, b]);
  assert.equal(joined.samples.length, 260);
  assert.equal(durationMs(joined), 16.25);
  assert.equal(durationMs(silence(8000, 20, 2)), 20);
  assert.throws(() => concatPcm([a, silence(8000, 10)]), RangeError);
  assert.throws(() => concatPcm([]), RangeError);
});

Deno.test("concatSamples() joins in order, copying", () => {
  const a = new Int16Array([1, 2]);
  const joined = concatSamples([a, new Int16Array(), new Int16Array([3])]);
  assert.deepEqual([...joined], [1, 2, 3]);
  a[0] = 9;
  assert.equal(joined[0], 1);
  assert.equal(concatSamples([]).length, 0);
});

Deno.test("pcm16() rejects a bad rate and unpaired stereo samples", () => {
  assert.throws(() => pcm16(new Int16Array(2), 0), RangeError);
  assert.throws(() => pcm16(new Int16Array(3), 16000, 2), RangeError);
});

Deno.test("interleave() pads the shorter channel and toMono() averages", () => {
  const st = interleave(new Int16Array([10, 20]), new Int16Array([30]));
  assert.deepEqual([...st], [10, 30, 20, 0]);
  assert.deepEqual([...toMono(pcm16(st, 8000, 2)).samples], [20, 10]);
});

Deno.test("PCM16 bytes are little-endian from views at any offset, both ways", () => {
  const whole = Int16Array.of(0, 1, -1, 256, -32768, 32767, 0x1234);
  const view = whole.subarray(2, 6); // -1, 256, -32768, 32767
  assert.deepEqual([...pcm16ToBytes(view)], [0xff, 0xff, 0x00, 0x01, 0x00, 0x80, 0xff, 0x7f]);
  // Bytes at an odd offset of their buffer (a frame's payload inside a message).
  const framed = Uint8Array.of(9, 0xff, 0xff, 0x00, 0x01, 0x00, 0x80, 0xff, 0x7f, 9);
  const got = pcm16FromBytes(framed.subarray(1, 9));
  assert.ok(got.ok);
  assert.deepEqual([...got.samples], [-1, 256, -32768, 32767]);
});

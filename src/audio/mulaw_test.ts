import assert from "node:assert/strict";
import { mulawDecode, mulawDecodeSample, mulawEncode, mulawEncodeSample } from "./mulaw.ts";

Deno.test("mulawDecodeSample() matches known points of the G.711 table", () => {
  // Code -> linear value (16-bit scale), from the standard's decoding table.
  const known: [number, number][] = [
    [0x00, -32124],
    [0x01, -31100],
    [0x0f, -16764],
    [0x10, -15996],
    [0x20, -7932],
    [0x30, -3900],
    [0x40, -1884],
    [0x50, -876],
    [0x60, -372],
    [0x70, -120],
    [0x7e, -8],
    [0x7f, 0],
    [0x80, 32124],
    [0xc0, 1884],
    [0xf0, 120],
    [0xff, 0],
  ];
  for (const [code, value] of known) {
    assert.equal(mulawDecodeSample(code), value, `0x${code.toString(16)}`);
  }
});

Deno.test("mulawEncodeSample() matches known points and clips at full scale", () => {
  assert.equal(mulawEncodeSample(0), 0xff);
  assert.equal(mulawEncodeSample(-1), 0x7f);
  assert.equal(mulawEncodeSample(8), 0xfe);
  assert.equal(mulawEncodeSample(32767), 0x80);
  assert.equal(mulawEncodeSample(-32768), 0x00);
  assert.equal(mulawEncodeSample(32124), 0x80);
  assert.equal(mulawEncodeSample(1000), 0xce);
  assert.equal(mulawEncodeSample(-1000), 0x4e);
});

Deno.test("mulawEncode() agrees with the per-sample encoder on every int16 value", () => {
  const all = Int16Array.from({ length: 65536 }, (_, i) => i - 32768);
  const fast = mulawEncode(all);
  for (let i = 0; i < all.length; i++) {
    if (fast[i] !== mulawEncodeSample(all[i]!)) assert.fail(`sample ${all[i]}`);
  }
});

Deno.test("a µ-law round trip is off by at most half a quantization step", () => {
  const all = Int16Array.from({ length: 65536 }, (_, i) => i - 32768);
  const back = mulawDecode(mulawEncode(all));
  for (let i = 0; i < all.length; i++) {
    const x = all[i]!;
    const mag = Math.min(Math.abs(x), 32635) + 0x84;
    const segment = Math.floor(Math.log2(mag)) - 7;
    const halfStep = 4 << segment;
    const target = Math.sign(x) * Math.min(Math.abs(x), 32635);
    if (Math.abs(back[i]! - target) > halfStep) assert.fail(`${x} -> ${back[i]}`);
  }
});

Deno.test("mulawDecode() is odd-symmetric and monotonic over the codes", () => {
  const values = Array.from({ length: 128 }, (_, k) => mulawDecodeSample(0xff - k));
  for (let k = 1; k < 128; k++) assert.ok(values[k]! > values[k - 1]!);
  for (let b = 0; b < 128; b++) assert.equal(mulawDecodeSample(b) + mulawDecodeSample(b | 0x80), 0);
});

Deno.test("mulawEncode() into a buffer long enough writes a view of it; a short one is not used", () => {
  const samples = Int16Array.from({ length: 160 }, (_, i) => (i - 80) * 400);
  const into = new Uint8Array(200).fill(9);
  const out = mulawEncode(samples, into);
  assert.equal(out.buffer, into.buffer);
  assert.equal(out.length, 160);
  assert.deepEqual(out, mulawEncode(samples));
  assert.equal(into[160], 9, "nothing written past the samples");
  const short = new Uint8Array(10);
  const fresh = mulawEncode(samples, short);
  assert.notEqual(fresh.buffer, short.buffer);
  assert.deepEqual(fresh, out);
});

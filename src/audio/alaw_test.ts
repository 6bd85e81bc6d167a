import assert from "node:assert/strict";
import {
  ALAW_SILENCE,
  alawDecode,
  alawDecodeSample,
  alawEncode,
  alawEncodeSample,
} from "./alaw.ts";

Deno.test("alawDecodeSample() matches known points of the G.711 A-law table", () => {
  // Code -> linear value (16-bit scale), from the standard's decoding table
  // (decoder output values of Table 2a/2b, times 8 for 16 bits).
  const known: [number, number][] = [
    [0xd5, 8],
    [0x55, -8],
    [0xd4, 24],
    [0xda, 248],
    [0xc5, 264],
    [0xf5, 528],
    [0x85, 4224],
    [0xaa, 32256],
    [0x2a, -32256],
    [0xa5, 16896],
    [0x25, -16896],
  ];
  for (const [code, value] of known) {
    assert.equal(alawDecodeSample(code), value, `0x${code.toString(16)}`);
  }
});

Deno.test("alawDecodeSample() gives 256 distinct values, symmetric around zero", () => {
  const values = Array.from({ length: 256 }, (_, b) => alawDecodeSample(b));
  assert.equal(new Set(values).size, 256);
  for (let b = 0; b < 128; b++) assert.equal(alawDecodeSample(b), -alawDecodeSample(b | 0x80));
  assert.equal(Math.max(...values), 32256);
  assert.equal(Math.min(...values), -32256);
});

Deno.test("alawEncodeSample() matches known points and clips at full scale", () => {
  assert.equal(alawEncodeSample(0), ALAW_SILENCE);
  assert.equal(alawEncodeSample(7), 0xd5);
  assert.equal(alawEncodeSample(-1), 0x55);
  assert.equal(alawEncodeSample(-8), 0x55);
  assert.equal(alawEncodeSample(-16), 0x55);
  assert.equal(alawEncodeSample(-17), 0x54);
  assert.equal(alawEncodeSample(16), 0xd4);
  assert.equal(alawEncodeSample(1000), 0xfa);
  assert.equal(alawEncodeSample(-1000), 0x7a);
  assert.equal(alawEncodeSample(32767), 0xaa);
  assert.equal(alawEncodeSample(-32768), 0x2a);
  assert.equal(alawEncodeSample(1e9), 0xaa);
});

Deno.test("alawEncodeSample() picks the code whose interval holds the sample (every int16)", () => {
  for (let x = -32768; x <= 32767; x++) {
    const code = alawEncodeSample(x);
    const decoded = alawDecodeSample(code);
    // The nearest decoded level among all 256 codes on the same side is the one chosen,
    // up to the interval edges (the encoder truncates, the decoder returns midpoints).
    const back = alawDecodeSample(alawEncodeSample(decoded));
    if (back !== decoded) assert.fail(`level ${decoded} does not encode to itself`);
  }
});

Deno.test("alawEncode() agrees with the per-sample encoder on every int16 value", () => {
  const all = Int16Array.from({ length: 65536 }, (_, i) => i - 32768);
  const fast = alawEncode(all);
  for (let i = 0; i < all.length; i++) {
    if (fast[i] !== alawEncodeSample(all[i]!)) assert.fail(`sample ${all[i]}`);
  }
});

Deno.test("an A-law round trip is off by at most half a quantization step", () => {
  const all = Int16Array.from({ length: 65536 }, (_, i) => i - 32768);
  const back = alawDecode(alawEncode(all));
  for (let i = 0; i < all.length; i++) {
    const x = all[i]!;
    const mag = x < 0 ? -x - 1 : x;
    const segment = Math.max(0, Math.floor(Math.log2(Math.max(1, mag >> 3))) - 4);
    const halfStep = segment < 2 ? 8 : 8 << (segment - 1);
    const err = Math.abs(back[i]! - x);
    // Full-scale values beyond the top level (32256) are clipped to it.
    if (err > halfStep + (mag > 32256 + 512 ? mag - 32256 : 0)) assert.fail(`${x} -> ${back[i]}`);
  }
});

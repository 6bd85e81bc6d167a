import assert from "node:assert/strict";
import { interleave, pcm16, sine } from "./pcm.ts";
import { decodeWav, encodeWav, writeWavFile } from "./wav.ts";

Deno.test("encodeWav() writes the canonical 44-byte PCM16 header", () => {
  const bytes = encodeWav(pcm16(new Int16Array([1, -2, 3, -4]), 16000, 2));
  const v = new DataView(bytes.buffer);
  assert.equal(bytes.length, 44 + 8);
  assert.equal(new TextDecoder().decode(bytes.subarray(0, 4)), "RIFF");
  assert.equal(v.getUint32(4, true), 36 + 8);
  assert.equal(v.getUint16(22, true), 2);
  assert.equal(v.getUint32(24, true), 16000);
  assert.equal(v.getUint32(28, true), 64000);
  assert.equal(v.getUint16(32, true), 4);
  assert.equal(v.getUint32(40, true), 8);
  assert.equal(v.getInt16(46, true), -2);
});

Deno.test("decodeWav() reads back what encodeWav() wrote, mono and stereo", () => {
  const mono = pcm16(sine(8000, 440, 50), 8000);
  const stereo = pcm16(interleave(sine(24000, 440, 20), sine(24000, 880, 30)), 24000, 2);
  for (const audio of [mono, stereo]) {
    const back = decodeWav(encodeWav(audio));
    assert.ok(back.ok);
    assert.deepEqual(back.audio, audio);
  }
});

Deno.test("decodeWav() skips unknown chunks and reads WAVE_FORMAT_EXTENSIBLE PCM", () => {
  const plain = encodeWav(pcm16(new Int16Array([5, 6, 7]), 16000));
  // Rebuild: RIFF header, a LIST chunk (odd size, padded), a 40-byte extensible fmt, data.
  const list = [..."LIST"].map((c) => c.charCodeAt(0)).concat([3, 0, 0, 0, 1, 2, 3, 0]);
  const fmt = new Uint8Array(48);
  const fv = new DataView(fmt.buffer);
  fmt.set([..."fmt "].map((c) => c.charCodeAt(0)));
  fv.setUint32(4, 40, true);
  fmt.set(plain.subarray(20, 36), 8);
  fv.setUint16(8, 0xfffe, true);
  fv.setUint16(8 + 24, 1, true);
  const data = plain.subarray(36);
  const bytes = new Uint8Array([...plain.subarray(0, 12), ...list, ...fmt, ...data]);
  const back = decodeWav(bytes);
  assert.ok(back.ok, back.ok ? "" : back.message);
  assert.deepEqual([...back.audio.samples], [5, 6, 7]);
});

Deno.test("decodeWav() returns problems for non-WAV, non-PCM16 and truncated files", () => {
  assert.equal(decodeWav(new Uint8Array(4)).ok, false);
  assert.equal(decodeWav(new TextEncoder().encode("RIFF\0\0\0\0WAVEjunk")).ok, false);
  const float = encodeWav(pcm16(new Int16Array(2), 16000));
  new DataView(float.buffer).setUint16(20, 3, true);
  const r = decodeWav(float);
  assert.ok(!r.ok && r.message.includes("not PCM16"));
});

Deno.test("writeWavFile() reports a file it cannot write instead of throwing", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const audio = pcm16(new Int16Array([1, 2]), 16000);
    assert.deepEqual(await writeWavFile(`${dir}/ok.wav`, audio), { ok: true });
    const r = await writeWavFile(`${dir}/missing/dir/x.wav`, audio);
    assert.equal(r.ok, false);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

import assert from "node:assert/strict";
import { mulberry32 } from "../random/mulberry32.ts";
import { fliteSpeech, TEST_SENTENCES, voicedSignal } from "./_test_signals.ts";
import { detectDtmf, dtmfFrequencies, dtmfTones } from "./dtmf.ts";
import { DTMF_KEY_CHARS } from "../dtmf/keys.ts";
import { mulawDecode, mulawEncode } from "./mulaw.ts";
import { mixAtSnr } from "./noise.ts";
import { meanPower } from "./pcm.ts";
import { resample } from "./resample.ts";

function randomKeys(n: number, seed: number): string {
  const rand = mulberry32(seed);
  return Array.from({ length: n }, () => DTMF_KEY_CHARS[Math.floor(rand() * 16)]).join("");
}

/** Noise at `snrDb` below the tones' power while they sound (gaps excluded). */
function noisy(tones: Int16Array, snrDb: number, seed: number): Int16Array {
  const sounding = tones.filter((s) => s !== 0);
  return mixAtSnr(tones, snrDb, { seed, signalPower: meanPower(sounding) });
}

const detected = (samples: Int16Array, rate: number) =>
  detectDtmf(samples, rate).map((e) => e.key).join("");

Deno.test("dtmfFrequencies() maps keys to their row and column", () => {
  assert.deepEqual(dtmfFrequencies("1"), [697, 1209]);
  assert.deepEqual(dtmfFrequencies("#"), [941, 1477]);
  assert.deepEqual(dtmfFrequencies("d"), [941, 1633]);
  assert.equal(dtmfFrequencies("x"), undefined);
  assert.equal(dtmfFrequencies("12"), undefined);
});

Deno.test("DtmfDetector finds 400 random keys at 16 kHz, clean and in 15 dB noise", () => {
  const keys = randomKeys(400, 1);
  const tones = dtmfTones(keys, { sampleRate: 16000 });
  assert.equal(detected(tones, 16000), keys);
  assert.equal(detected(noisy(tones, 15, 2), 16000), keys);
});

Deno.test("DtmfDetector finds 400 random keys in 8 kHz µ-law, clean and in 15 dB noise", () => {
  const keys = randomKeys(400, 3);
  // Made at 16 kHz and sent down a phone line: resampled to 8 kHz and µ-law coded.
  const line = (s: Int16Array) => mulawDecode(mulawEncode(resample(s, 16000, 8000)));
  const tones = dtmfTones(keys, { sampleRate: 16000 });
  assert.equal(detected(line(tones), 8000), keys);
  assert.equal(detected(line(noisy(tones, 15, 4)), 8000), keys);
});

Deno.test("DtmfDetector reports each key once, at its start, with short tones and gaps", () => {
  const keys = "1122#*0";
  const tones = dtmfTones(keys, { sampleRate: 8000, toneMs: 60, gapMs: 60 });
  const events = detectDtmf(tones, 8000);
  assert.equal(events.map((e) => e.key).join(""), keys);
  events.forEach((e, k) => assert.ok(Math.abs(e.atMs - k * 120) <= 26, `${e.key} at ${e.atMs}`));
});

Deno.test("DtmfDetector gives the same keys however the audio is chunked", async () => {
  const { DtmfDetector } = await import("./dtmf.ts");
  const keys = randomKeys(30, 5);
  const tones = dtmfTones(keys, { sampleRate: 16000 });
  const d = new DtmfDetector({ sampleRate: 16000 });
  const got: string[] = [];
  for (let at = 0; at < tones.length; at += 97) {
    got.push(...d.push(tones.subarray(at, at + 97)).map((e) => e.key));
  }
  assert.equal(got.join(""), keys);
});

Deno.test("DtmfDetector hears no keys in TTS speech or a synthetic voiced signal", async () => {
  for (const rate of [16000, 8000]) {
    for (const voice of ["slt", "rms", "awb", "kal16"] as const) {
      const speech = await fliteSpeech(TEST_SENTENCES.join(" "), rate, voice);
      assert.deepEqual(detectDtmf(speech, rate), [], `${voice} at ${rate}`);
      const phone = mulawDecode(mulawEncode(speech));
      assert.deepEqual(detectDtmf(phone, rate), [], `${voice} at ${rate} µ-law`);
    }
    for (let seed = 1; seed <= 5; seed++) {
      assert.deepEqual(detectDtmf(voicedSignal(rate, 20_000, seed), rate), [], `seed ${seed}`);
    }
  }
});

Deno.test("DtmfDetector finds keys sent over speech 6 dB quieter than the tones", async () => {
  const rate = 16000;
  const keys = randomKeys(200, 6);
  const tones = dtmfTones(keys, { sampleRate: rate });
  const speech = await fliteSpeech(TEST_SENTENCES.join(" ").repeat(2), rate);
  const sounding = tones.filter((s) => s !== 0);
  const mixed = mixAtSnr(tones, 6, {
    noise: speech,
    signalPower: meanPower(sounding),
  });
  const got = detected(mixed, rate);
  // Keys found in order (an alignment); anything else was invented or doubled.
  let j = 0;
  let found = 0;
  for (const k of got) {
    while (j < keys.length && keys[j] !== k) j++;
    assert.ok(j < keys.length, `invented or doubled key in ${got}`);
    found++;
    j++;
  }
  console.log(`DTMF over speech at 6 dB: ${found}/${keys.length}`);
  assert.ok(found >= 170, `${found}/${keys.length} keys`);
});

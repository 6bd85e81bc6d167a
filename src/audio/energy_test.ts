import assert from "node:assert/strict";
import { frameLevels, speechSpan, trimSilence } from "./energy.ts";
import { dbfs } from "./pcm.ts";
import { voicedSignal } from "./_test_signals.ts";

/** `leadMs` of noise at `noiseDb` dBFS, `speechMs` of voice, `tailMs` of the same noise. */
function utterance(rate: number, leadMs: number, speechMs: number, tailMs: number, noiseDb = -60) {
  const n = (ms: number) => Math.round((ms * rate) / 1000);
  const out = new Int16Array(n(leadMs) + n(speechMs) + n(tailMs));
  let x = 7;
  const amp = 32768 * 10 ** (noiseDb / 20) * Math.sqrt(3);
  for (let i = 0; i < out.length; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = Math.round(((x / 2 ** 32) * 2 - 1) * amp);
  }
  out.set(voicedSignal(rate, speechMs, 1), n(leadMs));
  return out;
}

for (const rate of [8000, 16000, 24000]) {
  Deno.test(`energy speech span at ${rate} Hz: -60 dBFS noise before and after the voice is not speech`, () => {
    const span = speechSpan(utterance(rate, 400, 600, 300), rate)!;
    assert.equal(span.startMs, 400);
    assert.equal(span.endMs, 1000);
  });
}

Deno.test("energy speech span: a fading tail counts while within 35 dB of the voice's level", () => {
  const rate = 16000;
  // A steady 200 Hz tone (one level in every frame), then a tail 10 dB lower each 10 ms.
  const tone = (i: number) => Math.sin((2 * Math.PI * 200 * i) / rate) * 8000;
  const voice = Int16Array.from({ length: rate * 0.5 }, (_, i) => Math.round(tone(i)));
  const tail = Int16Array.from(
    { length: rate * 0.3 },
    (_, i) => Math.round(tone(i) * 10 ** ((-Math.floor(i / 160) * 10) / 20)),
  );
  const all = new Int16Array(voice.length + tail.length);
  all.set(voice);
  all.set(tail, voice.length);
  const span = speechSpan(all, rate)!;
  // Frames 0-3 of the tail are 0-30 dB down: speech; frame 4 (40 dB down) is not.
  assert.equal(span.endMs, 540);
});

Deno.test("trimSilence cuts leading and trailing near-silence on 10 ms frames; digital silence has no span", () => {
  const rate = 16000;
  const u = utterance(rate, 250, 500, 150);
  const t = trimSilence(u, rate);
  assert.equal(t.length, rate * 0.5);
  assert.equal(speechSpan(new Int16Array(1600), rate), undefined);
  const silent = new Int16Array(1600);
  assert.equal(trimSilence(silent, rate), silent);
});

Deno.test("frameLevels() is each 10 ms frame's dbfs exactly, the short last frame and silence too", () => {
  let x = 7;
  const samples = Int16Array.from({ length: 16000 + 57 }, (_, i) => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return i >= 3200 && i < 4800 ? 0 : (x % 65536) - 32768;
  });
  const levels = frameLevels(samples, 16000);
  assert.equal(levels.length, 101);
  for (let f = 0; f < levels.length; f++) {
    // Against the generic loop (a plain array of the frame's samples).
    const frame = Array.from(samples.subarray(f * 160, (f + 1) * 160));
    assert.equal(levels[f], dbfs(frame), `frame ${f}`);
  }
  assert.equal(levels[25], -Infinity);
});

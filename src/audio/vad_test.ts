import assert from "node:assert/strict";
import { fliteSpeech, TEST_SENTENCES, voicedSignal } from "./_test_signals.ts";
import { mixAtSnr, whiteNoise } from "./noise.ts";
import { dbfs, meanPower } from "./pcm.ts";
import { type SpeechEvent, SpeechSegmenter, Vad } from "./vad.ts";

async function segments(samples: Int16Array, sampleRate: number, mode: 0 | 1 | 2 | 3 = 2) {
  const vad = await Vad.create({ sampleRate, mode });
  try {
    const seg = new SpeechSegmenter({ frameMs: vad.frameMs });
    const events: SpeechEvent[] = [];
    const decisions: boolean[] = [];
    // Feed in 16 ms chunks, as audio arrives from a pacer.
    const step = Math.round(sampleRate * 0.016);
    for (let at = 0; at < samples.length; at += step) {
      const d = vad.process(samples.subarray(at, at + step));
      decisions.push(...d);
      events.push(...seg.push(d));
    }
    events.push(...seg.flush());
    return { events, decisions };
  } finally {
    vad.free();
  }
}

/** Milliseconds to the first 10 ms above -50 dBFS (TTS starts with a little silence). */
function onsetMs(samples: Int16Array, sampleRate: number): number {
  const step = sampleRate / 100;
  for (let i = 0; i < samples.length; i += step) {
    if (dbfs(samples.subarray(i, i + step)) > -50) return (i * 1000) / sampleRate;
  }
  return NaN;
}

/** Milliseconds from the last 10 ms above -50 dBFS to the end. */
function tailMs(samples: Int16Array, sampleRate: number): number {
  const step = sampleRate / 100;
  for (let i = samples.length - step; i >= 0; i -= step) {
    if (dbfs(samples.subarray(i, i + step)) > -50) {
      return ((samples.length - i - step) * 1000) / sampleRate;
    }
  }
  return NaN;
}

function padded(speech: Int16Array, sampleRate: number, ms = 1000): Int16Array {
  const pad = Math.round((sampleRate * ms) / 1000);
  const out = new Int16Array(speech.length + 2 * pad);
  out.set(speech, pad);
  return out;
}

Deno.test("Vad finds TTS speech between silences at 8, 16 and 24 kHz", async () => {
  for (const rate of [8000, 16000, 24000]) {
    const speech = await fliteSpeech(TEST_SENTENCES[1]!, rate);
    const { events } = await segments(padded(speech, rate), rate);
    const onset = 1000 + onsetMs(speech, rate);
    const end = 1000 + (speech.length * 1000) / rate - tailMs(speech, rate);
    assert.ok(events.length >= 2, `${rate}: ${JSON.stringify(events)}`);
    const first = events[0]!;
    const last = events.at(-1)!;
    assert.equal(first.type, "start");
    assert.ok(Math.abs(first.atMs - onset) < 60, `${rate}: starts at ${first.atMs}, not ${onset}`);
    assert.equal(last.type, "end");
    assert.ok(Math.abs(last.atMs - end) < 100, `${rate}: ends at ${last.atMs}, not ${end}`);
  }
});

Deno.test("Vad marks most voiced frames of a synthetic voiced signal", async () => {
  const rate = 16000;
  const { decisions } = await segments(voicedSignal(rate, 3000, 4), rate);
  const recall = decisions.filter(Boolean).length / decisions.length;
  assert.ok(recall > 0.8, `recall ${recall}`);
});

Deno.test("Vad finds no speech in silence or in white noise alone", async () => {
  const rate = 16000;
  const silent = await segments(new Int16Array(rate * 5), rate);
  assert.deepEqual(silent.events, []);
  // Noise at the level it has when mixed with speech at 20 dB SNR.
  const speech = await fliteSpeech(TEST_SENTENCES[0]!, rate);
  const rms = Math.sqrt(meanPower(speech) / 100);
  const onsetLater = new Int16Array(rate * 10);
  onsetLater.set(whiteNoise(rate * 8, rms, 12), rate * 2);
  for (const mode of [2, 3] as const) {
    for (const noise of [whiteNoise(rate * 10, rms, 11), onsetLater]) {
      const noisy = await segments(noise, rate, mode);
      assert.deepEqual(noisy.events, [], `mode ${mode}`);
    }
  }
});

Deno.test("Vad in mode 3 finds speech in 20 dB white noise with no false start", async () => {
  const rate = 16000;
  const speech = await fliteSpeech(TEST_SENTENCES[2]!, rate);
  const mixed = mixAtSnr(padded(speech, rate), 20, { seed: 5, signalPower: meanPower(speech) });
  const { events } = await segments(mixed, rate, 3);
  const onset = 1000 + onsetMs(speech, rate);
  assert.equal(events[0]?.type, "start");
  assert.ok(Math.abs(events[0]!.atMs - onset) < 100, JSON.stringify(events));
});

Deno.test("Vad in mode 3 still marks the speech in 10 dB white noise", async () => {
  const rate = 16000;
  const speech = await fliteSpeech(TEST_SENTENCES[2]!, rate);
  const mixed = mixAtSnr(padded(speech, rate), 10, { seed: 5, signalPower: meanPower(speech) });
  const { decisions } = await segments(mixed, rate, 3);
  // Frame-level recall over the frames where the clean speech is loud.
  const clean = padded(speech, rate);
  let loud = 0;
  let found = 0;
  decisions.forEach((d, i) => {
    if (dbfs(clean.subarray(i * 320, i * 320 + 320)) > -30) {
      loud++;
      if (d) found++;
    }
  });
  assert.ok(found / loud > 0.9, `recall ${found}/${loud}`);
});

Deno.test("Vad splits chunks into frames however the audio arrives", async () => {
  const rate = 16000;
  const speech = padded(await fliteSpeech(TEST_SENTENCES[3]!, rate), rate, 300);
  const a = await Vad.create({ sampleRate: rate });
  const b = await Vad.create({ sampleRate: rate });
  try {
    const whole = a.process(speech);
    const pieces: boolean[] = [];
    for (let at = 0; at < speech.length; at += 77) {
      pieces.push(...b.process(speech.subarray(at, at + 77)));
    }
    assert.deepEqual(pieces, whole);
    assert.equal(whole.length, Math.floor(speech.length / 320));
  } finally {
    a.free();
    b.free();
  }
});

Deno.test("SpeechSegmenter ignores short blips and bridges short pauses", () => {
  const seg = new SpeechSegmenter({ frameMs: 20, minSpeechMs: 60, minSilenceMs: 200 });
  const f = (s: string) => [...s].map((c) => c === "1");
  assert.deepEqual(seg.push(f("0011000")), []); // 40 ms blip
  assert.deepEqual(seg.push(f("111")), [{ type: "start", atMs: 140 }]);
  assert.deepEqual(seg.push(f("000011")), []); // an 80 ms pause
  assert.deepEqual(seg.push(f("0000000000")), [{ type: "end", atMs: 320 }]);
  assert.deepEqual(seg.flush(), []);
});

Deno.test("Vad.reset keeps the rate and mode (libfvad's reset puts them back to 8 kHz)", async () => {
  const vad = await Vad.create({ sampleRate: 16000 });
  try {
    const voiced = voicedSignal(16000, 400, 7);
    const before = vad.process(voiced);
    vad.reset();
    // Before the fix, libfvad rejected 320-sample frames at its default 8 kHz.
    const after = vad.process(voiced);
    assert.deepEqual(after, before);
  } finally {
    vad.free();
  }
});

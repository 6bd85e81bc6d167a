import assert from "node:assert/strict";
import { fliteSpeech, TEST_SENTENCES, voicedSignal } from "./_test_signals.ts";
import { beepTone, detectBeeps } from "./beep.ts";
import { dtmfTones } from "./dtmf.ts";
import { mulawDecode, mulawEncode } from "./mulaw.ts";
import { mixAtSnr } from "./noise.ts";
import { meanPower } from "./pcm.ts";

function after(ms: number, rate: number, ...parts: Int16Array[]): Int16Array {
  const lead = Math.round((rate * ms) / 1000);
  const total = lead + parts.reduce((n, p) => n + p.length, 0);
  const out = new Int16Array(total);
  let at = lead;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

Deno.test("BeepDetector finds beeps of common pitches once, near their start", () => {
  for (const rate of [8000, 16000, 24000]) {
    for (const frequency of [440, 850, 1000, 1400, 2000]) {
      const signal = after(700, rate, beepTone({ sampleRate: rate, frequency }));
      const events = detectBeeps(signal, { sampleRate: rate });
      assert.equal(events.length, 1, `${frequency} Hz at ${rate}: ${JSON.stringify(events)}`);
      assert.ok(Math.abs(events[0]!.atMs - 700) <= 32, `${events[0]!.atMs}`);
      assert.ok(Math.abs(events[0]!.frequency - frequency) <= frequency * 0.02);
    }
  }
});

Deno.test("BeepDetector finds a beep in 15 dB noise over an 8 kHz µ-law line", () => {
  const rate = 8000;
  const beep = beepTone({ sampleRate: rate });
  const signal = mixAtSnr(after(1000, rate, beep, new Int16Array(rate)), 15, {
    seed: 8,
    signalPower: meanPower(beep),
  });
  const events = detectBeeps(mulawDecode(mulawEncode(signal)), { sampleRate: rate });
  assert.equal(events.length, 1, JSON.stringify(events));
});

Deno.test("BeepDetector ignores tones shorter than minMs, DTMF and speech", async () => {
  const rate = 16000;
  const short = beepTone({ sampleRate: rate, ms: 120 });
  assert.deepEqual(detectBeeps(after(100, rate, short), { sampleRate: rate }), []);
  const keys = dtmfTones("0123456789*#ABCD", { sampleRate: rate, toneMs: 400, gapMs: 50 });
  assert.deepEqual(detectBeeps(keys, { sampleRate: rate }), []);
  for (const voice of ["slt", "rms", "awb", "kal16"] as const) {
    const speech = await fliteSpeech(TEST_SENTENCES.join(" "), rate, voice);
    assert.deepEqual(detectBeeps(speech, { sampleRate: rate }), [], voice);
  }
  assert.deepEqual(detectBeeps(voicedSignal(rate, 20_000, 2), { sampleRate: rate }), []);
});

Deno.test("BeepDetector reports two beeps separated by silence", () => {
  const rate = 8000;
  const beep = beepTone({ sampleRate: rate, ms: 300 });
  const events = detectBeeps(after(0, rate, beep, new Int16Array(rate / 2), beep), {
    sampleRate: rate,
  });
  assert.equal(events.length, 2);
});

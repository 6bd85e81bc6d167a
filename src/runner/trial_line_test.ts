import assert from "node:assert/strict";
import { trialVoice } from "./trial_line.ts";
import { defaultSpeechOptions } from "../speech/speech_options.ts";
import { FLITE_PERSONAS } from "../speech/_flite_wasi.ts";

Deno.test("trialVoice(): --voices N spreads trials over the first N personas by seed, the same seed the same voice", () => {
  const o = { ...defaultSpeechOptions(), voice_spread: 3 };
  const seen = new Map<string, number>();
  for (let i = 0; i < 300; i++) {
    const v = trialVoice(o, `seed${i}`);
    assert.equal(v.from, "spread");
    seen.set(v.voice!, (seen.get(v.voice!) ?? 0) + 1);
    assert.deepEqual(trialVoice(o, `seed${i}`), v);
  }
  assert.deepEqual([...seen.keys()].sort(), FLITE_PERSONAS.slice(0, 3).toSorted());
  for (const n of seen.values()) assert.ok(n > 70, `${n} of 300`);
  assert.deepEqual(trialVoice(defaultSpeechOptions(), "s"), { voice: "slt", from: "run" });
});

Deno.test("trialVoice(): a scenario's user.voice wins over --voices spreading and --user-voice", () => {
  const spread = { ...defaultSpeechOptions(), voice_spread: 4 };
  for (let i = 0; i < 20; i++) {
    assert.deepEqual(trialVoice(spread, `seed${i}`, { name: "awb", rate: 1.1, pitch: 120 }), {
      voice: "awb:rate=1.1:pitch=120",
      from: "scenario",
    });
  }
  // Only a rate: the run's voice, spoken at the scenario's rate (its own pitch kept).
  const run = { ...defaultSpeechOptions(), voices: { agent: "rms", user: "slt:pitch=200" } };
  assert.deepEqual(trialVoice(run, "s", { rate: 0.8 }), {
    voice: "slt:rate=0.8:pitch=200",
    from: "scenario",
  });
  assert.deepEqual(trialVoice(run, "s", { name: "kal16" }), { voice: "kal16", from: "scenario" });
  // Another provider takes the name only (rate and pitch are flite's).
  const openai = {
    ...defaultSpeechOptions(),
    tts: { provider: "openai" as const, base_url: "http://127.0.0.1:1" },
    voices: { user: "alloy" },
  };
  assert.deepEqual(trialVoice(openai, "s", { name: "nova", rate: 1.2 }), {
    voice: "nova",
    from: "scenario",
  });
  assert.deepEqual(trialVoice(openai, "s", { pitch: 100 }), { voice: "alloy", from: "scenario" });
});

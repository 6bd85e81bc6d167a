import assert from "node:assert/strict";
import { trialVoice } from "./trial_line.ts";
import { defaultSpeechOptions } from "../speech/speech_options.ts";
import { FLITE_PERSONAS } from "../speech/_flite_wasi.ts";

Deno.test("trialVoice(): --voices N spreads trials over the first N personas by seed, the same seed the same voice", () => {
  const o = { ...defaultSpeechOptions(), voice_spread: 3 };
  const seen = new Map<string, number>();
  for (let i = 0; i < 300; i++) {
    const v = trialVoice(o, `seed${i}`)!;
    seen.set(v, (seen.get(v) ?? 0) + 1);
    assert.equal(trialVoice(o, `seed${i}`), v);
  }
  assert.deepEqual([...seen.keys()].sort(), FLITE_PERSONAS.slice(0, 3).toSorted());
  for (const n of seen.values()) assert.ok(n > 70, `${n} of 300`);
  assert.equal(trialVoice(defaultSpeechOptions(), "s"), "slt");
});

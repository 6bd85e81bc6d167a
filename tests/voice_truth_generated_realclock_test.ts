/**
 * Seeded random conversations (`./_conversation_gen.ts`) against the truth agents on the
 * real clock, one fixed seed a wire: repeated phrases, one-word turns, caller turns 0-30
 * ms after the agent's, silences past the VAD's hangover; v2v per turn and where the WAV
 * puts every utterance against the agent's own log (median 20 ms, each 40 ms). A failure
 * prints its seed: `deno task bench:voice-truth --random N` runs more.
 */
import assert from "node:assert/strict";
import { FliteTts } from "../src/speech/tts_flite.ts";
import { describe, type GeneratedWire, runGenerated } from "./_conversation_gen.ts";
import { boundMisses } from "./_truth_checks.ts";

let tts: FliteTts | undefined;
const flite = () => tts ??= new FliteTts({ voice: "slt" });

const SEEDS: Record<GeneratedWire, number> = { json: 1, protobuf: 2, twilio: 3, sip: 4 };

for (const [wire, seed] of Object.entries(SEEDS) as [GeneratedWire, number][]) {
  Deno.test(`generated conversation, seed ${seed}, over ${wire} on the real clock: v2v and the WAV's every utterance against the agent's log`, async () => {
    const r = await runGenerated(seed, wire, flite(), 3);
    const misses = [...boundMisses(r.v2v), ...boundMisses(r.wav)];
    assert.deepEqual(misses.map((m) => m.what), [], describe(r, [...r.v2v, ...r.wav]));
  });
}

Deno.test({
  name: "generated: close the shared flite",
  fn: async () => {
    await tts?.close();
  },
  sanitizeResources: false,
  sanitizeOps: false,
});

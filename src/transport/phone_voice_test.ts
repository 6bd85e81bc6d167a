import assert from "node:assert/strict";
import { RealClock } from "../clock/clock.ts";
import { pcm16 } from "../audio/pcm.ts";
import { Pacer } from "../audio/pacer.ts";
import { mulberry32 } from "../random/mulberry32.ts";
import { monoAt, monoAtGivingWay } from "./phone_voice.ts";

Deno.test("monoAtGivingWay() gives monoAt()'s samples, and lets a live call's timers run between its blocks", async () => {
  const rand = mulberry32(3);
  const samples = Int16Array.from({ length: 48000 }, () => Math.round((rand() - 0.5) * 30000));
  const stereo = Int16Array.from({ length: 2 * 24000 }, (_, i) => samples[i >> 1]! - (i % 2) * 7);
  for (const audio of [pcm16(samples, 16000), pcm16(stereo, 24000, 2), pcm16(samples, 8000)]) {
    assert.deepEqual(await monoAtGivingWay(audio, 8000), monoAt(audio, 8000));
  }
  // While a real-clock pacer runs, a timer due meanwhile fires before the 3 s is done.
  const pacer = new Pacer({
    clock: new RealClock(),
    sampleRate: 8000,
    chunkMs: 20,
    onChunk: () => {},
  });
  pacer.start();
  try {
    let fired = false;
    setTimeout(() => (fired = true), 0);
    let firedBefore = false;
    const out = monoAtGivingWay(pcm16(samples, 16000), 8000).then((s) => {
      firedBefore = fired;
      return s;
    });
    assert.equal((await out).length, 24000);
    assert.ok(firedBefore, "a timer ran between blocks");
  } finally {
    pacer.stop();
  }
});

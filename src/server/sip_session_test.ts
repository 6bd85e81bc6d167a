import assert from "node:assert/strict";
import { SimClock } from "../clock/clock.ts";
import { builtinFactory, scenarioLookup } from "../commands/serve.ts";
import { pcm16 } from "../audio/pcm.ts";
import { voicedSignal } from "../audio/_test_signals.ts";
import { BUNDLED_DATA_ROOT, DataRoot } from "../scenario/data_root.ts";
import type { TtsProvider, TtsRequest, TtsResult } from "../speech/speech.ts";
import { SIP_AUDIO_RATE, type SipCallMedia, SipHostedCall } from "./sip_session.ts";

const root = new DataRoot(BUNDLED_DATA_ROOT);
const FLOW = new URL("../../scenarios/flows/animal_clinic.yaml", import.meta.url).pathname;
const lookUp = scenarioLookup(root, [FLOW]);

/** A TTS that "speaks" 300 ms of a voiced signal at 8 kHz per utterance. */
class FakeTts implements TtsProvider {
  readonly info = { provider: "fake", sampleRate: 8000 };
  readonly asked: string[] = [];
  synthesize(request: TtsRequest): Promise<TtsResult> {
    this.asked.push(request.text);
    return Promise.resolve({ ok: true, audio: pcm16(voicedSignal(8000, 300, 7), 8000) });
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

class FakeMedia implements SipCallMedia {
  readonly chunks: { at: number; samples: number }[] = [];
  readonly keys: string[] = [];
  hungUp?: string;
  constructor(readonly clock: SimClock) {}
  sendAudio(samples: Int16Array): void {
    this.chunks.push({ at: this.clock.now(), samples: samples.length });
  }
  sendKeys(keys: string): Promise<void> {
    this.keys.push(keys);
    return Promise.resolve();
  }
  hangUp(reason: string): void {
    this.hungUp = reason;
  }
}

async function hostedFlowCall(name: string) {
  const clock = new SimClock();
  const tts = new FakeTts();
  const media = new FakeMedia(clock);
  const scenario = await lookUp(name);
  const call = new SipHostedCall({
    participant: { name: "flow", side: "user", scenario },
    factory: builtinFactory(root, {}, {}, lookUp),
    audio: { tts },
    media,
    session: { clock, dataRoot: root },
  });
  const run = async (ms: number) => {
    for (let t = 0; t < ms; t += 20) {
      await clock.advance(20);
      for (let i = 0; i < 3; i++) await Promise.resolve();
    }
  };
  return { clock, tts, media, call, run };
}

Deno.test("a SIP call on the flow callee: it answers first, in 20 ms chunks of 8 kHz on the call's clock", async () => {
  const { tts, media, call, run } = await hostedFlowCall(
    "flow__riverside-animal-clinic__refill-by-pet-id",
  );
  await call.start();
  await run(1000);
  assert.match(tts.asked[0] ?? "", /Thank you for calling Riverside Animal Clinic/);
  assert.ok(media.chunks.length >= 14, `${media.chunks.length} chunks`);
  assert.ok(media.chunks.every((c) => c.samples === SIP_AUDIO_RATE / 50));
  // Paced: one chunk per 20 ms of the call's clock, not all at once.
  const span = media.chunks.at(-1)!.at - media.chunks[0]!.at;
  assert.ok(Math.abs(span - (media.chunks.length - 1) * 20) <= 20, `${span} ms`);
  await call.close();
});

Deno.test("a SIP call on the flow callee follows the far end's keys to its hangup: a BYE", async () => {
  const { tts, media, call, run } = await hostedFlowCall(
    "flow__riverside-animal-clinic__refill-by-pet-id",
  );
  await call.start();
  await run(500);
  call.keys("2");
  await run(2000);
  assert.ok(tts.asked.some((t) => /six-digit ID/.test(t)), JSON.stringify(tts.asked));
  call.keys("123456#");
  await run(3000);
  assert.ok(tts.asked.some((t) => /refill request has been received/.test(t)));
  assert.ok(media.hungUp, "the flow's hangup is a BYE");
  assert.equal(call.ended, true);
});

Deno.test("a SIP call whose far end hangs up frees its session; nothing more is sent", async () => {
  const { media, call, run } = await hostedFlowCall(
    "flow__riverside-animal-clinic__refill-by-pet-id",
  );
  await call.start();
  await run(200);
  await call.farEndHungUp();
  const sent = media.chunks.length;
  await run(1000);
  assert.equal(media.chunks.length, sent);
  assert.equal(media.hungUp, undefined, "no BYE back for theirs");
});

import assert from "node:assert/strict";
import { pcm16, pcm16FromBytes } from "../audio/pcm.ts";
import { SimClock } from "../clock/clock.ts";
import { mulawDecode } from "../audio/mulaw.ts";
import { CallerAudioStream } from "./rtvi_audio.ts";
import { TwilioCall } from "./twilio_call.ts";
import { twilioSids } from "./twilio.ts";
import { Vad } from "../audio/vad.ts";

/** A fill that writes each sample's call time (ms, rounded) so placement can be read back. */
const stamp = (rate: number) => (x: Int16Array, from: number, at: number) => {
  for (let i = from; i < x.length; i++) x[i] = 1000 + Math.round(at + ((i - from) * 1000) / rate);
};

/** A caller stream on `clock` whose sent chunks, decoded, gather in `sent`. */
function recordedStream(
  clock: SimClock,
  options: Partial<ConstructorParameters<typeof CallerAudioStream>[0]>,
): { stream: CallerAudioStream; sent: Int16Array[] } {
  const sent: Int16Array[] = [];
  const stream = new CallerAudioStream({
    clock,
    send: (a) => {
      const r = pcm16FromBytes(a.pcm);
      if (r.ok) sent.push(r.samples);
    },
    ...options,
  });
  return { stream, sent };
}

Deno.test("the RTVI caller stream puts the line's noise in the silence of each chunk, at its call time", async () => {
  const clock = new SimClock();
  const { stream, sent: chunks } = recordedStream(clock, { fill: stamp(16000) });
  stream.start();
  clock.timer(100, () => stream.play(pcm16(new Int16Array(16 * 24).fill(-5), 16000))); // 24 ms
  clock.timer(200, () => stream.stop());
  await clock.runUntil!(() => false);
  // Chunk 0 (0–16 ms) is all fill, stamped from 0 ms.
  assert.equal(chunks[0]![0], 1000);
  assert.equal(chunks[0]![255], 1000 + Math.round(255 / 16));
  // The audio starts on the chunk at 112 ms: 24 ms of it, then the fill from 136 ms.
  const k = 112 / 16;
  assert.ok(chunks[k]!.every((v) => v === -5));
  assert.ok(chunks[k + 1]!.subarray(0, 128).every((v) => v === -5));
  assert.equal(chunks[k + 1]![128], 1000 + 136);
});

Deno.test("a line's fill writes into a copy: the pacers' shared silence and the queued utterance stay as they were", async () => {
  const clock = new SimClock();
  const { stream, sent } = recordedStream(clock, { fill: (x, from) => x.fill(777, from) });
  const utterance = new Int16Array(16 * 40).fill(-5); // 40 ms: two whole chunks and a part
  stream.start();
  clock.timer(32, () => stream.play(pcm16(utterance, 16000)));
  clock.timer(160, () => stream.stop());
  await clock.runUntil!(() => false);
  assert.ok(sent[0]!.every((v) => v === 777), "the silence before is filled");
  assert.ok(sent.some((c) => c.every((v) => v === -5)), "the utterance is sent");
  assert.ok(utterance.every((v) => v === -5), "the utterance was not written into");
  // A second stream without a fill sends silence as zeros: the fill did not reach it.
  const { stream: quiet, sent: plain } = recordedStream(clock, {
    onChunk: (c) => plain.push(c.samples),
  });
  quiet.start();
  clock.timer(200, () => quiet.stop());
  await clock.runUntil!(() => false);
  assert.ok(plain.length > 0 && plain.every((c) => c.every((v) => v === 0)));
});

Deno.test("the Twilio caller stream fills its silent frames with the line's noise", async () => {
  const clock = new SimClock();
  const media: Uint8Array[] = [];
  const vad = await Vad.create({ sampleRate: 8000, frameMs: 20 });
  try {
    const call = new TwilioCall({
      clock,
      stream: twilioSids("s"),
      send: (m) => {
        const msg = m as { event: string; media?: { payload: string } };
        if (msg.event === "media") {
          media.push(Uint8Array.from(atob(msg.media!.payload), (c) => c.charCodeAt(0)));
        }
      },
      vad,
      onTurn: () => {},
      fill: (x, from) => x.fill(4000, from),
    });
    call.begin();
    clock.timer(100, () => call.end());
    await clock.runUntil!(() => false);
    assert.ok(media.length >= 4);
    for (const m of media) assert.ok(mulawDecode(m).every((v) => Math.abs(v - 4000) < 200));
  } finally {
    vad.free();
  }
});

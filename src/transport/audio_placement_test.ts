import assert from "node:assert/strict";
import { voicedSignal } from "../audio/_test_signals.ts";
import { pcm16, pcm16ToBytes } from "../audio/pcm.ts";
import { SimClock } from "../clock/clock.ts";
import { CallerAudioStream, PeerAudioReceiver } from "./rtvi_audio.ts";

const frame = (samples: Int16Array, sampleRate: number) => ({
  pcm: pcm16ToBytes(samples),
  sampleRate,
  numChannels: 1 as const,
});

Deno.test("the bot's turn starts at its first audio, not at an early bot-started-speaking", async () => {
  const clock = new SimClock();
  const rx = new PeerAudioReceiver({ clock, sampleRate: 16000 });
  await clock.advance(1000);
  rx.startedSpeaking(); // 400 ms before any audio
  await clock.advance(400);
  const voice = voicedSignal(16000, 200, 1);
  for (let k = 0; k < 10; k++) {
    rx.push(frame(voice.subarray(k * 320, (k + 1) * 320), 16000));
    await clock.advance(20);
  }
  const heard = rx.take()!;
  assert.equal(heard.startMs, 1400);
  assert.equal(heard.pcm.samples.length, 3200);
});

Deno.test("the bot's audio is kept as heard: a pause between its frames stays a pause", async () => {
  const clock = new SimClock();
  const rx = new PeerAudioReceiver({ clock, sampleRate: 16000 });
  const voice = voicedSignal(16000, 100, 2);
  rx.push(frame(voice, 16000)); // 0-100 ms
  await clock.advance(500);
  rx.push(frame(voice, 16000)); // heard at 500 ms, after 400 ms of nothing
  const heard = rx.take()!;
  assert.equal(heard.startMs, 0);
  assert.equal(heard.pcm.samples.length, 16000 * 0.6);
  assert.equal(heard.pcm.samples[16000 * 0.3], 0, "silence where nothing came");
});

Deno.test("the caller's stream says when each utterance's first sample went out on the grid", async () => {
  const clock = new SimClock();
  const sent: number[] = [];
  const stream = new CallerAudioStream({ clock, send: () => {} });
  stream.start();
  await clock.advance(25); // slots at 0, 16, 32, ...: queued between two
  stream.play(pcm16(voicedSignal(16000, 100, 3), 16000), (at) => sent.push(at));
  await clock.advance(200);
  assert.deepEqual(sent, [32]);
  stream.stop();
});

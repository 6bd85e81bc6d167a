import assert from "node:assert/strict";
import { voicedSignal } from "../audio/_test_signals.ts";
import { interleave, pcm16, pcm16ToBytes } from "../audio/pcm.ts";
import { resample } from "../audio/resample.ts";
import { SimClock } from "../clock/clock.ts";
import { type Framing, writeFrame } from "../protocol/framing.ts";
import { rtvi, type RtviMessage } from "../protocol/messages.ts";
import {
  encodeAudioFrame,
  encodeTranscriptionFrame,
  encodeVarint,
  type PipecatAudioFrame,
} from "../protocol/protobuf.ts";
import type {
  SttProvider,
  SttRequest,
  SttResult,
  TtsProvider,
  TtsRequest,
  TtsResult,
} from "../speech/speech.ts";
import { ttsError } from "../speech/speech.ts";
import { EchoParticipant } from "./_echo_participant.ts";
import { FakeSocket } from "./_fake_socket.ts";
import { openSession } from "./_session_harness.ts";
import { Session, type SessionOptions } from "./session.ts";
import type { SessionAudioOptions } from "./session_audio.ts";

/** A TTS that "speaks" 500 ms of a voiced signal at 16 kHz per utterance. */
class FakeTts implements TtsProvider {
  readonly info = { provider: "fake", sampleRate: 16000 };
  readonly asked: string[] = [];
  fail = false;
  synthesize(request: TtsRequest): Promise<TtsResult> {
    this.asked.push(request.text);
    if (this.fail) return Promise.resolve(ttsError("fake", "the fake TTS is down"));
    return Promise.resolve({ ok: true, audio: pcm16(voicedSignal(16000, 500, 7), 16000) });
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

class FakeStt implements SttProvider {
  readonly info = { provider: "fake-stt" };
  readonly heard: SttRequest[] = [];
  transcribe(request: SttRequest): Promise<SttResult> {
    this.heard.push(request);
    return Promise.resolve({ ok: true, text: "transcribed words" });
  }
}

interface Step {
  at: number;
  messages: RtviMessage[];
  audio: PipecatAudioFrame[];
}

function audioHarness(
  audio: Partial<SessionAudioOptions> = {},
  options: Partial<SessionOptions> = {},
) {
  const tts = new FakeTts();
  const { session, socket, clock, hosted } = openSession({ audio: { tts, ...audio }, ...options });
  const take = (): Step => {
    const step = { at: clock.now(), messages: socket.messages(), audio: socket.audio() };
    socket.frames.length = 0;
    return step;
  };
  const settle = async () => {
    for (let i = 0; i < 3; i++) {
      await session.audioIdle();
      await clock.advance(0);
    }
  };
  const raw = async (data: string | Uint8Array) => {
    session.receive(data);
    await settle();
    return take();
  };
  return {
    session,
    socket,
    clock,
    hosted,
    tts,
    take,
    settle,
    raw,
    send: (msg: RtviMessage, framing: Framing = "json") => raw(writeFrame(msg, framing)),
    /** Advances the clock in steps, collecting what was sent at each. */
    async run(ms: number, stepMs = 10): Promise<Step[]> {
      const steps: Step[] = [];
      for (let t = 0; t < ms; t += stepMs) {
        await clock.advance(stepMs);
        await settle();
        const s = take();
        if (s.messages.length || s.audio.length) steps.push(s);
      }
      return steps;
    },
  };
}

const READY = rtvi("client-ready", { version: "2.1.0" }, "ready_1");

/** An AudioRawFrame built by hand, so the guard's refusals can be sent. */
function audioFrameBytes(pcm: Uint8Array, sampleRate: number, channels: number): Uint8Array {
  const parts = [
    [0x1a],
    [...encodeVarint(pcm.length)],
    [...pcm],
    [0x20],
    [...encodeVarint(sampleRate)],
    [0x28],
    [...encodeVarint(channels)],
  ].flat();
  return new Uint8Array([0x12, ...encodeVarint(parts.length), ...parts]);
}

Deno.test("an audio session speaks in paced 24 kHz AudioRawFrames between started and stopped", async () => {
  const h = audioHarness();
  await h.send(READY, "protobuf");
  const first = await h.send(rtvi("send-text", { content: "hello" }), "protobuf");
  const types = first.messages.map((m) => m.type);
  const started = types.indexOf("bot-started-speaking");
  assert.ok(started >= 0, types.join());
  assert.ok(types.indexOf("bot-tts-text") > started);
  assert.equal(types.includes("bot-stopped-speaking"), false, "stopped before the audio played");
  const ttsText = first.messages.find((m) => m.type === "bot-tts-text")!;
  assert.deepEqual(ttsText.data, { text: "you said: hello" });
  assert.equal(h.tts.asked[0], "you said: hello");
  // The first chunk goes out at once, the rest on a 20 ms grid.
  assert.equal(first.audio.length, 1);
  const steps = await h.run(700);
  const frames = [first, ...steps].flatMap((s) => s.audio.map((a) => ({ at: s.at, a })));
  for (const { a } of frames) {
    assert.equal(a.sampleRate, 24000);
    assert.equal(a.numChannels, 1);
    assert.equal(a.pcm.length, 480 * 2); // 20 ms at 24 kHz
  }
  // 500 ms of speech: 25 chunks, the last one padded.
  assert.equal(frames.length, 25);
  assert.equal(frames.at(-1)!.at, 480);
  assert.ok(frames.some(({ a }) => a.pcm.some((b) => b !== 0)), "the audio is silent");
  const stopped = steps.find((s) => s.messages.some((m) => m.type === "bot-stopped-speaking"));
  assert.equal(stopped?.at, 500, "bot-stopped-speaking once the last chunk has played");
});

Deno.test("a JSON client hears the same speech as bot-tts-audio messages", async () => {
  const h = audioHarness({ outputRate: 16000 });
  await h.send(READY);
  const first = await h.send(rtvi("send-text", { content: "hi" }));
  const steps = [first, ...await h.run(600)];
  const audio = steps.flatMap((s) => s.messages.filter((m) => m.type === "bot-tts-audio"));
  assert.equal(audio.length, 25);
  const data = audio[0]!.data as { audio: string; sample_rate: number; num_channels: number };
  assert.equal(data.sample_rate, 16000);
  assert.equal(data.num_channels, 1);
  assert.equal(Uint8Array.fromBase64(data.audio).length, 320 * 2);
  assert.equal(h.socket.audio().length, 0);
});

Deno.test("a TTS failure is a non-fatal tts_error; the words are still announced", async () => {
  const h = audioHarness();
  h.tts.fail = true;
  await h.send(READY, "protobuf");
  const r = await h.send(rtvi("send-text", { content: "hi" }), "protobuf");
  const error = r.messages.find((m) => m.type === "error");
  assert.deepEqual(
    {
      kind: (error?.data as { kind?: string }).kind,
      fatal: (error?.data as { fatal?: boolean }).fatal,
    },
    { kind: "tts_error", fatal: false },
  );
  assert.ok(r.messages.some((m) => m.type === "bot-tts-text"));
  assert.ok(r.messages.some((m) => m.type === "bot-stopped-speaking"));
  assert.equal(h.hosted[0]!.line !== undefined, true);
});

/**
 * Sends `speechMs` of a voiced signal then `silenceMs` of silence at `rate` with
 * `channels`, in 20 ms frames, one frame per 20 ms of clock.
 */
async function speakInto(
  h: ReturnType<typeof audioHarness>,
  rate: number,
  channels: 1 | 2,
  speechMs: number,
  silenceMs: number,
  frame: (pcm: Uint8Array, rate: number, channels: 1 | 2) => string | Uint8Array,
): Promise<Step[]> {
  const voiced = resample(voicedSignal(16000, speechMs, 3), 16000, rate);
  const mono = new Int16Array(voiced.length + Math.round((rate * silenceMs) / 1000));
  mono.set(voiced);
  const samples = channels === 2 ? interleave(mono, mono) : mono;
  const per = (rate / 50) * channels;
  const steps: Step[] = [];
  for (let at = 0; at < samples.length; at += per) {
    h.session.receive(frame(pcm16ToBytes(samples.subarray(at, at + per)), rate, channels));
    await h.clock.advance(20);
    await h.settle();
    steps.push(h.take());
  }
  return steps;
}

const protobufFrame = (pcm: Uint8Array, sampleRate: number, numChannels: 1 | 2) =>
  encodeAudioFrame({ pcm, sampleRate, numChannels });

Deno.test("the end of the client's speech is a turn of unknown words (VAD, any rate and channels)", async () => {
  const h = audioHarness();
  await h.send(READY, "protobuf");
  await h.session.audioIdle();
  await speakInto(h, 24000, 2, 800, 1000, protobufFrame);
  const events = h.hosted[0]!.events;
  const starts = events.filter((e) => e.type === "speech_start");
  const turns = events.filter((e) => e.type === "speech");
  assert.equal(starts.length, 1, JSON.stringify(events));
  assert.equal(turns.length, 1, JSON.stringify(events));
  assert.equal(turns[0]!.type === "speech" && turns[0]!.text, "");
  // The turn ends after the speech and the end-of-turn silence (600 ms), not before.
  assert.ok(turns[0]!.at >= 800 + 500 && turns[0]!.at <= 800 + 900, `turn at ${turns[0]!.at}`);
  // The participant answered the turn, in audio.
  assert.equal(h.tts.asked[0], "you said: ");
});

Deno.test("a turn's words come from the client's transcription frames or non-running send-text", async () => {
  const h = audioHarness();
  await h.send(READY, "protobuf");
  h.session.receive(encodeTranscriptionFrame({ text: "my code is" }));
  await h.send(
    rtvi("send-text", { content: "K 7 Q 2", options: { run_immediately: false } }),
    "protobuf",
  );
  // No turn yet: the words wait for the end of speech.
  assert.equal(h.hosted.length, 0);
  await speakInto(h, 16000, 1, 800, 1000, protobufFrame);
  const turns = h.hosted[0]!.events.filter((e) => e.type === "speech");
  assert.equal(turns.length, 1);
  assert.equal(turns[0]!.type === "speech" && turns[0]!.text, "my code is K 7 Q 2");
});

Deno.test("JSON raw-audio is heard too, and an STT provider gives the words when the client does not", async () => {
  const stt = new FakeStt();
  const h = audioHarness({ stt });
  await h.send(READY);
  await speakInto(
    h,
    8000,
    1,
    800,
    1000,
    (pcm, sampleRate, numChannels) =>
      JSON.stringify(rtvi("raw-audio", {
        base64Audio: pcm.toBase64(),
        sampleRate,
        numChannels,
      })),
  );
  const turns = h.hosted[0]!.events.filter((e) => e.type === "speech");
  assert.equal(turns.length, 1);
  assert.equal(turns[0]!.type === "speech" && turns[0]!.text, "transcribed words");
  assert.equal(stt.heard.length, 1);
  const heard = stt.heard[0]!.audio;
  assert.equal(heard.sampleRate, 16000);
  assert.ok(heard.samples.length >= 16 * 800, `${heard.samples.length} samples`);
});

Deno.test("bad audio gets a clear error each time and the session lives on", async () => {
  const h = audioHarness();
  const good = pcm16ToBytes(new Int16Array(320));
  const cases: [string, string | Uint8Array, RegExp, string?][] = [
    ["before the handshake", audioFrameBytes(good, 16000, 1), /before the handshake/],
    [
      "raw-audio before the handshake",
      JSON.stringify(rtvi("raw-audio", {
        base64Audio: good.toBase64(),
        sampleRate: 16000,
        numChannels: 1,
      }, "a1")),
      /before the handshake/,
      "a1",
    ],
  ];
  for (const [what, frame, pattern, id] of cases) {
    const r = await h.raw(frame);
    const reply = r.messages.find((m) => m.type === (id ? "error-response" : "error"));
    assert.ok(reply, `${what}: ${JSON.stringify(r.messages)}`);
    assert.equal(reply.id, id, what);
    assert.match((reply.data as { error: string }).error, pattern, what);
  }
  await h.send(READY, "protobuf");
  const after: [string, string | Uint8Array, RegExp, string?][] = [
    ["unknown sample rate", audioFrameBytes(good, 12345, 1), /bad_sample_rate.*12345/],
    ["no sample rate", audioFrameBytes(good, 0, 1), /bad_sample_rate/],
    ["odd byte count", audioFrameBytes(new Uint8Array(3), 16000, 1), /odd_length/],
    ["three channels", audioFrameBytes(good, 16000, 3), /bad_channels/],
    ["oversized", audioFrameBytes(new Uint8Array(600 * 1024), 16000, 1), /oversized/],
    ["truncated", new Uint8Array([0x12, 0x50, 0x1a, 0x04, 1]), /truncated|invalid protobuf/],
    ["malformed", new Uint8Array([0x12, 0x03, 0x1a, 0x81, 0x81]), /invalid protobuf/],
    ["over the frame cap", audioFrameBytes(new Uint8Array(1100 * 1024), 16000, 1), /too large/],
    [
      "raw-audio odd bytes",
      JSON.stringify(rtvi("raw-audio", {
        base64Audio: new Uint8Array(3).toBase64(),
        sampleRate: 16000,
        numChannels: 1,
      }, "a2")),
      /odd_length/,
      "a2",
    ],
    [
      "raw-audio bad base64",
      JSON.stringify(
        rtvi("raw-audio", { base64Audio: "%%%", sampleRate: 16000, numChannels: 1 }, "a3"),
      ),
      /bad_base64/,
      "a3",
    ],
    [
      "raw-audio-batch bad rate",
      JSON.stringify(rtvi("raw-audio-batch", {
        base64AudioBatch: [good.toBase64()],
        sampleRate: 7,
        numChannels: 1,
      }, "a4")),
      /bad_sample_rate/,
      "a4",
    ],
    [
      "raw-audio without fields",
      JSON.stringify(rtvi("raw-audio", { audio: "x" }, "a5")),
      /malformed/,
      "a5",
    ],
  ];
  for (const [what, frame, pattern, id] of after) {
    const r = await h.raw(frame);
    const reply = r.messages.find((m) => m.type === (id ? "error-response" : "error"));
    assert.ok(reply, `${what}: ${JSON.stringify(r.messages)}`);
    assert.equal(reply.id, id, what);
    assert.match((reply.data as { error: string }).error, pattern, what);
    assert.notEqual((reply.data as { fatal?: boolean }).fatal, true, what);
  }
  // Still alive: it answers, hears good audio and speaks.
  const ready = await h.send(rtvi("client-ready", { version: "2.1.0" }, "ready_2"), "protobuf");
  assert.ok(ready.messages.some((m) => m.type === "bot-ready" && m.id === "ready_2"));
  const good2 = await h.raw(audioFrameBytes(good, 16000, 1));
  assert.deepEqual(good2.messages, []);
  const spoken = await h.send(rtvi("send-text", { content: "still here" }), "protobuf");
  assert.ok(spoken.messages.some((m) => m.type === "bot-tts-text"));
  assert.equal(spoken.audio.length, 1);
});

Deno.test("a client that goes away stops the speech; the next one shakes hands again", async () => {
  const h = audioHarness();
  await h.send(READY, "protobuf");
  await h.send(rtvi("send-text", { content: "hello" }), "protobuf");
  await h.run(100);
  h.session.detach();
  const socket = new FakeSocket();
  h.session.attach(socket);
  await h.clock.advance(1000);
  await h.settle();
  assert.equal(socket.audio().length, 0, "speech went on after the client left");
  h.session.receive(audioFrameBytes(pcm16ToBytes(new Int16Array(320)), 16000, 1));
  await h.settle();
  assert.match(JSON.stringify(socket.messages()), /before the handshake/);
});

Deno.test("without audio, audio frames are ignored as before", async () => {
  const socket = new FakeSocket();
  const session = new Session(socket, {
    factory: () => new EchoParticipant(),
    participant: { name: "echo", side: "agent" },
    clock: new SimClock(),
  });
  session.receive(audioFrameBytes(pcm16ToBytes(new Int16Array(320)), 16000, 1));
  await session.idle();
  assert.deepEqual(socket.messages(), []);
  assert.equal(session.audio, false);
});

/** Says goodbye on the first speech it hears, then calls a tool and hangs up at once. */
class GoodbyeParticipant {
  readonly info = { kind: "goodbye" };
  #line?: import("../bridge/call.ts").CallLine;
  start(line: import("../bridge/call.ts").CallLine) {
    this.#line = line;
    return Promise.resolve();
  }
  onEvent(event: import("../bridge/call.ts").CallEvent) {
    if (event.type !== "speech") return;
    const line = this.#line!;
    line.say("Thank you for calling. Goodbye.");
    void line.callTool("end_conversation", {});
    line.hangUp("done");
  }
  close() {
    return Promise.resolve();
  }
}

Deno.test("serve --audio: a goodbye is heard whole, the tool call after its start and the end after its last chunk", async () => {
  const h = audioHarness({}, { factory: () => new GoodbyeParticipant() });
  await h.send(READY);
  // A client that sets the call up runs the ending tool itself.
  await h.send(rtvi("client-message", {
    t: "update_system_prompt",
    d: { prompt: "You are the agent.", tools: "[]", add_suffix: false },
  }, "p"));
  const steps = [await h.send(rtvi("send-text", { content: "bye" })), ...await h.run(800)];
  const at = (type: string, pred: (m: RtviMessage) => boolean = () => true) =>
    steps.find((s) => s.messages.some((m) => m.type === type && pred(m)))?.at;
  const index = (type: string) =>
    steps.flatMap((s) => s.messages).findIndex((m) => m.type === type);
  assert.ok(index("llm-function-call-in-progress") > index("bot-started-speaking"));
  assert.equal(at("bot-stopped-speaking"), 500);
  const end = at("server-message", (m) => (m.data as { type?: string }).type === "end");
  assert.equal(end, 500, "the end goes once the goodbye has played, not before");
  assert.ok(index("server-message") > index("bot-stopped-speaking"));
});

Deno.test("serve --audio: a plain client's call ends with the goodbye played, the end, then the close", async () => {
  const h = audioHarness({}, { factory: () => new GoodbyeParticipant() });
  await h.send(READY);
  const steps = [await h.send(rtvi("send-text", { content: "bye" })), ...await h.run(800)];
  const types = steps.flatMap((s) => s.messages).map((m) =>
    m.type === "server-message" ? `server-message ${(m.data as { type?: string }).type}` : m.type
  );
  // No function call it has no handler for: the ending tool is the agent's hang-up.
  assert.ok(!types.includes("llm-function-call-in-progress"), types.join(", "));
  const stopped = types.indexOf("bot-stopped-speaking");
  const end = types.indexOf("server-message end");
  assert.ok(stopped >= 0 && end > stopped, types.join(", "));
  assert.deepEqual(h.socket.closedWith, { code: 1000, reason: "call ended" });
});

import assert from "node:assert/strict";
import { voicedSignal } from "../audio/_test_signals.ts";
import { pcm16 } from "../audio/pcm.ts";
import { type CallSpec, DEFAULT_LIMITS, runCall } from "../bridge/bridge.ts";
import type { CallSetup } from "../bridge/call.ts";
import { RealClock, SimClock } from "../clock/clock.ts";
import { Environment } from "../env/environment.ts";
import { RemoteParticipant } from "../participants/remote.ts";
import { ScriptedUser } from "../participants/scripted_user.ts";
import { measureAudio, stereoRecording } from "../runner/audio_metrics.ts";
import { counterDomain } from "../testing/counter_domain.ts";
import { startStandin, VoicedTts } from "./_standin_agent.ts";
import { CallerAudioStream, PeerAudioReceiver, WIRE_CHUNK_MS } from "./rtvi_audio.ts";

const setup = (side: "agent" | "user"): CallSetup => ({
  side,
  scenario: "t",
  domain: "test_counter",
  prompt: "",
  tools: [],
  seed: "00000001",
});

for (const framing of ["protobuf", "json"] as const) {
  Deno.test(`eval --audio over ${framing}: the bot hears paced 16 kHz audio, no send-text, and its 24 kHz audio is recorded`, async () => {
    const standin = startStandin();
    try {
      const env = new Environment(counterDomain, { db: { count: 0 }, user_db: { pressed: [] } }, {
        today: "2024-05-15",
        seed: "s",
      });
      const spec: CallSpec = {
        env,
        agent: new RemoteParticipant({ url: standin.url, framing }),
        user: new ScriptedUser({ opening: "Please add five to the counter." }),
        agentSetup: setup("agent"),
        userSetup: setup("user"),
        clock: new RealClock(),
        limits: { ...DEFAULT_LIMITS, maxDurationMs: 20_000 },
        firstSpeaker: "agent",
        timedSpeech: true,
        speech: { tts: new VoicedTts() },
      };
      const out = await runCall(spec);
      assert.equal(out.error, undefined, out.error?.message);
      assert.equal(out.stopReason, "agent_end");
      const session = standin.sessions[0]!;
      assert.equal(session.framing, framing);
      // Audio only: the bot got no send-text (no kick was asked for).
      assert.ok(!session.messages.includes("send-text"), session.messages.join(","));
      assert.ok(session.callerTurns >= 1, "the bot's VAD heard the caller");
      // Paced: 512-byte 16 kHz mono chunks, one per 16 ms from the first to the last.
      const chunks = session.chunks;
      assert.ok(chunks.length > 100, `${chunks.length} chunks`);
      for (const c of chunks) {
        assert.deepEqual([c.bytes, c.sampleRate, c.numChannels], [512, 16000, 1]);
      }
      const span = chunks[chunks.length - 1]!.at - chunks[0]!.at;
      const expected = span / WIRE_CHUNK_MS + 1;
      assert.ok(
        Math.abs(chunks.length - expected) / expected < 0.05,
        `${chunks.length} chunks in ${span.toFixed(0)} ms (expected about ${expected.toFixed(0)})`,
      );
      // The bot's words come from bot-tts-text; its audio is in the outcome.
      const agentTurns = out.turns.filter((t) => t.speaker === "agent");
      assert.equal(agentTurns[0]?.text, "Hello, this is the bot. What can I do?");
      const agentAudio = (out.audio ?? []).filter((a) => a.side === "agent");
      assert.ok(agentAudio.length >= 2);
      assert.equal(agentAudio[0]!.utterance.audio!.sampleRate, 16000);
      const block = await measureAudio(out, {
        tts: { provider: "fake", voices: { agent: null, user: null } },
        stt: "transcript",
        dtmf: "event",
        sample_rate: 16000,
      });
      assert.ok(block.sides.agent.sent_s > 0.5, `agent sent ${block.sides.agent.sent_s} s`);
      assert.ok(block.turns.length >= 1, "a voice-to-voice latency sample");
      assert.ok(
        block.turns.every((t) => t.v2v_ms > 0 && t.v2v_ms < 3000),
        JSON.stringify(block.turns),
      );
      assert.ok(block.ttfa_ms !== null);
      const wav = stereoRecording(out, 16000);
      let right = 0;
      for (let i = 1; i < wav.samples.length; i += 2) {
        right = Math.max(right, Math.abs(wav.samples[i]!));
      }
      assert.ok(right > 1000, `right channel peak ${right}`);
    } finally {
      await standin.close();
    }
  });
}

Deno.test("the caller's stream: silence between utterances, resampled to 16 kHz, cut by barge-in", async () => {
  const clock = new SimClock();
  const sent: { bytes: number; rate: number }[] = [];
  const stream = new CallerAudioStream({
    clock,
    send: (a) => sent.push({ bytes: a.pcm.length, rate: a.sampleRate }),
  });
  stream.start();
  stream.play(pcm16(voicedSignal(24000, 480, 1), 24000));
  clock.timer(1000, () => stream.clear());
  clock.timer(200, () => stream.play(pcm16(voicedSignal(8000, 1600, 2), 8000)));
  clock.timer(2000, () => stream.stop());
  await clock.runUntil!(() => false);
  const s = stream.stats;
  // Chunks at 0, 16, ..., 1984 ms (the stop at 2000 ms comes first).
  assert.equal(s.chunks, 2000 / 16);
  assert.ok(sent.every((c) => c.bytes === 512 && c.rate === 16000));
  // 480 ms then the second utterance until the cut at 1000 ms.
  assert.ok(Math.abs(s.speechMs - 1000) <= 16, `${s.speechMs} ms of speech`);
  assert.ok(s.clearedSamples > 0);
  // On a simulated clock every chunk goes out on its slot.
  assert.deepEqual(s.late_ms, { p50: 0, p99: 0, max: 0 });
});

Deno.test("the bot's audio: each frame's rate honoured, stereo made mono, kept until the turn ends", () => {
  const clock = new SimClock();
  const rx = new PeerAudioReceiver({ clock, sampleRate: 16000 });
  const bytes = (n: number, ch = 1) => new Uint8Array(n * 2 * ch);
  assert.equal(rx.push({ pcm: bytes(2400), sampleRate: 24000, numChannels: 1 }), undefined);
  assert.equal(rx.push({ pcm: bytes(800, 2), sampleRate: 8000, numChannels: 2 }), undefined);
  const heard = rx.take()!;
  // 100 ms at 24 kHz + 100 ms at 8 kHz = 200 ms at 16 kHz.
  assert.ok(Math.abs(heard.pcm.samples.length - 3200) <= 2, `${heard.pcm.samples.length}`);
  assert.equal(heard.pcm.sampleRate, 16000);
  assert.deepEqual(rx.stats.rates, [24000, 8000]);
  assert.equal(rx.take(), undefined);
});

Deno.test("the bot's audio, written into a turn buffer it reuses: each turn is taken whole, and an earlier turn is not written over", async () => {
  const clock = new SimClock();
  const rx = new PeerAudioReceiver({ clock, sampleRate: 16000 });
  // Each turn's frames carry a ramp of its own, so any overwrite of one shows in the other.
  const frame = (turn: number, k: number, rate: number) => {
    const samples = Int16Array.from(
      { length: (rate * 20) / 1000 },
      (_, i) => turn * 1000 + (k * 7 + i) % 500,
    );
    return { pcm: new Uint8Array(samples.buffer), sampleRate: rate, numChannels: 1 };
  };
  const expected = (turn: number, frames: number) =>
    Array.from(
      { length: frames },
      (_, k) => Array.from({ length: 320 }, (_, i) => turn * 1000 + (k * 7 + i) % 500),
    ).flat();
  const turns: Int16Array[] = [];
  // 16 kHz turns of 1 s, 3 s (past the first buffer's 2 s: a bigger one mid-turn), 1 s,
  // 17 s (its buffer, past the 16 s kept, is let go after it) and 1 s, each frame 20 ms
  // after the last.
  for (const [turn, frames] of [[1, 50], [2, 150], [3, 50], [5, 850], [6, 50]] as const) {
    for (let k = 0; k < frames; k++) {
      assert.equal(rx.push(frame(turn, k, 16000)), undefined);
      await clock.advance(20);
    }
    turns.push(rx.take()!.pcm.samples);
  }
  assert.deepEqual([...turns[0]!], expected(1, 50));
  assert.deepEqual([...turns[1]!], expected(2, 150));
  assert.deepEqual([...turns[2]!], expected(3, 50));
  assert.deepEqual([...turns[3]!], expected(5, 850));
  assert.deepEqual([...turns[4]!], expected(6, 50));
  assert.deepEqual([...turns[2]!], expected(3, 50), "an earlier turn is as it was taken");
  // Resampled (24 kHz) turns go into the buffer too, and the resampler serves the next
  // turn as new: two equal turns are heard the same.
  const twice: number[][] = [];
  for (let t = 0; t < 2; t++) {
    for (let k = 0; k < 10; k++) rx.push(frame(4, k, 24000));
    twice.push([...rx.take()!.pcm.samples]);
  }
  assert.equal(twice[0]!.length, 3200);
  assert.deepEqual(twice[1], twice[0]);
});

Deno.test("the bot's audio is bounded: a minute ahead of real time, two minutes a turn (SimClock)", async () => {
  const second = (rate: number) => ({
    pcm: new Uint8Array(rate * 2),
    sampleRate: rate,
    numChannels: 1 as const,
  });
  // A burst of 59 s at once is a bot sending its reply as fast as its TTS makes it.
  {
    const clock = new SimClock();
    const bounds: string[] = [];
    const rx = new PeerAudioReceiver({ clock, sampleRate: 16000, onBound: (w) => bounds.push(w) });
    for (let i = 0; i < 59; i++) rx.push(second(24000));
    assert.deepEqual(bounds, []);
    // The 61st second at the same instant is more than a minute ahead: told once, nothing kept.
    rx.push(second(24000));
    rx.push(second(24000));
    assert.deepEqual(bounds, ["sent audio faster than real time (more than 60000 ms ahead)"]);
    assert.equal(rx.hasAudio, false);
    rx.push(second(24000));
    assert.equal(bounds.length, 1);
  }
  // Empty frames count too (10 ms each): a flood of them is no cheaper.
  {
    const clock = new SimClock();
    const bounds: string[] = [];
    const rx = new PeerAudioReceiver({ clock, sampleRate: 16000, onBound: (w) => bounds.push(w) });
    for (let i = 0; i < 6001; i++) {
      rx.push({ pcm: new Uint8Array(0), sampleRate: 16000, numChannels: 1 });
    }
    assert.equal(bounds.length, 1);
  }
  // In real time, a turn may last two minutes, no more.
  {
    const clock = new SimClock();
    const bounds: string[] = [];
    const rx = new PeerAudioReceiver({ clock, sampleRate: 16000, onBound: (w) => bounds.push(w) });
    rx.startedSpeaking();
    for (let s = 0; s < 120; s++) {
      rx.push(second(16000));
      await clock.advance(1000);
    }
    assert.deepEqual(bounds, []);
    assert.equal(rx.take()!.pcm.samples.length, 120 * 16000);
    for (let s = 0; s < 121; s++) {
      rx.push(second(16000));
      await clock.advance(1000);
    }
    assert.deepEqual(bounds, ["turn exceeded 120000 ms of audio"]);
    assert.equal(rx.take(), undefined);
  }
});

/** A bot that answers the handshake, then sends `bad` once the call starts. */
function badBot(bad: string | Uint8Array<ArrayBuffer>) {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const { socket, response } = Deno.upgradeWebSocket(req);
    socket.onmessage = (e) => {
      const m = JSON.parse(e.data as string);
      if (m.type === "client-ready") {
        socket.send(JSON.stringify({ label: "rtvi-ai", type: "bot-ready", id: m.id, data: {} }));
      }
      if (m.type === "client-message" && m.data.t === "update_system_prompt") {
        socket.send(JSON.stringify({
          label: "rtvi-ai",
          type: "server-response",
          id: m.id,
          data: { t: m.data.t, d: true },
        }));
        setTimeout(() => socket.readyState === WebSocket.OPEN && socket.send(bad), 100);
      }
    };
    return response;
  });
  return { url: `ws://127.0.0.1:${(server.addr as Deno.NetAddr).port}/`, server };
}

const ttsAudio = (data: Record<string, unknown>) =>
  JSON.stringify({ label: "rtvi-ai", type: "bot-tts-audio", data });

/** An AudioRawFrame with the given inner fields (audio=3, sample_rate=4, num_channels=5). */
function rawFrame(pcm: Uint8Array, rate: number, channels: number): Uint8Array<ArrayBuffer> {
  const v = (n: number) => {
    const out = [];
    while (n > 0x7f) {
      out.push((n & 0x7f) | 0x80);
      n >>>= 7;
    }
    out.push(n);
    return out;
  };
  const inner = [0x1a, ...v(pcm.length), ...pcm, 0x20, ...v(rate), 0x28, ...v(channels)];
  return new Uint8Array([0x12, ...v(inner.length), ...inner]);
}

const BAD_AUDIO: [string, string | Uint8Array<ArrayBuffer>, RegExp][] = [
  [
    "bot-tts-audio at an unknown rate",
    ttsAudio({ audio: "AAAA", sample_rate: 12345, num_channels: 1 }),
    /unsupported sample rate 12345/,
  ],
  [
    "bot-tts-audio with an odd byte count",
    ttsAudio({ audio: "AAAA", sample_rate: 24000, num_channels: 1 }),
    /not a whole number/,
  ],
  [
    "bot-tts-audio that is not base64",
    ttsAudio({ audio: "!!!!", sample_rate: 24000, num_channels: 1 }),
    /base64/,
  ],
  [
    "an AudioRawFrame with an odd byte count",
    rawFrame(new Uint8Array(3), 24000, 1),
    /not a whole number/,
  ],
  [
    "an AudioRawFrame without a rate",
    rawFrame(new Uint8Array(4), 0, 1),
    /unsupported sample rate 0/,
  ],
  ["an oversized AudioRawFrame", rawFrame(new Uint8Array(600 * 1024), 24000, 1), /too large/],
  [
    "a truncated AudioRawFrame",
    rawFrame(new Uint8Array(8), 24000, 1).slice(0, 6),
    /invalid protobuf|truncated/,
  ],
];

for (const [what, bad, message] of BAD_AUDIO) {
  Deno.test(`audio call: ${what} fails the trial with protocol_error`, async () => {
    const bot = badBot(bad);
    try {
      const env = new Environment(counterDomain, { db: { count: 0 }, user_db: { pressed: [] } }, {
        today: "2024-05-15",
        seed: "s",
      });
      const out = await runCall({
        env,
        agent: new RemoteParticipant({ url: bot.url, framing: "json" }),
        user: new ScriptedUser({}),
        agentSetup: setup("agent"),
        userSetup: setup("user"),
        clock: new RealClock(),
        limits: { ...DEFAULT_LIMITS, maxDurationMs: 5000 },
        firstSpeaker: "agent",
        timedSpeech: true,
        speech: { tts: new VoicedTts() },
      });
      assert.equal(out.error?.kind, "protocol_error");
      assert.match(out.error!.message, message);
    } finally {
      await bot.server.shutdown();
    }
  });
}

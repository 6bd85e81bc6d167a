/**
 * `--framing twilio` end to end on the real clock (a few seconds): callbench plays
 * Twilio against a stand-in phone agent on loopback, a Twilio-stream WebSocket server
 * that decodes the caller's µ-law, finds the caller's speech by VAD, and answers with
 * speech-like audio and a mark.
 */
import assert from "node:assert/strict";
import type { CallSetup } from "../src/bridge/call.ts";
import { pcm16 } from "../src/audio/pcm.ts";
import { mulawDecode, mulawEncode } from "../src/audio/mulaw.ts";
import { voicedSignal } from "../src/audio/_test_signals.ts";
import { SpeechSegmenter, Vad } from "../src/audio/vad.ts";
import { decodeBase64, encodeBase64 } from "../src/protocol/audio_payload.ts";
import { parseTwilioMessage } from "../src/protocol/twilio.ts";
import { RemoteParticipant } from "../src/participants/remote.ts";
import type { SttProvider, TtsProvider } from "../src/speech/speech.ts";
import { WORDS_UNKNOWN } from "../src/transport/mapping.ts";
import { twilioSids } from "../src/transport/twilio.ts";
import { RecordingLine } from "./_wire.ts";
import { DEFAULT_LIMITS, runCall } from "../src/bridge/bridge.ts";
import { RealClock } from "../src/clock/clock.ts";
import { Environment } from "../src/env/environment.ts";
import { ScriptedUser } from "../src/participants/scripted_user.ts";
import { counterDomain } from "../src/testing/counter_domain.ts";

const SETUP: CallSetup = {
  side: "agent",
  scenario: "toy__1",
  domain: "toy",
  prompt: "You answer the phone.",
  tools: [],
  seed: "5eed",
};

/** A phone agent: answers each caller utterance (VAD) with 600 ms of audio and a mark. */
async function phoneAgent() {
  const vad = await Vad.create({ sampleRate: 8000, frameMs: 20 });
  const seg = new SpeechSegmenter({ frameMs: 20, minSilenceMs: 300 });
  const seen: { events: string[]; marks: string[]; digits: string[]; callerSpeechMs: number } = {
    events: [],
    marks: [],
    digits: [],
    callerSpeechMs: 0,
  };
  let streamSid = "";
  let replies = 0;
  let socket: WebSocket | undefined;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const { socket: ws, response } = Deno.upgradeWebSocket(req);
    socket = ws;
    ws.onmessage = (e) => {
      const parsed = parseTwilioMessage(e.data as string);
      if (!parsed.ok) throw new Error(parsed.problem.message);
      const m = parsed.value;
      seen.events.push(m.event);
      if (m.event === "start") streamSid = m.start.streamSid;
      if (m.event === "mark") seen.marks.push(m.mark.name);
      if (m.event === "dtmf") seen.digits.push(m.dtmf.digit);
      if (m.event !== "media") return;
      const bytes = decodeBase64(m.media.payload, 1 << 20);
      if (!bytes.ok) throw new Error("bad payload");
      for (const ev of seg.push(vad.process(mulawDecode(bytes.value)))) {
        if (ev.type === "start" && seen.callerSpeechMs === 0) seen.callerSpeechMs = ev.atMs;
        if (ev.type !== "end") continue;
        const reply = mulawEncode(voicedSignal(8000, 600, 7 + replies));
        for (let at = 0; at < reply.length; at += 160) {
          ws.send(JSON.stringify({
            event: "media",
            streamSid,
            media: { payload: encodeBase64(reply.subarray(at, at + 160)) },
          }));
        }
        ws.send(JSON.stringify({ event: "mark", streamSid, mark: { name: `reply-${++replies}` } }));
      }
    };
    return response;
  });
  const addr = server.addr as Deno.NetAddr;
  return {
    url: `ws://127.0.0.1:${addr.port}/stream`,
    seen,
    hangUp: () => socket?.close(1000, "bye"),
    async stop() {
      await server.shutdown();
      vad.free();
    },
  };
}

/** A TTS stand-in: speech-like audio at 16 kHz (so the mapping resamples), 60 ms a character. */
const fakeTts: TtsProvider = {
  info: { provider: "fake", sampleRate: 16000 },
  synthesize: ({ text }) =>
    Promise.resolve({ ok: true, audio: pcm16(voicedSignal(16000, text.length * 60, 3), 16000) }),
  close: () => Promise.resolve(),
};

for (const withStt of [false, true]) {
  Deno.test(`--framing twilio: a call with a phone agent, ${withStt ? "words from STT" : "words unknown"}`, async () => {
    const agent = await phoneAgent();
    const heard: number[] = [];
    const stt: SttProvider = {
      info: { provider: "fake-stt" },
      transcribe: ({ audio }) => {
        heard.push(audio.samples.length / 8);
        return Promise.resolve({ ok: true, text: "How can I help?" });
      },
    };
    const remote = new RemoteParticipant({
      url: agent.url,
      framing: "twilio",
      speech: { tts: fakeTts, ...(withStt ? { stt } : {}) },
    });
    const line = new RecordingLine("agent");
    try {
      await remote.start(line, SETUP);
      assert.equal(remote.info.settings?.framing, "twilio");
      assert.equal(remote.info.settings?.words_unknown, withStt ? undefined : true);
      remote.onEvent({ type: "call_start", at: 0, you_speak_first: true });
      remote.onEvent({ type: "speech", at: 0, text: "I need to change my flight." });
      const expected = withStt ? "How can I help?" : WORDS_UNKNOWN;
      await line.when((a) => a.act === "say" && a.text === expected, 8000);
      remote.onEvent({ type: "dtmf", at: 0, keys: "42" });
      // The mark is echoed once the reply has played.
      const until = Date.now() + 3000;
      while (
        !(agent.seen.marks.includes("reply-1") && agent.seen.digits.length === 2) &&
        Date.now() < until
      ) {
        await new Promise((r) => setTimeout(r, 20));
      }
      assert.deepEqual(agent.seen.marks, ["reply-1"]);
      assert.deepEqual(agent.seen.digits, ["4", "2"]);
      assert.deepEqual(agent.seen.events.slice(0, 2), ["connected", "start"]);
      assert.ok(agent.seen.events.filter((e) => e === "media").length > 50, "continuous media");
      if (withStt) assert.ok(heard[0]! >= 550, `the turn's audio went to STT (${heard[0]} ms)`);
      // The agent hangs up by closing the stream.
      agent.hangUp();
      const end = await line.when((a) => a.act === "hangUp", 3000);
      assert.equal(end.act === "hangUp" && end.agentEnd, true);
      assert.ok(!line.acts.some((a) => a.act === "fail"), JSON.stringify(line.acts));
    } finally {
      await remote.close();
      await agent.stop();
    }
  });
}

Deno.test("--framing twilio: the caller's hangup sends stop; the stream ids come from the seed", async () => {
  const agent = await phoneAgent();
  const remote = new RemoteParticipant({
    url: agent.url,
    framing: "twilio",
    speech: { tts: fakeTts },
  });
  const line = new RecordingLine("agent");
  try {
    await remote.start(line, SETUP);
    remote.onEvent({ type: "call_start", at: 0, you_speak_first: true });
    await new Promise((r) => setTimeout(r, 100));
    remote.onEvent({ type: "hangup", at: 100, by: "user", reason: "done" });
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(agent.seen.events.at(-1), "stop");
    assert.deepEqual(twilioSids("5eed"), twilioSids("5eed"));
    assert.notEqual(twilioSids("5eed").streamSid, twilioSids("5eef").streamSid);
    assert.match(twilioSids("5eed").streamSid, /^MZ[0-9a-f]{32}$/);
  } finally {
    await remote.close();
    await agent.stop();
  }
});

Deno.test("--framing twilio in an audio call: the caller's audio streams from the utterance's start, the call's STT gives the words, the agent's audio is recorded", async () => {
  const agent = await phoneAgent();
  const transcribed: number[] = [];
  const stt: SttProvider = {
    info: { provider: "fake-stt" },
    transcribe: ({ audio }) => {
      transcribed.push(audio.sampleRate);
      return Promise.resolve({ ok: true, text: "How can I help?" });
    },
  };
  const env = new Environment(counterDomain, { db: { count: 0 }, user_db: { pressed: [] } }, {
    today: "2024-05-15",
    seed: "s",
  });
  let callStart = 0;
  try {
    const remote = new RemoteParticipant({ url: agent.url, framing: "twilio" });
    const out = await runCall({
      env,
      agent: remote,
      user: new ScriptedUser({ opening: "Please add five to the counter, thank you." }),
      agentSetup: SETUP,
      userSetup: { ...SETUP, side: "user" },
      clock: new RealClock(),
      limits: { ...DEFAULT_LIMITS, maxDurationMs: 5000 },
      firstSpeaker: "user",
      timedSpeech: true,
      speech: { tts: fakeTts, stt },
      tap: (side, e) => {
        if (side === "agent" && e.type === "call_start") callStart = e.at;
      },
    });
    assert.equal(out.error, undefined, out.error?.message);
    const opening = out.turns.find((t) => t.speaker === "user")!;
    // The agent's VAD heard the caller start near the utterance's start on the line, not
    // after its end (2.5 s later), as when the words were synthesized once said.
    const lag = agent.seen.callerSpeechMs - (opening.start_ms - callStart);
    assert.ok(Math.abs(lag) < 400, `caller audio lag ${lag} ms`);
    const reply = out.turns.find((t) => t.speaker === "agent");
    assert.equal(reply?.text, "How can I help?");
    // Transcribed once, by the mapping (the bridge does not transcribe it again).
    assert.deepEqual(transcribed, [8000]);
    assert.equal(remote.info.settings?.stt, "fake-stt");
    const agentAudio = out.audio!.filter((a) => a.side === "agent");
    assert.ok(agentAudio.length >= 1 && agentAudio[0]!.utterance.durationMs >= 550);
  } finally {
    await agent.stop();
  }
});

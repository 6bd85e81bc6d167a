/**
 * What a remote agent gets and gives in an audio call, over a real socket on the real
 * clock, against test agents whose behaviour is known exactly (`./_behave_agents.ts`).
 */
import assert from "node:assert/strict";
import { voicedSignal } from "../src/audio/_test_signals.ts";
import { type CallSpec, DEFAULT_LIMITS, runCall } from "../src/bridge/bridge.ts";
import type { CallLine, CallSetup, Participant } from "../src/bridge/call.ts";
import { RealClock } from "../src/clock/clock.ts";
import { Environment } from "../src/env/environment.ts";
import { RemoteParticipant, type RemoteParticipantOptions } from "../src/participants/remote.ts";
import { ScriptedUser } from "../src/participants/scripted_user.ts";
import { rtvi } from "../src/protocol/messages.ts";
import { counterDomain } from "../src/testing/counter_domain.ts";
import { VoicedTts } from "../src/transport/_standin_agent.ts";
import {
  AGENT_RATE,
  type BehaveSession,
  keyTones,
  sleep,
  startBehaveAgent,
  startTwilioAgent,
} from "./_behave_agents.ts";

const setup = (side: "agent" | "user"): CallSetup => ({
  side,
  scenario: "t",
  domain: "test_counter",
  prompt: "",
  tools: side === "agent"
    ? [{ name: "end_conversation", description: "end", parameters: { type: "object" } }]
    : [],
  seed: "00000001",
});

function env(): Environment {
  return new Environment(counterDomain, { db: { count: 0 }, user_db: { pressed: [] } }, {
    today: "2024-05-15",
    seed: "s",
  });
}

/** One audio call of the scripted caller with a remote agent, on the real clock. */
function audioCall(
  agent: RemoteParticipantOptions,
  options: { user?: Participant; maxMs?: number; audio?: boolean; inband?: boolean } = {},
) {
  const spec: CallSpec = {
    env: env(),
    agent: new RemoteParticipant(agent),
    user: options.user ?? new ScriptedUser({ opening: "Please add five to the counter." }),
    agentSetup: setup("agent"),
    userSetup: setup("user"),
    clock: new RealClock(),
    limits: { ...DEFAULT_LIMITS, maxDurationMs: options.maxMs ?? 15_000 },
    firstSpeaker: "agent",
    timedSpeech: true,
    ...(options.audio === false ? {} : {
      speech: { tts: new VoicedTts(), ...(options.inband ? { dtmf: "inband" as const } : {}) },
    }),
  };
  return runCall(spec);
}

/** Says `text` as a bracketed turn of `ms` of voiced audio. */
async function sayTurn(s: BehaveSession, text: string, ms: number): Promise<void> {
  s.send(rtvi("bot-started-speaking"));
  s.send(rtvi("bot-tts-text", { text }));
  await s.play(voicedSignal(AGENT_RATE, ms, text.length % 5));
  s.send(rtvi("bot-stopped-speaking"));
}

/** Greets, answers the caller's first turn, then ends the call. */
const greetAnswerEnd = async (s: BehaveSession) => {
  await sayTurn(s, "Hello, how can I help?", 600);
  await s.callerEnded();
  await sayTurn(s, "Done, goodbye.", 500);
  s.send(rtvi("server-message", { type: "end" }));
};

/** The caller-speech notices a bot was sent (`call_event` speech or speech_start). */
function speechNotices(s: BehaveSession) {
  return s.messages.filter((m) => {
    const d = m.data as { t?: string; d?: { type?: string } } | undefined;
    return m.type === "client-message" && d?.t === "call_event" &&
      (d.d?.type === "speech" || d.d?.type === "speech_start");
  });
}

for (const framing of ["json", "protobuf"] as const) {
  Deno.test(`audio call over ${framing}: the agent gets the caller's audio only, no words and no turn-end notice`, async () => {
    const agent = await startBehaveAgent(greetAnswerEnd);
    try {
      const out = await audioCall({ url: agent.url, framing });
      await agent.done();
      assert.equal(out.error, undefined, out.error?.message);
      assert.equal(out.stopReason, "agent_end");
      const s = agent.sessions[0]!;
      assert.ok(s.callerTurns.length >= 1, "the agent heard the caller's audio");
      assert.deepEqual(speechNotices(s).map((m) => JSON.stringify(m.data)), []);
      assert.ok(!s.messages.some((m) => m.type === "send-text"), "no send-text");
      const words = JSON.stringify(s.messages);
      assert.ok(!words.includes("add five"), "the caller's words never reach the agent");
    } finally {
      await agent.close();
    }
  });
}

Deno.test("audio call with transcripts (--hints transcript): the agent is told the caller's words and turn ends", async () => {
  const agent = await startBehaveAgent(greetAnswerEnd);
  try {
    const remote = new RemoteParticipant({ url: agent.url, transcripts: true });
    assert.equal(remote.info.settings?.transcripts, true, "recorded with the participant");
    const out = await audioCall({ url: agent.url, transcripts: true });
    await agent.done();
    assert.equal(out.error, undefined, out.error?.message);
    const notices = speechNotices(agent.sessions[0]!).map((m) =>
      (m.data as { d: { type: string; text?: string } }).d
    );
    assert.ok(notices.some((d) => d.type === "speech_start"));
    assert.ok(
      notices.some((d) => d.type === "speech" && d.text === "Please add five to the counter."),
      JSON.stringify(notices),
    );
  } finally {
    await agent.close();
  }
});

Deno.test("audio call with a kick: the one-time kick is the only send-text", async () => {
  const agent = await startBehaveAgent(greetAnswerEnd);
  try {
    const out = await audioCall({ url: agent.url, kick: "Hello" });
    await agent.done();
    assert.equal(out.error, undefined, out.error?.message);
    const sent = agent.sessions[0]!.messages.filter((m) => m.type === "send-text");
    assert.deepEqual(sent.map((m) => (m.data as { content: string }).content), ["Hello"]);
  } finally {
    await agent.close();
  }
});

// ---- no turn is lost; a text turn starts at its first fragment ----------------------

/** A text call (no audio) of the scripted caller, who speaks first, with a remote agent. */
function textCall(url: string) {
  return runCall({
    env: env(),
    agent: new RemoteParticipant({ url }),
    user: new ScriptedUser({ opening: "Please add five to the counter." }),
    agentSetup: setup("agent"),
    userSetup: setup("user"),
    clock: new RealClock(),
    limits: { ...DEFAULT_LIMITS, maxDurationMs: 10_000 },
    firstSpeaker: "user",
    timedSpeech: false,
  });
}

function agentTurns(out: Awaited<ReturnType<typeof runCall>>): string[] {
  return out.turns.filter((t) => t.speaker === "agent").map((t) => t.text);
}

/** Resolves at the next `send-text` the agent gets. */
async function nextSendText(s: BehaveSession): Promise<void> {
  const seen = s.messages.filter((m) => m.type === "send-text").length;
  while (s.messages.filter((m) => m.type === "send-text").length === seen) await sleep(1);
}

Deno.test("a text turn without brackets starts at its first fragment: a bot answering in 17 ms reads 17 ms", async () => {
  let delay = 0;
  const agent = await startBehaveAgent(async (s) => {
    await nextSendText(s);
    await sleep(17);
    // The bot's true delay: from the send-text's arrival to its first fragment.
    delay = performance.now() - s.arrivals[s.messages.findIndex((m) => m.type === "send-text")]!;
    s.send(rtvi("bot-output", { text: "Sure.", aggregated_by: "sentence" }));
    s.send(rtvi("bot-output", { text: "Done, goodbye.", aggregated_by: "sentence" }));
    await sleep(900); // past the fragment gap: one turn
    s.send(rtvi("server-message", { type: "end" }));
  });
  try {
    const out = await textCall(agent.url);
    await agent.done();
    assert.equal(out.error, undefined, out.error?.message);
    assert.deepEqual(agentTurns(out), ["Sure. Done, goodbye."]);
    const ms = out.latency[0]!.response_ms;
    assert.ok(delay >= 17);
    // Bot and caller share this process's event loop: a pause of it (GC) between the
    // bot's send and the caller's read stamps the fragment late by that much.
    assert.ok(Math.abs(ms - delay) <= 10, `response_ms ${ms}, the bot answered in ${delay} ms`);
  } finally {
    await agent.close();
  }
});

Deno.test("a text bot that ends the call by tool right after its last words keeps that turn", async () => {
  const agent = await startBehaveAgent(async (s) => {
    await nextSendText(s);
    s.send(rtvi("bot-output", { text: "All done, goodbye.", aggregated_by: "sentence" }));
    s.send(rtvi("llm-function-call-in-progress", {
      function_name: "end_conversation",
      tool_call_id: "t1",
      arguments: {},
    }));
  });
  try {
    const out = await textCall(agent.url);
    await agent.done();
    assert.equal(out.error, undefined, out.error?.message);
    assert.equal(out.stopReason, "agent_end");
    assert.deepEqual(agentTurns(out), ["All done, goodbye."]);
  } finally {
    await agent.close();
  }
});

/** The agent's turns and the audio recorded for them. */
function agentAudio(out: Awaited<ReturnType<typeof runCall>>) {
  return (out.audio ?? []).filter((a) => a.side === "agent").map((a) => ({
    text: a.utterance.text,
    ms: Math.round(a.end_ms - a.start_ms),
  }));
}

Deno.test("an audio bot without brackets that ends the call by tool right after its last audio keeps that turn, its audio recorded", async () => {
  const agent = await startBehaveAgent(async (s) => {
    await sayTurn(s, "Hello, how can I help?", 600);
    await s.callerEnded();
    s.send(rtvi("bot-tts-text", { text: "Done, goodbye." }));
    await s.play(voicedSignal(AGENT_RATE, 800, 3));
    s.send(rtvi("llm-function-call-in-progress", {
      function_name: "end_conversation",
      tool_call_id: "t1",
      arguments: {},
    }));
  });
  try {
    const out = await audioCall({ url: agent.url });
    await agent.done();
    assert.equal(out.error, undefined, out.error?.message);
    assert.equal(out.stopReason, "agent_end");
    const last = agentAudio(out).at(-1);
    assert.equal(last?.text, "Done, goodbye.", JSON.stringify(agentAudio(out)));
    assert.ok(last!.ms >= 760, `${last!.ms} ms of the goodbye's 800 ms recorded`);
  } finally {
    await agent.close();
  }
});

for (
  const [how, maxMs, hangUp] of [["the duration limit", 1500, false], [
    "the caller's hangup",
    0,
    true,
  ]] as const
) {
  Deno.test(`${how} while the bot speaks: its turn so far is recorded, words and audio`, async () => {
    const agent = await startBehaveAgent(async (s) => {
      s.send(rtvi("bot-started-speaking"));
      s.send(rtvi("bot-tts-text", { text: "Let me read you the whole policy, it is long." }));
      await s.play(voicedSignal(AGENT_RATE, 4000, 1));
    });
    const user: Participant = {
      info: { kind: "hangs_up" },
      start(line) {
        if (hangUp) line.clock.timer(1500, () => line.hangUp("bored"));
        return Promise.resolve();
      },
      onEvent() {},
      close: () => Promise.resolve(),
    };
    try {
      const out = await audioCall({ url: agent.url }, {
        user,
        maxMs: maxMs || 15_000,
      });
      assert.equal(out.error, undefined, out.error?.message);
      assert.equal(out.stopReason, hangUp ? "user_hangup" : "max_duration");
      const turns = agentAudio(out);
      assert.equal(turns.length, 1, JSON.stringify(turns));
      assert.ok(turns[0]!.ms > 1000, `${turns[0]!.ms} ms recorded`);
      assert.ok(out.turns.some((t) => t.speaker === "agent"), "in the transcript");
    } finally {
      await agent.close();
    }
  });
}

// ---- a silent agent fails (agent_voiced) ---------------------------------------------

const AUDIO_CONFIG = {
  tts: { provider: "fake", voices: { agent: null, user: null } },
  stt: "transcript",
  dtmf: "event",
  sample_rate: 16000,
} as const;

Deno.test("an audio bot that sends text and no audio is marked harness_playout, one that speaks agent_audio", async () => {
  const { measureAudio } = await import("../src/runner/audio_metrics.ts");
  const textOnly = await startBehaveAgent(async (s) => {
    s.send(rtvi("bot-output", { text: "Hello, how can I help?", aggregated_by: "sentence" }));
    await s.callerEnded();
    s.send(rtvi("bot-output", { text: "Done, goodbye.", aggregated_by: "sentence" }));
    await sleep(900);
    s.send(rtvi("server-message", { type: "end" }));
  });
  const speaking = await startBehaveAgent(greetAnswerEnd);
  try {
    const [silent, heard] = await Promise.all([
      audioCall({ url: textOnly.url }),
      audioCall({ url: speaking.url }),
    ]);
    for (const out of [silent, heard]) assert.equal(out.error, undefined, out.error?.message);
    const sources = async (out: typeof silent) =>
      (await measureAudio(out, AUDIO_CONFIG)).agent_turns!.map((a) => [a.source, a.voiced_ms > 0]);
    assert.deepEqual(await sources(silent), [
      ["harness_playout", true],
      ["harness_playout", true],
    ]);
    assert.deepEqual(await sources(heard), [["agent_audio", true], ["agent_audio", true]]);
  } finally {
    await textOnly.close();
    await speaking.close();
  }
});

// ---- barge-in reaches remote agents; the yield is the agent's -------------------------

/**
 * Speaks 6 s; with `yieldMs`, stops that long after the caller's speech reached it, and
 * logs the yield it produced (its audio's end as sent less the caller's first sound).
 */
/** What a long talker saw: its yield, and the caller's onset and its own end from its audio's start. */
interface TalkerLog {
  producedMs?: number;
  agentView?: string;
  callerMs?: number;
  endMs?: number;
}

function longTalker(yieldMs?: number, log: TalkerLog = {}) {
  return async (s: BehaveSession) => {
    s.send(rtvi("bot-started-speaking"));
    s.send(rtvi("bot-tts-text", { text: "Let me read you our whole policy on changes." }));
    const played = s.play(voicedSignal(AGENT_RATE, 6000, 2));
    if (yieldMs !== undefined) {
      void s.callerStarted()
        .then(async (i) => {
          await sleep(yieldMs - (performance.now() - s.callerTurns[i]!.startAt));
          s.clear();
          log.producedMs = s.audioEndAt() - s.callerTurns[i]!.startAt;
          const from = s.audioStartAt();
          log.callerMs = s.callerTurns[i]!.startAt - from;
          log.endMs = s.audioEndAt() - from;
          log.agentView = `agent: caller +${log.callerMs.toFixed(1)}, end +${log.endMs.toFixed(1)}`;
        });
    }
    await played;
    s.send(rtvi("bot-stopped-speaking"));
    await s.callerEnded();
    await sayTurn(s, "Goodbye.", 400);
    s.send(rtvi("server-message", { type: "end" }));
  };
}

/**
 * One short audio call first, once: a cold process compiles the call's paths while the
 * first call runs, which stalls its event loop for tens of ms and stamps the agent's
 * frames late (the yield then reads 20-40 ms long). The figures are a warm process's.
 */
let warm: Promise<void> | undefined;
const warmUp = () =>
  warm ??= (async () => {
    const agent = await startBehaveAgent(greetAnswerEnd);
    try {
      await audioCall({ url: agent.url });
      await agent.done();
    } finally {
      await agent.close();
    }
  })();

for (const framing of ["json", "protobuf"] as const) {
  for (const yieldMs of [300, undefined]) {
    const what = yieldMs === undefined ? "never stops" : `stops ${yieldMs} ms after`;
    Deno.test({
      name:
        `barge-in over ${framing}: the caller cuts in while the agent speaks; an agent that ${what} reads so`,
      fn: async () => {
        const { measureAudio } = await import("../src/runner/audio_metrics.ts");
        await warmUp();
        const log: TalkerLog = {};
        const agent = await startBehaveAgent(longTalker(yieldMs, log), { frameMs: 10 });
        try {
          const out = await audioCall({ url: agent.url, framing }, {
            user: new ScriptedUser({ bargeIns: [{ agentUtterance: 1, atMs: 1500 }] }),
            maxMs: 20_000,
          });
          await agent.done();
          assert.equal(out.error, undefined, out.error?.message);
          const block = await measureAudio(out, AUDIO_CONFIG);
          assert.equal(block.barge_ins.length, 1, JSON.stringify(out.turns));
          const b = block.barge_ins[0]!;
          assert.equal(b.source, "agent_audio");
          // The caller cut in 1.5 s after it heard the agent start (plus its own
          // synthesis), not after the agent's 6 s.
          const into = b.at_ms - out.turns[b.agent_turn]!.start_ms;
          assert.ok(into >= 1500 && into < 2000, `${into} ms in`);
          // Where each end put the caller's onset and the agent's audio end, from the
          // start of the agent's audio: which of the two a yield error comes from.
          const start = out.turns[b.agent_turn]!.start_ms;
          const views = `harness: caller +${(b.at_ms - start).toFixed(1)}, end +${
            (b.at_ms + b.yield_ms - start).toFixed(1)
          }; ${log.agentView ?? "agent: -"}`;
          console.log(
            `${framing} ${what}: cut in ${into.toFixed(0)} ms in, yield ${b.yield_ms} ms` +
              (log.producedMs === undefined ? "" : `, produced ${log.producedMs.toFixed(1)} ms`) +
              ` (${views})`,
          );
          if (yieldMs === undefined) assert.equal(b.yielded, false, JSON.stringify(b));
          else {
            assert.equal(b.yielded, true, JSON.stringify(b));
            // Against the yield the agent produced (its timer may fire late under load):
            // from the caller's first sound as it came to the end of its audio as sent.
            const produced = log.producedMs!;
            // Its audio ends on its 10 ms grid: a chunk whose timer had not fired yet when
            // it cleared is not sent, so it may stop up to a chunk short of its timer.
            assert.ok(produced > yieldMs - 10 && produced < yieldMs + 100, `produced ${produced}`);
            // The yield runs from the caller's onset as it left to the agent's end as it
            // came, so it is checked at both ends. The end is where the agent put it.
            const harnessEnd = b.at_ms + b.yield_ms - start;
            assert.ok(Math.abs(harnessEnd - log.endMs!) <= 20, `the end (${views})`);
            // The onset is where the agent heard it, or before by the way to it: the agent
            // finds it 6-8 ms in (its first sample of magnitude 33), and its thread may be
            // kept waiting for a CPU on a loaded machine (it once heard it 37 ms after it
            // left). An onset placed after the agent heard it, or far before, fails.
            const heardAfter = log.callerMs! - (b.at_ms - start);
            assert.ok(heardAfter >= -2 && heardAfter <= 50, `the onset (${views})`);
            // On a quiet machine the two agree to the detection's few ms.
            if (heardAfter <= 12) {
              assert.ok(
                Math.abs(b.yield_ms - produced) <= 20,
                `yield ${b.yield_ms} ms, produced ${produced.toFixed(1)} ms (${views})`,
              );
            }
          }
        } finally {
          await agent.close();
        }
      },
    });
  }
}

// ---- DTMF in band, both ways ------------------------------------------------------------

const ALL_KEYS = "123A456B789C*0#D";

for (const framing of ["json", "protobuf"] as const) {
  for (
    const [line, tone] of [
      ["clean", {}],
      ["20 dB SNR, +2 dB twist", { snrDb: 20, twistDb: 2 }],
      ["20 dB SNR, -2 dB twist", { snrDb: 20, twistDb: -2 }],
    ] as const
  ) {
    Deno.test(`in-band DTMF over ${framing}, 16 kHz, ${line}: the agent's 16 tones are its 16 keys, no extras`, async () => {
      const agent = await startBehaveAgent(async (s) => {
        await s.play(keyTones(ALL_KEYS, 16000, { ...tone, seed: 7 }));
        await sleep(300);
        s.send(rtvi("server-message", { type: "end" }));
      }, { sampleRate: 16000 });
      try {
        const out = await audioCall({ url: agent.url, framing }, {
          user: new ScriptedUser({}),
          inband: true,
        });
        await agent.done();
        assert.equal(out.error, undefined, out.error?.message);
        const keys = out.dtmf.filter((d) => d.side === "agent").map((d) => d.keys).join("");
        assert.equal(keys, ALL_KEYS);
      } finally {
        await agent.close();
      }
    });
  }
}

Deno.test("in-band DTMF to a remote agent: callbench's keys go as tones in its audio, never as dtmf messages", async () => {
  const { detectDtmf } = await import("../src/audio/dtmf.ts");
  let heard: Int16Array = new Int16Array();
  const agent = await startBehaveAgent(async (s) => {
    await sayTurn(s, "Press your PIN.", 500);
    await sleep(2500);
    heard = s.callerAudio();
    s.send(rtvi("server-message", { type: "end" }));
  });
  /** A caller that presses keys when the agent asks. */
  let callerLine: CallLine | undefined;
  const presser: Participant = {
    info: { kind: "presser" },
    start(line) {
      callerLine = line;
      return Promise.resolve();
    },
    onEvent(event) {
      if (event.type === "speech" && /PIN/.test(event.text)) callerLine?.press("4721#");
    },
    close: () => Promise.resolve(),
  };
  try {
    const out = await audioCall({ url: agent.url }, { user: presser, inband: true });
    await agent.done();
    assert.equal(out.error, undefined, out.error?.message);
    const s = agent.sessions[0]!;
    assert.ok(!s.messages.some((m) => m.type === "dtmf"), "no dtmf message");
    assert.equal(detectDtmf(heard, 16000).map((e) => e.key).join(""), "4721#");
  } finally {
    await agent.close();
  }
});

for (
  const [line, tone] of [
    ["clean", {}],
    ["20 dB SNR, +2 dB twist", { snrDb: 20, twistDb: 2 }],
    ["20 dB SNR, -2 dB twist", { snrDb: 20, twistDb: -2 }],
  ] as const
) {
  Deno.test(`in-band DTMF over twilio, µ-law 8 kHz, ${line}: the agent's 16 tones are its 16 keys, no extras`, async () => {
    const tones = keyTones(ALL_KEYS, 8000, { ...tone, seed: 11 });
    const agent = startTwilioAgent(tones, 4000);
    try {
      const out = await audioCall({ url: agent.url, framing: "twilio" }, {
        user: new ScriptedUser({}),
        inband: true,
      });
      assert.equal(out.error, undefined, out.error?.message);
      const keys = out.dtmf.filter((d) => d.side === "agent").map((d) => d.keys).join("");
      assert.equal(keys, ALL_KEYS);
    } finally {
      await agent.stop();
    }
  });
}

/**
 * The caller's behaviours act on a remote agent's speech as it streams (issue #29
 * point 2): `backchannel=1` against an agent that talks 5 s a turn over the wire, whose
 * length callbench learns only when it ends. Against an agent that stops whenever the
 * caller makes a sound `backchannel_selectivity` is at most 0.2, against one that never
 * stops at least 0.8, over JSON, protobuf and Twilio, on the real clock.
 */
import assert from "node:assert/strict";
import { voicedSignal } from "../src/audio/_test_signals.ts";
import { pcm16 } from "../src/audio/pcm.ts";
import { DEFAULT_LIMITS, runCall } from "../src/bridge/bridge.ts";
import { RealClock } from "../src/clock/clock.ts";
import { Environment } from "../src/env/environment.ts";
import { RemoteParticipant } from "../src/participants/remote.ts";
import { ScriptedUser } from "../src/participants/scripted_user.ts";
import { BehavingCaller, LIVE_BACKCHANNEL_MS } from "../src/participants/caller_behaviour.ts";
import { TurnTakingCaller } from "../src/participants/turn_taking.ts";
import { rtvi } from "../src/protocol/messages.ts";
import { interactionMetrics } from "../src/score/interaction.ts";
import type { TtsProvider, TtsResult } from "../src/speech/speech.ts";
import { counterDomain } from "../src/testing/counter_domain.ts";
import { AGENT_RATE, type BehaveSession, startBehaveAgent } from "./_behave_agents.ts";

/** 100 ms of voiced audio a word. */
const tts: TtsProvider = {
  info: { provider: "fake", sampleRate: 16000 },
  synthesize(r: { text: string }): Promise<TtsResult> {
    const ms = 100 * r.text.split(/\s+/).length;
    return Promise.resolve({ ok: true, audio: pcm16(voicedSignal(16000, ms, ms), 16000) });
  },
  close: () => Promise.resolve(),
};

const REPLY_MS = 5000;

/**
 * An agent that greets and answers each caller turn 300 ms after it with 5 s of speech;
 * `stops`: it stops (bot-interrupted, a `clear` on Twilio) as soon as it hears the
 * caller make a sound over it. It counts the times it was spoken over.
 */
function agent(stops: boolean, rate: number, log: { over: number }) {
  return async (s: BehaveSession) => {
    let speaking = false;
    let n = 0;
    const say = () => {
      const mine = ++n;
      speaking = true;
      s.send(rtvi("bot-started-speaking"));
      s.send(rtvi("bot-tts-text", { text: `Reply ${mine}, a long one.` }));
      void s.play(voicedSignal(rate, REPLY_MS, mine)).then(() => {
        if (!speaking || n !== mine) return;
        speaking = false;
        s.send(rtvi("bot-stopped-speaking"));
      });
    };
    s.onCallerTurn((e) => {
      if (e.type === "start") {
        if (!speaking) return;
        log.over++;
        if (!stops) return;
        s.clear();
        speaking = false;
        s.send(rtvi("bot-interrupted"));
        s.send(rtvi("bot-stopped-speaking"));
        return;
      }
      // A caller turn heard over it (a backchannel) is no turn to answer.
      if (!speaking) setTimeout(say, 300);
    });
    say();
    await s.closed;
  };
}

async function call(stops: boolean, framing: "json" | "protobuf" | "twilio") {
  const rate = framing === "twilio" ? 8000 : AGENT_RATE;
  const log = { over: 0 };
  const bot = await startBehaveAgent(agent(stops, rate, log), { sampleRate: rate });
  try {
    const env = new Environment(counterDomain, { db: { count: 0 }, user_db: { pressed: [] } }, {
      today: "2024-05-15",
      seed: "s",
    });
    const setup = (side: "agent" | "user") => ({
      side,
      scenario: "t",
      domain: "test_counter",
      prompt: "",
      tools: [],
      seed: "5eed0001",
    });
    const caller = new TurnTakingCaller(
      new BehavingCaller(
        new ScriptedUser({ opening: "Please add five.", patience: 2, hangUpAfterMs: 1000 }),
        { backchannel: 1 },
      ),
    );
    const out = await runCall({
      env,
      agent: new RemoteParticipant({
        url: framing === "twilio" ? bot.twilioUrl : bot.url,
        framing,
      }),
      user: caller,
      agentSetup: setup("agent"),
      userSetup: setup("user"),
      clock: new RealClock(),
      limits: { ...DEFAULT_LIMITS, maxDurationMs: 40_000 },
      firstSpeaker: "agent",
      timedSpeech: true,
      speech: { tts },
    });
    assert.equal(out.error, undefined, out.error?.message);
    const m = interactionMetrics({
      turns: out.turns,
      caller_events: out.callerEvents ?? [],
      agent_tool_calls_ms: [],
    });
    return { m, out, log };
  } finally {
    await bot.close();
  }
}

for (const framing of ["json", "protobuf", "twilio"] as const) {
  Deno.test(`backchannels over a remote agent's live speech over ${framing}: selectivity ≤ 0.2 against an agent that stops at any sound, ≥ 0.8 against one that never stops`, async () => {
    for (const stops of [true, false]) {
      const { m, out, log } = await call(stops, framing);
      const what = `${framing}, ${stops ? "stops" : "never stops"}: ${
        JSON.stringify(out.callerEvents)
      } ${JSON.stringify(out.turns.map((t) => [t.speaker, t.text, Math.round(t.start_ms)]))}`;
      const bcs = (out.callerEvents ?? []).filter((e) => e.kind === "backchannel");
      assert.ok(bcs.length >= 2, `${what}: ${bcs.length} backchannels`);
      assert.equal(m.events.backchannel, bcs.length);
      assert.ok(log.over >= bcs.length, `${what}: the agent heard them (${log.over})`);
      // Each one 0.8-3 s into an agent turn that was still going on.
      for (const b of bcs) {
        const over = out.turns.find((t) =>
          t.speaker === "agent" && t.start_ms < b.start_ms && t.end_ms > b.start_ms
        );
        assert.ok(over, `${what}: backchannel at ${b.start_ms} over agent speech`);
        const into = b.start_ms - over.start_ms;
        assert.ok(
          // From where its audio began on the wire; the caller hears it start when callbench's
          // receiver does (a few hundred ms later at a load average of 25: 3,521 ms seen).
          into >= LIVE_BACKCHANNEL_MS[0] - 40 && into <= LIVE_BACKCHANNEL_MS[1] + 700,
          `${what}: ${into} ms into the agent's turn`,
        );
      }
      const s = m.backchannel_selectivity;
      assert.ok(s !== null && (stops ? s <= 0.2 : s >= 0.8), `${what}: S_BC ${s}`);
    }
  });
}

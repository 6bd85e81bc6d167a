import assert from "node:assert/strict";
import { Environment } from "../env/environment.ts";
import { counterDomain } from "../testing/counter_domain.ts";
import { pcm16 } from "../audio/pcm.ts";
import type { TtsProvider, TtsResult } from "../speech/speech.ts";
import type { SaidUtterance } from "../speech/utterance.ts";
import { DEFAULT_LIMITS, runCall } from "../bridge/bridge.ts";
import type { CallEvent, CallLine, Participant, ParticipantInfo } from "../bridge/call.ts";
import { SimClock } from "../clock/clock.ts";
import { interactionMetrics, turnTakingScore } from "./interaction.ts";

/** 100 ms of audio a word: every time below follows from the words. */
const tts: TtsProvider = {
  info: { provider: "fake", sampleRate: 16000 },
  synthesize(r: { text: string }): Promise<TtsResult> {
    return Promise.resolve({
      ok: true,
      audio: pcm16(new Int16Array(1600 * r.text.split(/\s+/).length), 16000),
    });
  },
  close: () => Promise.resolve(),
};

/**
 * The caller, on a fixed timetable: a turn with a 1 s pause inside it (0–1500 ms), a
 * backchannel at 4000, side speech at 6000, a turn with a filler inside it (6900–7300),
 * an interruption at 9000, and a hangup at 14000.
 */
class TimetableCaller implements Participant {
  readonly info: ParticipantInfo = { kind: "timetable" };
  start(line: CallLine): Promise<void> {
    const at = (ms: number, fn: () => void) => line.clock.timer(ms, fn);
    at(0, () => line.say("one two three"));
    at(1300, () => line.say("four five", { act: { kind: "pause", sinceMs: 300 } }));
    at(4000, () => line.say("mm", { act: { kind: "backchannel" } }));
    at(6000, () => line.say("hold on honey", { act: { kind: "side" } }));
    at(6900, () => {
      line.say("six");
      line.say("um", { act: { kind: "filler" } });
      line.say("seven eight");
    });
    at(9000, () => line.say("wait stop", { act: { kind: "interrupt" } }));
    at(14000, () => line.hangUp("done"));
    return Promise.resolve();
  }
  onEvent(): void {}
  close(): Promise<void> {
    return Promise.resolve();
  }
}

type Mode = "perfect" | "stops_on_backchannel" | "never_yields" | "jumps_into_pauses";
const IGNORED = new Set(["mm", "hold on honey"]);
const REPLY = Array.from({ length: 25 }, (_, i) => `w${i}`).join(" "); // 2500 ms

/**
 * Agents of known behaviour. The perfect one answers 1200 ms after the caller's last
 * words, ignores backchannels and side speech (it knows their words), and yields when
 * the caller keeps speaking 150 ms over it, saying its answer again afterwards. Each
 * other one differs in one thing: it stops at once on any caller speech, never stops,
 * or answers after 200 ms (so it jumps into pauses).
 */
class KnownAgent implements Participant {
  readonly info: ParticipantInfo = { kind: "known" };
  #line!: CallLine;
  #said: SaidUtterance | void = undefined;
  #stoppedAt = -1;
  #pending = false;
  /** Caller utterances begun and not yet heard (one may begin before the last is heard). */
  #callerSpeaking = 0;
  #cancel = () => {};
  constructor(readonly mode: Mode) {}
  start(line: CallLine): Promise<void> {
    this.#line = line;
    return Promise.resolve();
  }
  #speaking(): boolean {
    const now = this.#line.clock.now();
    const end = this.#said?.end;
    return end !== undefined && now < end && this.#stoppedAt < 0;
  }
  #stop(): void {
    this.#line.stopSpeaking();
    this.#stoppedAt = this.#line.clock.now();
    this.#pending = true; // said again after the caller
  }
  onEvent(e: CallEvent): void {
    const clock = this.#line.clock;
    if (e.type === "speech_start") {
      this.#callerSpeaking++;
      this.#cancel();
      if (!this.#speaking() || this.mode === "never_yields") return;
      if (this.mode === "stops_on_backchannel") return this.#stop();
      clock.timer(150, () => {
        if (this.#callerSpeaking > 0 && this.#speaking()) this.#stop();
      });
    } else if (e.type === "speech") {
      this.#callerSpeaking = Math.max(0, this.#callerSpeaking - 1);
      if (!IGNORED.has(e.text)) this.#pending = true;
      if (!this.#pending || this.#callerSpeaking > 0) return;
      this.#cancel = clock.timer(this.mode === "jumps_into_pauses" ? 200 : 1200, () => {
        this.#pending = false;
        this.#stoppedAt = -1;
        this.#said = this.#line.say(REPLY);
      });
    }
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

async function call(mode: Mode) {
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
    seed: "s",
  });
  const out = await runCall({
    env,
    agent: new KnownAgent(mode),
    user: new TimetableCaller(),
    agentSetup: setup("agent"),
    userSetup: setup("user"),
    clock: new SimClock(),
    limits: DEFAULT_LIMITS,
    firstSpeaker: "user",
    timedSpeech: true,
    speech: { tts },
  });
  assert.equal(out.stopReason, "user_hangup", out.error?.message);
  const m = interactionMetrics({
    turns: out.turns,
    caller_events: out.callerEvents ?? [],
    agent_tool_calls_ms: [],
  });
  const agentTurns = out.turns.filter((t) => t.speaker === "agent" && t.end_ms > t.start_ms)
    .map((t) => [t.start_ms, t.end_ms]);
  return { m, agentTurns };
}

Deno.test("interaction metrics: the perfect agent gets full marks", async () => {
  const { m, agentTurns } = await call("perfect");
  assert.deepEqual(agentTurns, [[2700, 5200], [8500, 9150], [10400, 12900]]);
  assert.deepEqual(m, {
    response_latency_ms: [1200, 1200, 1200],
    turn_taking_scores: [1, 1, 1],
    turn_taking_score: 1,
    interruptions: 1,
    yield_latency_ms: [150],
    yield_rate: 1,
    agent_interruptions_per_turn: 0,
    backchannel_selectivity: 1,
    vocal_tic_selectivity: 1,
    non_directed_selectivity: 1,
    pause_selectivity: 1,
    events: { backchannel: 1, filler: 1, side: 1, pause: 1 },
  });
});

Deno.test("interaction metrics: an agent that stops on every backchannel (and side speech) loses S_BC and S_ND", async () => {
  const { m, agentTurns } = await call("stops_on_backchannel");
  assert.deepEqual(agentTurns, [[2700, 4000], [5300, 6000], [8500, 9000], [10400, 12900]]);
  assert.equal(m.backchannel_selectivity, 0);
  assert.equal(m.non_directed_selectivity, 0);
  assert.deepEqual(m.yield_latency_ms, [0]);
  assert.equal(m.yield_rate, 1);
  assert.deepEqual(m.response_latency_ms, [1200, 1200, 1200]);
  assert.equal(m.agent_interruptions_per_turn, 0);
  assert.equal(m.vocal_tic_selectivity, 1);
  assert.equal(m.pause_selectivity, 1);
});

Deno.test("interaction metrics: an agent that never yields talks on through the interruption", async () => {
  const { m, agentTurns } = await call("never_yields");
  assert.deepEqual(agentTurns, [[2700, 5200], [8500, 11000], [11000, 13500]]);
  assert.deepEqual(m.yield_latency_ms, [4500]);
  assert.equal(m.yield_rate, 0);
  assert.deepEqual(m.response_latency_ms, [1200, 1200, 1800]);
  assert.equal(m.turn_taking_score, 1);
  assert.equal(m.backchannel_selectivity, 1);
  assert.equal(m.pause_selectivity, 1);
});

Deno.test("interaction metrics: an agent that answers after 200 ms jumps into the pause and scores 0.4 a turn", async () => {
  const { m, agentTurns } = await call("jumps_into_pauses");
  assert.deepEqual(agentTurns, [[500, 1450], [1700, 4200], [7500, 9150], [9400, 11900]]);
  assert.equal(m.pause_selectivity, 0);
  assert.deepEqual(m.response_latency_ms, [200, 200, 200]);
  assert.deepEqual(m.turn_taking_scores, [0.4, 0.4, 0.4]);
  assert.equal(m.turn_taking_score, 0.4);
  assert.equal(m.vocal_tic_selectivity, 1);
  assert.equal(m.backchannel_selectivity, 1);
  assert.deepEqual(m.yield_latency_ms, [150]);
});

Deno.test("the turn-taking score curve: full from 500 to 2000 ms (3000 with a tool), zero at 3500 (5000)", () => {
  const at = (ms: number, tool = false) => turnTakingScore(ms, tool);
  assert.deepEqual([at(-1), at(0), at(250), at(500), at(2000), at(2750), at(3500), at(9000)], [
    0,
    0,
    0.5,
    1,
    1,
    0.5,
    0,
    0,
  ]);
  assert.deepEqual([at(3000, true), at(4000, true), at(5000, true)], [1, 0.5, 0]);
});

Deno.test("interaction metrics of a call with no events or agent speech are null, not zero", () => {
  const m = interactionMetrics({
    turns: [{ speaker: "user", start_ms: 0, end_ms: 500 }],
    caller_events: [],
    agent_tool_calls_ms: [],
  });
  assert.equal(m.turn_taking_score, null);
  assert.equal(m.yield_rate, null);
  assert.equal(m.agent_interruptions_per_turn, null);
  assert.equal(m.backchannel_selectivity, null);
});

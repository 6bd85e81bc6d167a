/**
 * The interaction metrics (`src/score/interaction.ts`, issue #20 §3) on the real clock
 * over a real socket: the four agents of known behaviour of
 * `src/score/interaction_test.ts` (perfect, stops on every backchannel, never yields,
 * jumps into pauses) as bots on loopback (`./_behave_agents.ts`), in JSON, protobuf
 * and Twilio framing, against the same caller timetable in an audio call. Each agent
 * acts on what it hears of the caller's audio (each turn's first and last sample of
 * sound), as its in-process twin acts on the caller's turn edges; it stops with
 * `bot-interrupted` (a `clear` on Twilio), and logs when it heard the caller and when
 * its audio went out on its pacing grid. The rates come out exactly as on the simulated
 * clock; each latency within 20 ms of what the agent produced by its own log (the
 * caller's turns are recorded where they went out on the wire's grid, the agent's where
 * its audio arrived), and what it produced within 60 ms of the simulated clock's
 * values (its timers run late under load).
 */
import assert from "node:assert/strict";
import { voicedSignal } from "../src/audio/_test_signals.ts";
import { pcm16 } from "../src/audio/pcm.ts";
import { DEFAULT_LIMITS, runCall } from "../src/bridge/bridge.ts";
import type { CallEvent, CallLine, Participant, ParticipantInfo } from "../src/bridge/call.ts";
import { RealClock } from "../src/clock/clock.ts";
import { Environment } from "../src/env/environment.ts";
import { RemoteParticipant } from "../src/participants/remote.ts";
import { rtvi } from "../src/protocol/messages.ts";
import { BACK_TO_BACK_MS, interactionMetrics, turnTakingScore } from "../src/score/interaction.ts";
import type { TtsProvider, TtsResult } from "../src/speech/speech.ts";
import { counterDomain } from "../src/testing/counter_domain.ts";
import { AGENT_RATE, type BehaveSession, startBehaveAgent } from "./_behave_agents.ts";

/** 100 ms of voiced audio a word: every time below follows from the words. */
const tts: TtsProvider = {
  info: { provider: "fake", sampleRate: 16000 },
  synthesize(r: { text: string }): Promise<TtsResult> {
    const ms = 100 * r.text.split(/\s+/).length;
    return Promise.resolve({ ok: true, audio: pcm16(voicedSignal(16000, ms, ms), 16000) });
  },
  close: () => Promise.resolve(),
};

/** The caller's timetable of `src/score/interaction_test.ts`. */
class TimetableCaller implements Participant {
  readonly info: ParticipantInfo = { kind: "timetable" };
  #line?: CallLine;
  start(line: CallLine): Promise<void> {
    this.#line = line;
    return Promise.resolve();
  }
  /** From the call's start on (a remote agent hears nothing said before it). */
  onEvent(event: CallEvent): void {
    if (event.type !== "call_start") return;
    const line = this.#line!;
    const from = line.clock.now();
    const at = (ms: number, fn: () => void) => line.clock.timer(from + ms - line.clock.now(), fn);
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
    // 700 ms after the sim test's: a phone line's VAD hears the agent's last turn end.
    at(14700, () => line.hangUp("done"));
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

type Mode = "perfect" | "stops_on_backchannel" | "never_yields" | "jumps_into_pauses";
type WireFraming = "json" | "protobuf" | "twilio";
/**
 * The caller's turns as heard by energy, in order: its words, pause, backchannel, side
 * speech, words with a filler inside, interruption. The backchannel and side speech are
 * not spoken to the agent.
 */
const IGNORED = new Set([2, 3]);
const REPLY_MS = 2500;
/** Its replies' audio at `rate`, made before any call (2.5 s of it takes tens of ms). */
const replies = (rate: number) =>
  Array.from({ length: 8 }, (_, i) => voicedSignal(rate, REPLY_MS, i + 1));
const REPLIES = { [AGENT_RATE]: replies(AGENT_RATE), 8000: replies(8000) };
/** It hears a caller turn end once this much quiet followed its last sound. */
const TURN_END_MS = 100;

/**
 * The in-process known agent's rules on the wire, acted on what it hears of the caller's
 * audio (each turn's first and last sound): on the caller's start it stops at once
 * (stops_on_backchannel), never (never_yields), or when the caller is still speaking
 * 150 ms on; after the caller's words (but backchannels and side speech) it answers
 * 1200 ms after their last sound (200 ms: jumps_into_pauses) with 2.5 s of audio, and
 * says it again after a stop. It logs when its audio went out (its pacing grid) and
 * when it heard each caller turn begin and end.
 */
function knownAgent(mode: Mode, log: AgentLog, rate: number) {
  return (s: BehaveSession) => {
    let speaking = false;
    let pending = false;
    let callerSpeaking = false;
    let reply: ReturnType<typeof setTimeout> | undefined;
    let utterance = 0;
    const stop = () => {
      s.clear();
      const cut = log.said[log.said.length - 1]!;
      cut.endAt = s.audioEndAt();
      cut.cut = true;
      speaking = false;
      s.send(rtvi("bot-interrupted"));
      s.send(rtvi("bot-stopped-speaking"));
      pending = true; // said again after the caller
    };
    /** Its utterances one after another, as the in-process agent's queue behind each other. */
    let playing = Promise.resolve();
    const say = () => {
      pending = false;
      playing = playing.then(() => {
        speaking = true;
        const mine = ++utterance;
        s.send(rtvi("bot-started-speaking"));
        s.send(rtvi("bot-tts-text", { text: `Reply ${mine}.` }));
        const entry = { startAt: NaN, endAt: NaN };
        log.said.push(entry);
        const done = s.play(REPLIES[rate as keyof typeof REPLIES][mine % 8]!);
        // Its first frame went out as it was given the audio, on its grid.
        entry.startAt = s.audioStartAt();
        return done.then(() => {
          // Given while the last played out, it began on the grid once that ended.
          entry.startAt = s.audioStartAt();
          if (!speaking || utterance !== mine) return;
          entry.endAt = s.audioEndAt();
          speaking = false;
          s.send(rtvi("bot-stopped-speaking"));
        });
      });
    };
    /** `fn` `ms` after `at` (performance.now()), at once if that is past. */
    const after = (at: number, ms: number, fn: () => void) =>
      setTimeout(fn, Math.max(0, at + ms - performance.now()));
    s.onCallerTurn((e) => {
      if (e.type === "start") {
        // Speaking as it heard the caller begin: the caller spoke over this utterance.
        const over = speaking ? log.said[log.said.length - 1] : undefined;
        log.heard.push({ startAt: e.at, endAt: NaN, ...(over ? { over } : {}) });
        callerSpeaking = true;
        clearTimeout(reply);
        if (!speaking || mode === "never_yields") return;
        if (mode === "stops_on_backchannel") return stop();
        // Still speaking 150 ms on: sound heard from then (to a frame), not just no turn end yet.
        after(e.at, 150, () => {
          if (callerSpeaking && speaking && s.callerSoundUntil() > e.at + 150 - 25) stop();
        });
        return;
      }
      log.heard[e.index]!.endAt = e.at;
      callerSpeaking = false;
      if (!IGNORED.has(e.index)) pending = true;
      if (!pending) return;
      reply = after(e.at, mode === "jumps_into_pauses" ? 200 : 1200, say);
    });
    return s.closed;
  };
}

/** What a known agent logged: its utterances' audio out, and the caller's turns it heard. */
interface AgentLog {
  /** `cut`: it stopped it (a `clear` on a phone line, which ends the turn there). */
  said: { startAt: number; endAt: number; cut?: boolean }[];
  heard: { startAt: number; endAt: number; over?: AgentLog["said"][number] }[];
}

/**
 * One call of `mode`'s agent over `framing`; the metrics from the record, and the
 * latencies the agent produced by its own log: L_R from the last sound it heard of a
 * caller turn to its next audio out, L_Y from the first sound it heard of an
 * interrupting turn to the end of its audio then.
 */
export async function call(
  mode: Mode,
  framing: WireFraming,
  readLag?: (samples: Int16Array) => number,
) {
  const log: AgentLog = { said: [], heard: [] };
  const clock = new RealClock();
  const rate = framing === "twilio" ? 8000 : AGENT_RATE;
  const agent = await startBehaveAgent(knownAgent(mode, log, rate), {
    frameMs: framing === "twilio" ? 20 : 10,
    sampleRate: rate,
    turnEndMs: TURN_END_MS,
    // The line is clean (silence is zeros): its first and last sample of sound are the audio's.
    soundSample: 1,
    readLag,
  });
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
      seed: "s",
    });
    const out = await runCall({
      env,
      agent: new RemoteParticipant({
        url: framing === "twilio" ? agent.twilioUrl : agent.url,
        framing,
      }),
      user: new TimetableCaller(),
      agentSetup: setup("agent"),
      userSetup: setup("user"),
      clock,
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
    // A phone line has no brackets: utterances back to back are one turn (its VAD's 600 ms).
    return {
      m,
      produced: produced(log, framing === "twilio"),
      log,
      out,
      origin: performance.now() - clock.now(),
    };
  } finally {
    await agent.close();
  }
}

/**
 * The latencies by the agent's own log, with the metrics' rules: each caller turn it
 * answered (but the backchannel and side speech) to its next utterance before the
 * caller's next turn; each caller turn begun while it spoke to the end of its speech
 * (utterances back to back: the next begun within a frame of the last's end).
 */
function produced(log: AgentLog, twilio: boolean) {
  // A phone line has no brackets: utterances back to back are one turn (its VAD's 600 ms).
  const joinMs = twilio ? 600 : BACK_TO_BACK_MS;
  const said: { startAt: number; endAt: number; cut?: boolean; parts: AgentLog["said"] }[] = [];
  for (const u of log.said.filter((u) => u.endAt > u.startAt)) {
    const last = said[said.length - 1];
    if (last && !(twilio && last.cut) && u.startAt < last.endAt + joinMs) {
      last.endAt = Math.max(last.endAt, u.endAt);
      last.cut = u.cut;
      last.parts.push(u);
    } else said.push({ ...u, parts: [u] });
  }
  const h = log.heard;
  // The words across the pause are one turn.
  const turns = [{ ...h[0]!, endAt: h[1]!.endAt }, ...h.slice(2)].filter((_, i) =>
    !IGNORED.has(i + 1)
  );
  const response: number[] = [];
  const yields: number[] = [];
  turns.forEach((c, k) => {
    const next = turns[k + 1]?.startAt ?? Infinity;
    const a = (twilio ? said : log.said).find((u) => u.startAt >= c.endAt && u.startAt < next);
    if (a) response.push(a.startAt - c.endAt);
    const over = c.over && said.find((u) => u.parts.includes(c.over!));
    if (over) yields.push(over.endAt - c.startAt);
  });
  return { response_latency_ms: response, yield_latency_ms: yields };
}

/** The bound on each latency's error against what the agent produced (issue #20). */
const BOUND_MS = 20;

/**
 * Latencies one for one against what the agent produced (its own log of when it heard
 * the caller and when its audio went out, on its pacing grid): each within 20 ms; and
 * what it produced within 60 ms of the simulated clock's values (its timers run late
 * under load).
 */
function near(
  got: Awaited<ReturnType<typeof call>>,
  key: "response_latency_ms" | "yield_latency_ms",
  expected: number[],
): void {
  const actual = got.m[key];
  const produced = got.produced[key];
  const what = `${key}: ${JSON.stringify(actual)}, produced ${JSON.stringify(produced)}`;
  assert.equal(actual.length, expected.length, what);
  assert.equal(produced.length, expected.length, what);
  actual.forEach((x, i) => assert.ok(Math.abs(x - produced[i]!) <= BOUND_MS, what));
  produced.forEach((p, i) => assert.ok(Math.abs(p - expected[i]!) <= 60, `${what} vs ${expected}`));
}

for (const framing of ["json", "protobuf", "twilio"] as const) {
  const over = `interaction metrics on the real clock over ${framing}`;
  Deno.test(`${over}: the perfect agent gets full marks, latencies as it produced them`, async () => {
    const got = await call("perfect", framing);
    const m = got.m;
    near(got, "response_latency_ms", [1200, 1200, 1200]);
    near(got, "yield_latency_ms", [150]);
    assert.deepEqual(
      [m.turn_taking_score, m.yield_rate, m.agent_interruptions_per_turn],
      [1, 1, 0],
    );
    assert.deepEqual(
      [
        m.backchannel_selectivity,
        m.vocal_tic_selectivity,
        m.non_directed_selectivity,
        m.pause_selectivity,
      ],
      [1, 1, 1, 1],
    );
    assert.deepEqual(m.events, { backchannel: 1, filler: 1, side: 1, pause: 1 });
  });

  Deno.test(`${over}: an agent that stops on every backchannel loses S_BC and S_ND`, async () => {
    const got = await call("stops_on_backchannel", framing);
    const m = got.m;
    assert.equal(m.backchannel_selectivity, 0);
    assert.equal(m.non_directed_selectivity, 0);
    near(got, "yield_latency_ms", [0]);
    assert.equal(m.yield_rate, 1);
    near(got, "response_latency_ms", [1200, 1200, 1200]);
    assert.deepEqual(
      [m.agent_interruptions_per_turn, m.vocal_tic_selectivity, m.pause_selectivity],
      [0, 1, 1],
    );
  });

  Deno.test(`${over}: an agent that never yields talks on through the interruption`, async () => {
    const got = await call("never_yields", framing);
    const m = got.m;
    near(got, "yield_latency_ms", [4500]);
    assert.equal(m.yield_rate, 0);
    // On a phone line its reply queued behind the one spoken over is the same turn.
    near(got, "response_latency_ms", framing === "twilio" ? [1200, 1200] : [1200, 1200, 1800]);
    assert.deepEqual([m.turn_taking_score, m.backchannel_selectivity, m.pause_selectivity], [
      1,
      1,
      1,
    ]);
  });

  Deno.test(`${over}: an agent that answers after 200 ms jumps into the pause`, async () => {
    const got = await call("jumps_into_pauses", framing);
    const m = got.m;
    assert.equal(m.pause_selectivity, 0);
    near(got, "response_latency_ms", [200, 200, 200]);
    // 200 ms scores 0.4 (200 / 500): each as what the agent produced scores, to 0.04 (20 ms).
    m.turn_taking_scores.forEach((x, i) =>
      assert.ok(
        Math.abs(x - turnTakingScore(got.produced.response_latency_ms[i]!, false)) <= 0.04,
        `score ${x}`,
      )
    );
    assert.deepEqual([m.vocal_tic_selectivity, m.backchannel_selectivity], [1, 1]);
    near(got, "yield_latency_ms", [150]);
  });
}

Deno.test("interaction metrics on the real clock: a test agent that reads a turn's chunks of sound after its first 30 ms late still hears the turn end where it was on the wire", async () => {
  // Read late, as when this thread (shared by both ends) was busy when they came. Heard at
  // their arrival, the agent's own log would put each turn's end, and so each answer, 30 ms
  // later than the wire did; each turn's first chunk is read on time (its start unmoved).
  let sound = false;
  const got = await call("perfect", "twilio", (samples) => {
    const was = sound;
    sound = samples.some((x) => Math.abs(x) >= 1);
    return was && sound ? 30 : 0;
  });
  near(got, "response_latency_ms", [1200, 1200, 1200]);
  near(got, "yield_latency_ms", [150]);
});

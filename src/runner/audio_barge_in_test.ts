import assert from "node:assert/strict";
import { voicedSignal } from "../audio/_test_signals.ts";
import { pcm16 } from "../audio/pcm.ts";
import type { CallOutcome, SentAudio } from "../bridge/bridge.ts";
import type { Turn } from "../bridge/outcome.ts";
import { utterance } from "../speech/utterance.ts";
import { audioMetrics } from "../score/score_trial.ts";
import { measureAudio } from "./audio_metrics.ts";

const CONFIG = {
  tts: { provider: "fake", voices: { agent: null, user: null } },
  stt: "transcript",
  dtmf: "event",
  sample_rate: 16000,
} as const;

/** An outcome of an agent turn at 0 and a caller turn at `userStart`, each fully voiced. */
function outcome(agentMs: number, userStart: number, received: boolean): CallOutcome {
  const say = (speaker: "agent" | "user", text: string, start: number, ms: number) => {
    const turn: Turn = { speaker, text, start_ms: start, end_ms: start + ms };
    const sent: SentAudio = {
      side: speaker,
      utterance: utterance(text, undefined, pcm16(voicedSignal(16000, ms, 1), 16000)),
      start_ms: start,
      end_ms: start + ms,
      ...(received && speaker === "agent" ? { received: true } : {}),
    };
    return { turn, sent };
  };
  const a = say("agent", "Let me read you the policy.", 0, agentMs);
  const u = say("user", "Sorry, could you say that again?", userStart, 1500);
  return {
    stopReason: "agent_end",
    cleanExit: true,
    durationMs: userStart + 1500,
    turns: [a.turn, u.turn],
    dtmf: [],
    toolCalls: [],
    latency: [],
    usage: {
      agent: { calls: 0, prompt_tokens: 0, completion_tokens: 0 },
      user: { calls: 0, prompt_tokens: 0, completion_tokens: 0 },
    },
    traces: { agent: [], user: [] },
    audio: [a.sent, u.sent],
  };
}

Deno.test("turn boundaries that overlap by less than a frame are no barge-in", async () => {
  for (const userStart of [2000, 1999.5, 1985]) {
    const block = await measureAudio(outcome(2000, userStart, true), CONFIG);
    assert.deepEqual(block.barge_ins, [], `caller at ${userStart}`);
  }
  const cut = await measureAudio(outcome(2000, 1000, true), CONFIG);
  assert.equal(cut.barge_ins.length, 1);
});

Deno.test("barge-in yield: the agent's own audio measures its yield; callbench's playout is labelled and kept out of the agent's figures", async () => {
  // The agent's audio goes on 1 s past the caller's 1.5 s: it never yielded.
  const own = await measureAudio(outcome(3500, 1000, true), CONFIG);
  assert.equal(own.barge_ins[0]!.source, "agent_audio");
  assert.equal(own.barge_ins[0]!.yielded, false);
  // Its voice stopped 300 ms after the caller's onset, while the caller spoke.
  const stopped = await measureAudio(outcome(1300, 1000, true), CONFIG);
  assert.equal(stopped.barge_ins[0]!.yielded, true);
  assert.ok(
    Math.abs(stopped.barge_ins[0]!.yield_ms - 300) <= 20,
    `${stopped.barge_ins[0]!.yield_ms}`,
  );
  const playout = await measureAudio(outcome(3500, 1000, false), CONFIG);
  assert.equal(playout.barge_ins[0]!.source, "harness_playout");
  assert.deepEqual(audioMetrics(playout).barge_in_yield_ms, []);
  assert.equal(audioMetrics(stopped).barge_in_yield_ms.length, 1);
});

import { deepEqual as assertEquals, equal } from "node:assert/strict";
import { audioBlock, trialRecord } from "./_trial_fixture.ts";
import { countAgentTurns, scoreTrial } from "./score_trial.ts";
import { VerdictSchema } from "./verdict.ts";

const HASH = "c".repeat(64);

Deno.test("scoreTrial() gives a schema-valid verdict carrying the key, metrics and turns", () => {
  const v = scoreTrial(trialRecord({ key: { trial: 3 } }));
  assertEquals(VerdictSchema.safeParse(v).success, true);
  assertEquals([v.scenario, v.trial, v.seed, v.config_hash], ["demo__one", 3, "00ff", "cfg1"]);
  assertEquals(v.is_successful, true);
  assertEquals(v.metrics.latency_ms, [600]);
  assertEquals(v.metrics.ttft_ms, [250]);
  assertEquals(v.metrics.agent_turns, 2);
  assertEquals(v.turns.length, 3);
  assertEquals(v.turns[1], {
    speaker: "user",
    text: "I want to cancel my booking.",
    start_ms: 2000,
    end_ms: 4000,
  });
});

Deno.test("scoreTrial() is deterministic: the same record gives the same bytes", () => {
  const record = trialRecord({ final: { db_sha256: HASH }, expect: { db_sha256: HASH } });
  equal(JSON.stringify(scoreTrial(record)), JSON.stringify(scoreTrial(structuredClone(record))));
});

Deno.test("scoreTrial() fails a trial whose final hash differs", () => {
  const v = scoreTrial(trialRecord({
    final: { db_sha256: "d".repeat(64) },
    expect: { db_sha256: HASH, success_signals: ["db_state_match", "clean_exit"] },
  }));
  assertEquals(v.is_successful, false);
  assertEquals(v.is_task_successful, false);
  assertEquals(v.success_breakdown.failed, ["db_state_match"]);
});

Deno.test("scoreTrial() counts agent turns, not LLM calls, for --min-agent-turns", () => {
  // Two agent turns, but ten agent LLM calls: the reference would count 10.
  const record = trialRecord({
    usage: {
      agent: { calls: 10, prompt_tokens: 1, completion_tokens: 1 },
      user: { calls: 0, prompt_tokens: 0, completion_tokens: 0 },
    },
  });
  const short = scoreTrial(record, { minAgentTurns: 3 });
  assertEquals(short.is_successful, false);
  assertEquals(short.is_task_successful, false);
  assertEquals(short.insufficient_agent_turns, true);
  // The breakdown is still computed.
  assertEquals(short.success_breakdown.passed, ["clean_exit"]);
  const enough = scoreTrial(record, { minAgentTurns: 2 });
  assertEquals(enough.is_successful, true);
  assertEquals("insufficient_agent_turns" in enough, false);
});

Deno.test("scoreTrial() does not apply the turn rule by default", () => {
  const v = scoreTrial(trialRecord({ turns: [], latency: [] }));
  assertEquals(v.is_successful, true);
  assertEquals("insufficient_agent_turns" in v, false);
});

Deno.test("countAgentTurns() counts agent turns that said something", () => {
  assertEquals(
    countAgentTurns([
      { speaker: "agent", text: "Hi" },
      { speaker: "agent", text: "  " },
      { speaker: "user", text: "Hello" },
      { speaker: "agent", text: "Bye" },
    ]),
    2,
  );
});

Deno.test("scoreTrial() marks an infrastructure error as such, never a silent failure", () => {
  const v = scoreTrial(trialRecord({
    status: "error",
    error: { kind: "agent_unreachable", message: "connection refused" },
    stop_reason: "error",
    clean_exit: false,
  }));
  assertEquals(v.status, "error");
  assertEquals(v.error, { kind: "agent_unreachable", message: "connection refused" });
  assertEquals(v.is_successful, false);
  assertEquals(v.is_task_successful, false);
  // Signals are still computed, for the record.
  assertEquals(v.signals.clean_exit, false);
});

Deno.test("scoreTrial() turns a judge that could not answer into a judge_error verdict", () => {
  const v = scoreTrial(trialRecord({ expect: { nl_assertions: ["a"] } }), {
    judge: {
      model: "m",
      status: "error",
      score: null,
      reason: "",
      nl_assertion_verdicts: [],
      attempts: 3,
      error: "no usable reply",
    },
  });
  assertEquals(v.status, "error");
  assertEquals(v.error, { kind: "judge_error", message: "no usable reply" });
  assertEquals(v.signals.nl_assertion, null);
  assertEquals(v.is_successful, false);
});

Deno.test("scoreTrial() is N/A when no whitelisted signal applies", () => {
  const v = scoreTrial(trialRecord({ expect: { success_signals: ["is_action_match"] } }));
  assertEquals(v.is_successful, "N/A");
  assertEquals("is_task_successful" in v, false);
  assertEquals(v.success_breakdown.not_applicable, ["is_action_match"]);
});

Deno.test("scoreTrial() carries the participants and the label, so a dashboard needs no join", () => {
  const participants = { agent: { kind: "llm", model: "m" }, user: { kind: "scripted" } };
  const v = scoreTrial(trialRecord({ label: "v2", participants }));
  equal(v.label, "v2");
  assertEquals(v.participants, participants);
  equal(VerdictSchema.safeParse(v).success, true);
});

Deno.test("scoreTrial() carries an audio call's latencies, TTFA, barge-in yields and recording", () => {
  const v = scoreTrial(trialRecord({
    audio: audioBlock({
      turns: [
        { turn: 0, v2v_ms: 420, ref_frame_ms: 400, ref_segment_ms: 700 },
        { turn: 2, v2v_ms: 650.5, ref_frame_ms: 610, ref_segment_ms: 910 },
      ],
      barge_ins: [
        { at_ms: 2_500, agent_turn: 0, yielded: true, yield_ms: 35 },
        { at_ms: 5_100, agent_turn: 2, yielded: false, yield_ms: 900 },
      ],
    }),
  }));
  assertEquals(VerdictSchema.safeParse(v).success, true);
  assertEquals(v.metrics.audio, {
    v2v_ms: [420, 650.5],
    ref_frame_ms: [400, 610],
    ref_segment_ms: [700, 910],
    ttfa_ms: 180,
    barge_in_yield_ms: [35, 900],
    barge_ins_yielded: 1,
    talk_over_ms: 40,
    user_voice: "slt",
    wav: "audio/demo__one__t0__0123456789ab.wav",
  });
  // An audio call has interaction metrics too (src/score/interaction_test.ts tests them).
  equal(v.metrics.interaction !== undefined, true);
  // No recording written (no --out, or it failed): no path.
  const bare = scoreTrial(trialRecord({ audio: audioBlock({ wav: undefined, ttfa_ms: null }) }));
  equal("wav" in bare.metrics.audio!, false);
  equal(bare.metrics.audio!.ttfa_ms, null);
});

Deno.test("scoreTrial() of a text call has no audio metrics, and its verdict still parses", () => {
  const v = scoreTrial(trialRecord());
  equal("audio" in v.metrics, false);
  assertEquals(VerdictSchema.safeParse(v).success, true);
});

import assert, { deepEqual as assertEquals, equal, ok } from "node:assert/strict";
import { signalNote } from "../report/failure_notes.ts";
import type { TrialRecord } from "../runner/trial_record.ts";
import { audioBlock, trialRecord } from "./_trial_fixture.ts";
import { scoreTrial } from "./score_trial.ts";
import { computeSignals, toolKey } from "./signals.ts";
import { type JudgeResult, SignalsSchema } from "./verdict.ts";
import { SIGNALS } from "../scenario/scenario.ts";

type Call = TrialRecord["tool_calls"][number];
const call = (name: string, args: unknown, extra: Partial<Call> = {}): Call => ({
  side: "agent",
  name,
  arguments: args,
  result: { status: "success" },
  ok: true,
  at_ms: 0,
  ...extra,
});
const ref = (name: string, args: Record<string, unknown>, extra = {}) => ({
  side: "agent" as const,
  name,
  arguments: args,
  ...extra,
});

const HASH_A = "a".repeat(64);
const HASH_B = "b".repeat(64);

Deno.test("is_action_match does not apply without reference actions", () => {
  const { signals, details } = computeSignals(trialRecord());
  assertEquals(signals.is_action_match, null);
  assertEquals(details.action_match, undefined);
});

Deno.test("is_action_match passes when every reference action has a distinct call", () => {
  const record = trialRecord({
    tool_calls: [
      call("GetReservationDetailsTool", { reservation_id: "ABC123" }),
      call("cancel_reservation", { reservation_id: "ABC123" }, { result: { id: 1 } }),
      call("end_conversation", {}),
    ],
    expect: {
      reference_actions: [
        ref("cancel_reservation", { reservation_id: "ABC123" }),
        ref("get_reservation_details", { reservation_id: "ABC123" }),
      ],
    },
  });
  const { signals, details } = computeSignals(record);
  assertEquals(signals.is_action_match, true);
  assertEquals(details.action_match, { reference_count: 2, prediction_count: 3, unmatched: [] });
});

Deno.test("is_action_match fails on a missing call, naming the unmatched reference action", () => {
  const record = trialRecord({
    tool_calls: [call("cancel_reservation", { reservation_id: "XYZ999" })],
    expect: { reference_actions: [ref("cancel_reservation", { reservation_id: "ABC123" })] },
  });
  const { signals, details } = computeSignals(record);
  assertEquals(signals.is_action_match, false);
  // Made, with another reservation id: said as such, not as "not made".
  assertEquals(details.action_match!.unmatched, [{
    index: 0,
    name: "cancel_reservation",
    made_as: {
      call: 0,
      differing: [{ argument: "reservation_id", expected: '"ABC123"', got: '"XYZ999"' }],
    },
  }]);
  const verdict = scoreTrial(record);
  equal(
    signalNote(verdict, "is_action_match").summary,
    'reference action #0 cancel_reservation was made with other arguments: reservation_id "XYZ999" ' +
      '(expected "ABC123")',
  );
  // No call of that tool at all: not made.
  const none = computeSignals(trialRecord({
    tool_calls: [call("get_reservation_details", { reservation_id: "ABC123" })],
    expect: { reference_actions: [ref("cancel_reservation", { reservation_id: "ABC123" })] },
  }));
  assertEquals(none.details.action_match!.unmatched, [{ index: 0, name: "cancel_reservation" }]);
});

Deno.test("is_action_match compares only compare_args where a reference action gives them", () => {
  const tool_calls = [
    call("return_delivered_order_items", {
      order_id: "#W1",
      item_ids: ["2", "1"],
      payment_method_id: "card_9",
    }),
  ];
  const args = { order_id: "#W1", item_ids: ["1", "2"], payment_method_id: "gift_card_1" };
  const strict = trialRecord({
    tool_calls,
    expect: { reference_actions: [ref("return_delivered_order_items", args)] },
  });
  assertEquals(computeSignals(strict).signals.is_action_match, false);
  const loose = trialRecord({
    tool_calls,
    expect: {
      reference_actions: [
        ref("return_delivered_order_items", args, { compare_args: ["order_id", "item_ids"] }),
      ],
    },
  });
  assertEquals(computeSignals(loose).signals.is_action_match, true);
  // compare_args: [] compares the name only.
  const nameOnly = trialRecord({
    tool_calls,
    expect: {
      reference_actions: [ref("return_delivered_order_items", { order_id: "#W2" }, {
        compare_args: [],
      })],
    },
  });
  assertEquals(computeSignals(nameOnly).signals.is_action_match, true);
});

Deno.test("is_action_match counts calls that failed, as tau2 does, and needs the same side", () => {
  const expect = { reference_actions: [ref("toggle_airplane_mode", {}, { side: "user" })] };
  // tau2 reference actions include calls that fail on the data: an agent making the same
  // call has done what the reference did.
  const failed = trialRecord({
    tool_calls: [call("toggle_airplane_mode", {}, { side: "user", ok: false })],
    expect,
  });
  assertEquals(computeSignals(failed).signals.is_action_match, true);
  const wrongSide = trialRecord({ tool_calls: [call("toggle_airplane_mode", {})], expect });
  assertEquals(computeSignals(wrongSide).signals.is_action_match, false);
  const right = trialRecord({
    tool_calls: [call("toggle_airplane_mode", {}, { side: "user" })],
    expect,
  });
  assertEquals(computeSignals(right).signals.is_action_match, true);
});

Deno.test("is_action_match: an empty reference matches anything, unless extra items are disallowed", () => {
  const tool_calls = [call("calculate", { expression: "1+1" })];
  const loose = trialRecord({ tool_calls, expect: { reference_actions: [] } });
  assertEquals(computeSignals(loose).signals.is_action_match, true);
  const strict = trialRecord({
    tool_calls,
    expect: { reference_actions: [], action_match: { disallow_extra_items: true } },
  });
  const { signals, details } = computeSignals(strict);
  assertEquals(signals.is_action_match, false);
  assertEquals(details.action_match!.length_mismatch, true);
});

Deno.test("is_action_match applies the string options and Python float coercion", () => {
  const tool_calls = [call("send_certificate", { user_id: "MIA_LI_3668", amount: "150.0" })];
  const reference_actions = [ref("send_certificate", { user_id: "mia_li_3668", amount: 150 })];
  assertEquals(
    computeSignals(trialRecord({ tool_calls, expect: { reference_actions } })).signals
      .is_action_match,
    false,
  );
  const record = trialRecord({
    tool_calls,
    expect: { reference_actions, action_match: { ignore_capitalization: true } },
  });
  assertEquals(computeSignals(record).signals.is_action_match, true);
});

Deno.test("toolKey() puts class-style and snake_case names in one form", () => {
  assertEquals(toolKey("CancelReservationTool"), "cancel_reservation");
  assertEquals(toolKey("cancel_reservation"), "cancel_reservation");
  assertEquals(toolKey("EndConversationTool"), "end_conversation");
  assertEquals(toolKey("GetUserDetailsTool"), "get_user_details");
});

Deno.test("db_state_match compares the harness's final hash with the expected one", () => {
  assertEquals(computeSignals(trialRecord()).signals.db_state_match, null);
  const same = trialRecord({ final: { db_sha256: HASH_A }, expect: { db_sha256: HASH_A } });
  assertEquals(computeSignals(same).signals.db_state_match, true);
  const other = trialRecord({ final: { db_sha256: HASH_B }, expect: { db_sha256: HASH_A } });
  const { signals, details } = computeSignals(other);
  assertEquals(signals.db_state_match, false);
  assertEquals(details.db_state, { expected_sha256: HASH_A, actual_sha256: HASH_B, match: false });
  // A missing actual hash fails; it is not "not applicable".
  const missing = trialRecord({ final: { db_sha256: null }, expect: { db_sha256: HASH_A } });
  assertEquals(computeSignals(missing).signals.db_state_match, false);
});

Deno.test("the user-side DB hash is compared for the record but never gates", () => {
  const record = trialRecord({
    final: { db_sha256: HASH_A, user_db_sha256: HASH_B },
    expect: { db_sha256: HASH_A, user_db_sha256: HASH_A },
  });
  const { signals, details } = computeSignals(record);
  assertEquals(signals.db_state_match, true);
  assertEquals(details.user_db_state!.match, false);
});

Deno.test("db_state_assertion passes only when every assertion passed", () => {
  const spec = {
    side: "agent" as const,
    func_name: "assert_line_active",
    arguments: {},
    assert_value: true,
  };
  const verdict = (passed: boolean) => ({
    func_name: "assert_line_active",
    side: "agent" as const,
    passed,
    expected: true,
    actual: passed,
    message: null,
    error: null,
  });
  const all = trialRecord({
    assertions: [verdict(true), verdict(true)],
    expect: { db_state_assertions: [spec, spec] },
  });
  assertEquals(computeSignals(all).signals.db_state_assertion, true);
  const half = trialRecord({
    assertions: [verdict(true), verdict(false)],
    expect: { db_state_assertions: [spec, spec] },
  });
  const { signals, details } = computeSignals(half);
  assertEquals(signals.db_state_assertion, false);
  assertEquals([details.db_state_assertion!.passed, details.db_state_assertion!.total], [1, 2]);
  assertEquals(details.db_state_assertion!.rate, 0.5);
  // Fewer verdicts than assertions: the missing ones fail.
  const short = trialRecord({
    assertions: [verdict(true)],
    expect: { db_state_assertions: [spec, spec] },
  });
  assertEquals(computeSignals(short).signals.db_state_assertion, false);
  assertEquals(computeSignals(trialRecord()).signals.db_state_assertion, null);
});

const judged = (over: Partial<JudgeResult> = {}): JudgeResult => ({
  model: "judge-m",
  status: "completed",
  score: 0.95,
  reason: "",
  nl_assertion_verdicts: [
    { index: 1, assertion: "a", passed: true, reason: "" },
    { index: 2, assertion: "b", passed: true, reason: "" },
  ],
  attempts: 1,
  ...over,
});

Deno.test("nl_assertion and judge_passed apply only when the judge answered", () => {
  const record = trialRecord({ expect: { nl_assertions: ["a", "b"] } });
  assertEquals(computeSignals(record).signals.nl_assertion, null);
  assertEquals(computeSignals(record).signals.judge_passed, null);

  const pass = computeSignals(record, judged({ threshold: 0.9 }));
  assertEquals(pass.signals.nl_assertion, true);
  assertEquals(pass.signals.judge_passed, true);
  assertEquals(pass.details.nl_assertion, { passed: 2, total: 2, rate: 1 });

  const oneFails = judged({
    threshold: 0.99,
    nl_assertion_verdicts: [
      { index: 1, assertion: "a", passed: true, reason: "" },
      { index: 2, assertion: "b", passed: false, reason: "" },
    ],
  });
  const fail = computeSignals(record, oneFails);
  assertEquals(fail.signals.nl_assertion, false);
  assertEquals(fail.signals.judge_passed, false);
  assertEquals(fail.details.nl_assertion!.rate, 0.5);

  // Without a threshold judge_passed does not apply.
  assertEquals(computeSignals(record, judged()).signals.judge_passed, null);
  // A judge error is not a failed assertion.
  const error = computeSignals(
    record,
    judged({ status: "error", score: null, nl_assertion_verdicts: [] }),
  );
  assertEquals(error.signals.nl_assertion, null);
  assertEquals(error.details.judge!.status, "error");
});

Deno.test("clean_exit is the record's", () => {
  assertEquals(computeSignals(trialRecord()).signals.clean_exit, true);
  const timeout = trialRecord({ clean_exit: false, stop_reason: "max_duration" });
  assertEquals(computeSignals(timeout).signals.clean_exit, false);
});

Deno.test("flow_expectation checks the flow trace against expect.flow", () => {
  const flow = {
    start: "front",
    nodes: [{ name: "front", at_ms: 0 }, { name: "desk", at_ms: 4000 }],
    keys: [{ keys: "1", at_ms: 3000, node: "front" }],
    end: { node: "livekit/hangup", reason: "hangup", at_ms: 9000 },
  };
  assertEquals(computeSignals(trialRecord({ flow })).signals.flow_expectation, null);
  const pass = trialRecord({
    flow,
    expect: { flow: { path: ["front", "desk"], keys: "1", end: "livekit/hangup" } },
  });
  assertEquals(computeSignals(pass).signals.flow_expectation, true);
  const fail = trialRecord({ flow, expect: { flow: { keys: "2" } } });
  const { signals, details } = computeSignals(fail);
  assertEquals(signals.flow_expectation, false);
  assertEquals(details.flow!.failures.length, 1);
  ok(details.flow!.failures[0]!.startsWith("keys"));
  const noTrace = computeSignals(trialRecord({ expect: { flow: { keys: "1" } } }));
  assertEquals(noTrace.signals.flow_expectation, false);
  assertEquals(noTrace.details.flow!.failures, ["the trial has no flow trace"]);
  const malformed = computeSignals(
    trialRecord({ flow: { start: "front" }, expect: { flow: { keys: "1" } } }),
  );
  assertEquals(malformed.signals.flow_expectation, false);
  ok(malformed.details.flow!.failures[0]!.includes("malformed"));
});

Deno.test("voice_readability flags codes from the trial's own tool calls", () => {
  const record = trialRecord({
    tool_calls: [call("get_reservation", { confirmation_number: "EPXYEK" })],
    turns: [
      { speaker: "agent", text: "Your booking EPXYEK is confirmed.", start_ms: 0, end_ms: 1 },
    ],
  });
  const { signals, details } = computeSignals(record);
  assertEquals(signals.voice_readability, false);
  assertEquals(details.voice.flags.map((f) => f.identifier), ["EPXYEK"]);
  assertEquals(computeSignals(trialRecord()).signals.voice_readability, true);
  assertEquals(computeSignals(trialRecord({ turns: [] })).signals.voice_readability, null);
});

Deno.test("a verdict's signals are exactly SIGNALS, in order, each true, false or null", () => {
  assertEquals(Object.keys(SignalsSchema.shape), [...SIGNALS]);
  const all = Object.fromEntries(SIGNALS.map((s) => [s, null]));
  assertEquals(SignalsSchema.parse(all), all);
  ok(!SignalsSchema.safeParse({ ...all, clean_exit: "yes" }).success);
});

Deno.test("voice_readability is not applicable when the agent's words are unknown (audio without STT)", () => {
  const base = trialRecord();
  const record = trialRecord({
    participants: {
      ...base.participants,
      agent: { kind: "remote", settings: { framing: "twilio", words_unknown: true } },
    },
    turns: [{ speaker: "agent", text: "[words unknown]", start_ms: 0, end_ms: 900 }],
  });
  assertEquals(computeSignals(record).signals.voice_readability, null);
});

Deno.test("agent_voiced: a remote agent in an audio call is heard, not read; it gates by default", () => {
  const remote = { agent: { kind: "remote", url: "ws://bot" }, user: { kind: "scripted" } };
  const turns = (source: "agent_audio" | "harness_playout", voiced = 900) => [
    { turn: 0, voiced_ms: voiced, source },
    { turn: 2, voiced_ms: voiced, source },
  ];
  const trial = (
    agent_turns: ReturnType<typeof turns>,
    participants: TrialRecord["participants"] = remote,
  ) => trialRecord({ participants, audio: audioBlock({ agent_turns }) });
  const heard = scoreTrial(trial(turns("agent_audio")));
  assert.equal(heard.signals.agent_voiced, true);
  assert.ok(heard.success_breakdown.passed.includes("agent_voiced"), "gated without asking");
  // Text the harness had to synthesize, or audio without a voiced frame: not heard.
  for (const bad of [turns("harness_playout"), turns("agent_audio", 0)]) {
    const v = scoreTrial(trial(bad));
    assert.equal(v.signals.agent_voiced, false);
    assert.equal(v.is_successful, false);
  }
  // Only the greeting: the agent never spoke after the caller's first turn.
  assert.equal(scoreTrial(trial(turns("agent_audio").slice(0, 1))).signals.agent_voiced, false);
  // A turn index past the record's turns (a malformed record) is no turn, not a crash.
  const past = [{ turn: 0, voiced_ms: 900, source: "agent_audio" as const }, {
    turn: 99,
    voiced_ms: 900,
    source: "agent_audio" as const,
  }];
  assert.equal(scoreTrial(trial(past)).signals.agent_voiced, false);
  // callbench voices in-process agents itself; text calls have no audio: does not apply.
  const oracle = { agent: { kind: "oracle" }, user: { kind: "scripted" } };
  assert.equal(scoreTrial(trial(turns("harness_playout"), oracle)).signals.agent_voiced, null);
  assert.equal(scoreTrial(trialRecord({ participants: remote })).signals.agent_voiced, null);
});

Deno.test("agent_voiced: a turn the caller cut off within its first 200 ms is no unvoiced turn (issue 35 point 1); one cut later still is", () => {
  const remote = { agent: { kind: "remote", url: "ws://bot" }, user: { kind: "scripted" } };
  // The agent's second response began at 6,000 ms; the caller's "Okay." 21 ms into it.
  const turns = (callerAt: number) => [
    { speaker: "agent" as const, text: "Hello, how can I help?", start_ms: 0, end_ms: 1_500 },
    { speaker: "user" as const, text: "Please add five.", start_ms: 2_000, end_ms: 4_000 },
    { speaker: "agent" as const, text: "Let me look into that.", start_ms: 4_600, end_ms: 5_980 },
    {
      speaker: "agent" as const,
      text: "All",
      start_ms: 6_000,
      end_ms: callerAt + 55,
      interrupted: true,
    },
    { speaker: "user" as const, text: "Okay.", start_ms: callerAt, end_ms: callerAt + 400 },
  ];
  const agentTurns = [
    { turn: 0, voiced_ms: 900, source: "agent_audio" as const },
    { turn: 2, voiced_ms: 900, source: "agent_audio" as const },
    { turn: 3, voiced_ms: 0, source: "agent_audio" as const },
  ];
  const trial = (callerAt: number) =>
    trialRecord({
      participants: remote,
      turns: turns(callerAt),
      audio: audioBlock({ agent_turns: agentTurns }),
    });
  assert.equal(scoreTrial(trial(6_021)).signals.agent_voiced, true, "cut 21 ms in");
  assert.equal(scoreTrial(trial(5_950)).signals.agent_voiced, true, "the caller already talking");
  assert.equal(scoreTrial(trial(6_500)).signals.agent_voiced, false, "cut 500 ms in, unvoiced");
});

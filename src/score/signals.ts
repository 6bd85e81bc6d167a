/**
 * The signals of one trial (reference-harness §3.1, plus `flow_expectation` and our
 * `voice_readability`), each with the evidence behind it. `null` = does not apply.
 *
 * | signal | applies when | passes when |
 * | --- | --- | --- |
 * | `is_action_match` | the scenario gives reference actions | every reference action matches a distinct tool call (§3.3 comparator) |
 * | `db_state_match` | an expected DB hash is given | the harness's final agent-DB hash equals it (a missing hash fails) |
 * | `db_state_assertion` | DB-state assertions are given | every assertion passed (a missing verdict fails) |
 * | `nl_assertion` | the judge answered on NL assertions or flow `agent_expectations` | every one passed |
 * | `judge_passed` | the judge answered and a threshold is set | score >= threshold |
 * | `clean_exit` | always | the agent ended the call |
 * | `flow_expectation` | the scenario gives a flow `expect` | every given field holds (src/flow/expect.ts) |
 * | `voice_readability` | the agent spoke | no agent turn read a code in canonical form or an `FL_` id aloud |
 * | `agent_voiced` | an audio call with a remote agent (it carries its own audio) | every agent turn with words had voiced audio of its own (not callbench's synthesis of its text; a turn the caller cut off within its first 200 ms is exempt), and one began after the caller's first turn ended |
 *
 * `is_action_match` differs from the reference on purpose: the reference compares the
 * whole gold action records, `result` included, and its `compare_args`-aware matcher is
 * dead code (reference-harness §12.10). Here the reference is the scenario's reference
 * actions as `{side, name, arguments}`, with `arguments` cut down to `compare_args`
 * where an action gives them, and the prediction is every tool call of the trial as
 * `{side, name, arguments}`: read calls included, and calls that returned an error too,
 * as tau2 compares the calls made (its reference actions list reads, and some list calls
 * that fail on the data itself, so an agent replaying them could not match otherwise). Tool names compare in snake_case (`CancelReservationTool` is
 * `cancel_reservation`). The comparator is the reference's, so extra tool calls are
 * allowed, order is free and an empty reference list matches anything; with
 * `disallow_extra_items`, the two lists must also be the same length.
 *
 * @module
 */
import type { TrialRecord } from "../runner/trial_record.ts";
import type { ReferenceAction } from "../scenario/scenario.ts";
import { checkFlowExpect } from "../flow/expect.ts";
import { FlowTraceSchema } from "../flow/trace.ts";
import { type ActionMatchOptions, matchList, valuesMatch } from "./action_match.ts";
import { knownIdentifiers, voiceFlags } from "./voice.ts";
import type { JudgeResult, Signals, VerdictDetails } from "./verdict.ts";

export interface SignalResult {
  signals: Signals;
  details: VerdictDetails;
}

/** Computes every signal of a trial; `judge` is the judge's result when it ran. */
export function computeSignals(record: TrialRecord, judge?: JudgeResult): SignalResult {
  const { expect } = record;
  const details: VerdictDetails = { voice: { flags: [] } };

  let is_action_match: boolean | null = null;
  if (expect.reference_actions !== undefined) {
    const result = actionMatch(
      expect.reference_actions,
      record.tool_calls,
      expect.action_match ?? {},
    );
    is_action_match = result.match;
    details.action_match = result.detail;
  }

  let db_state_match: boolean | null = null;
  if (expect.db_sha256 !== undefined) {
    const actual = record.final.db_sha256;
    db_state_match = actual === expect.db_sha256;
    details.db_state = {
      expected_sha256: expect.db_sha256,
      actual_sha256: actual,
      match: db_state_match,
      ...(!db_state_match && record.final.db_diff ? { diff: record.final.db_diff } : {}),
    };
  }
  if (expect.user_db_sha256 !== undefined) {
    const actual = record.final.user_db_sha256 ?? null;
    details.user_db_state = {
      expected_sha256: expect.user_db_sha256,
      actual_sha256: actual,
      match: actual === expect.user_db_sha256,
    };
  }

  let db_state_assertion: boolean | null = null;
  if (expect.db_state_assertions.length > 0) {
    const total = Math.max(expect.db_state_assertions.length, record.assertions.length);
    const passed = record.assertions.filter((a) => a.passed).length;
    db_state_assertion = passed === total;
    details.db_state_assertion = {
      passed,
      total,
      rate: passed / total,
      verdicts: record.assertions,
    };
  }

  let nl_assertion: boolean | null = null;
  let judge_passed: boolean | null = null;
  if (judge !== undefined) {
    details.judge = judge;
    if (judge.status === "completed") {
      const verdicts = judge.nl_assertion_verdicts;
      if (verdicts.length > 0) {
        const passed = verdicts.filter((v) => v.passed).length;
        nl_assertion = passed === verdicts.length;
        details.nl_assertion = { passed, total: verdicts.length, rate: passed / verdicts.length };
      }
      if (judge.threshold !== undefined && judge.score !== null) {
        judge_passed = judge.score >= judge.threshold;
      }
    }
  }

  let flow_expectation: boolean | null = null;
  if (expect.flow !== undefined) {
    details.flow = flowCheck(record);
    flow_expectation = details.flow.passed;
  }

  const ids = knownIdentifiers(record.tool_calls.flatMap((c) => [c.arguments, c.result]));
  details.voice.flags = voiceFlags(record.turns, ids);
  const agentSpoke = record.turns.some((t) => t.speaker === "agent" && t.text.trim() !== "");
  // An audio-only wire without STT (Twilio): the agent's words are unknown, so
  // nothing can be said of how they read.
  const wordsUnknown = record.participants.agent.settings?.words_unknown === true;
  const voice_readability = agentSpoke && !wordsUnknown ? details.voice.flags.length === 0 : null;

  const agent_voiced = agentVoiced(record);

  return {
    signals: {
      is_action_match,
      db_state_match,
      db_state_assertion,
      nl_assertion,
      judge_passed,
      clean_exit: record.clean_exit,
      flow_expectation,
      voice_readability,
      agent_voiced,
    },
    details,
  };
}

/** A caller cutting in this soon after an agent turn began cut it off at once (`agent_voiced`). */
const CUT_AT_ONCE_MS = 200;

/**
 * `agent_voiced`: in an audio call, an agent that carries its own audio (a remote one)
 * is heard, not read: a turn of words without voiced audio of its own (text that
 * callbench had to synthesize, or silence) fails, and so does an agent that never
 * spoke after the caller's first turn. A turn the caller cut off within its first
 * 200 ms (it spoke over its start) is exempt: it had no time to be heard. Other agents (callbench synthesizes them by
 * design) and text calls: does not apply.
 */
function agentVoiced(record: TrialRecord): boolean | null {
  const audio = record.audio;
  if (!audio?.agent_turns || record.participants.agent.kind !== "remote") return null;
  const own = (a: { source: string; voiced_ms: number }) =>
    a.source === "agent_audio" && a.voiced_ms > 0;
  // A turn the caller cut off as it began (a response chained on at once, under the
  // caller's answer) had no time to be heard: it is the caller's doing, not the agent's.
  const cutAtOnce = (a: { turn: number }) => {
    const t = record.turns[a.turn];
    return t?.speaker === "agent" && t.interrupted === true &&
      record.turns.some((u) =>
        u.speaker === "user" && u.start_ms < t.start_ms + CUT_AT_ONCE_MS && u.end_ms > t.start_ms
      );
  };
  if (!audio.agent_turns.every((a) => own(a) || (a.source === "agent_audio" && cutAtOnce(a)))) {
    return false;
  }
  const firstUser = record.turns.find((t) => t.speaker === "user");
  if (!firstUser) return audio.agent_turns.length > 0;
  return audio.agent_turns.some((a) =>
    // A turn index the record does not hold (a malformed record) counts as no turn.
    own(a) && (record.turns[a.turn]?.start_ms ?? -Infinity) >= firstUser.end_ms
  );
}

/** The flow expectation's verdict; a trace that is missing or malformed fails it. */
function flowCheck(record: TrialRecord): { passed: boolean; failures: string[] } {
  if (record.flow === undefined) {
    return { passed: false, failures: ["the trial has no flow trace"] };
  }
  const trace = FlowTraceSchema.safeParse(record.flow);
  if (!trace.success) {
    const issue = trace.error.issues[0];
    const at = issue && issue.path.length > 0 ? ` at "${issue.path.join(".")}"` : "";
    return { passed: false, failures: [`the flow trace is malformed${at}: ${issue?.message}`] };
  }
  const { passed, failures } = checkFlowExpect(trace.data, record.expect.flow!);
  return { passed, failures };
}

type ToolCall = TrialRecord["tool_calls"][number];

/** `is_action_match` and its detail (see the module doc for how it differs from the reference). */
export function actionMatch(
  reference: readonly ReferenceAction[],
  toolCalls: readonly ToolCall[],
  options: ActionMatchOptions,
): { match: boolean; detail: NonNullable<VerdictDetails["action_match"]> } {
  const ref = referenceActionList(reference);
  const pred = predictedActionList(toolCalls);
  const matched = matchList(ref, pred, options);
  const used = new Set(matched.filter((m) => m !== null));
  const unmatched = matched.flatMap((m, index) =>
    m === null
      ? [{ index, name: reference[index]!.name, ..._closest(ref[index]!, pred, used, options) }]
      : []
  );
  const lengthMismatch = options.disallow_extra_items === true && ref.length !== pred.length;
  return {
    match: unmatched.length === 0 && !lengthMismatch,
    detail: {
      reference_count: ref.length,
      prediction_count: pred.length,
      unmatched,
      ...(lengthMismatch ? { length_mismatch: true } : {}),
    },
  };
}

/**
 * For a reference action no call matched, the first call of the same tool on the same
 * side (one no other reference action took, if any), and the arguments in which it
 * differs, each as the reference has it and as it was made: so "not made" is said only
 * when no call of that tool was.
 */
function _closest(
  ref: Record<string, unknown>,
  pred: readonly Record<string, unknown>[],
  used: ReadonlySet<number>,
  options: ActionMatchOptions,
): {
  made_as?: { call: number; differing: { argument: string; expected: string; got: string }[] };
} {
  const same = pred.flatMap((p, i) => p.side === ref.side && p.name === ref.name ? [i] : []);
  const call = same.find((i) => !used.has(i)) ?? same[0];
  if (call === undefined) return {};
  const want = (ref.arguments ?? {}) as Record<string, unknown>;
  const got = (pred[call]!.arguments ?? {}) as Record<string, unknown>;
  const differing = Object.keys(want).filter((k) =>
    !Object.hasOwn(got, k) || !valuesMatch(want[k], got[k], options)
  ).map((k) => ({
    argument: k,
    expected: JSON.stringify(want[k]) ?? "null",
    got: Object.hasOwn(got, k) ? JSON.stringify(got[k]) ?? "null" : "(not given)",
  }));
  return { made_as: { call, differing } };
}

/** Reference actions as the comparator sees them: `arguments` cut to `compare_args`. */
export function referenceActionList(
  reference: readonly ReferenceAction[],
): Record<string, unknown>[] {
  return reference.map((a) => ({
    side: a.side ?? "agent",
    name: toolKey(a.name),
    arguments: a.compare_args ? _pick(a.arguments ?? {}, a.compare_args) : a.arguments ?? {},
  }));
}

/** A trial's tool calls as the comparator sees them. */
export function predictedActionList(toolCalls: readonly ToolCall[]): Record<string, unknown>[] {
  return toolCalls.map((c) => ({
    side: c.side,
    name: toolKey(c.name),
    arguments: _argumentsObject(c.arguments),
  }));
}

/** A tool name in snake_case: `CancelReservationTool` and `cancel_reservation` agree. */
export function toolKey(name: string): string {
  if (!/[A-Z]/.test(name)) return name;
  return name.replace(/Tool$/, "").replace(/([a-z0-9])([A-Z])/g, "$1_$2").replace(
    /([A-Z]+)([A-Z][a-z])/g,
    "$1_$2",
  ).toLowerCase();
}

function _pick(args: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of keys) if (Object.hasOwn(args, k)) out[k] = args[k];
  return out;
}

/** Arguments as sent: an object, or JSON text of one (some agents send text). */
function _argumentsObject(args: unknown): unknown {
  if (typeof args !== "string") return args ?? {};
  try {
    return JSON.parse(args);
  } catch {
    return args;
  }
}

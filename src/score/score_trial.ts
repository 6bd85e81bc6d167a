/**
 * One trial record to one verdict: the signals, the composite verdict, and the rules
 * that override it.
 *
 * - Too few agent turns: with `minAgentTurns` N > 0, a trial whose agent spoke fewer
 *   than N turns (agent turns with text, an interrupted one included) fails, as the
 *   reference's `--min-agent-turns` means to; unlike the reference, this counts what
 *   the agent said, not token-usage events (reference-harness §12.4). Default 0 (off).
 * - Infrastructure errors: a record with `status: "error"` (agent unreachable, harness
 *   fault, ...) gives a verdict with `status: "error"` and the record's error kind; a
 *   judge that could not answer gives `status: "error"`, kind `judge_error`. Either way
 *   `is_successful` is `false` and the report counts the error by kind, so it is never
 *   silently the agent's failure.
 *
 * Pure and deterministic: the same record (and judge result) gives the same verdict.
 *
 * @module
 */
import { interactionMetrics } from "./interaction.ts";
import type { TrialRecord } from "../runner/trial_record.ts";
import type { AudioBlock } from "../runner/audio_block.ts";
import { computeSignals } from "./signals.ts";
import { composeSuccess } from "./success.ts";
import {
  type JudgeResult,
  TOOL_JSON_MAX,
  type Verdict,
  VERDICT_SCHEMA,
  type VerdictAudio,
  type VerdictEvent,
} from "./verdict.ts";
import { FlowTraceSchema } from "../flow/trace.ts";

/** What `scoreTrial` needs besides the record. */
export interface ScoreOptions {
  /** Fail trials whose agent spoke fewer turns than this. Default 0. */
  minAgentTurns?: number;
  /** The judge's result for this trial, when a judge ran. */
  judge?: JudgeResult;
}

/** Scores one trial. */
export function scoreTrial(record: TrialRecord, options: ScoreOptions = {}): Verdict {
  const { signals, details } = computeSignals(record, options.judge);
  // A voice agent that is not heard fails an audio call, whatever the scenario gates.
  const whitelist = signals.agent_voiced !== null &&
      !record.expect.success_signals.includes("agent_voiced")
    ? [...record.expect.success_signals, "agent_voiced" as const]
    : record.expect.success_signals;
  const success = composeSuccess(signals, whitelist);
  const agentTurns = countAgentTurns(record.turns);
  const minAgentTurns = options.minAgentTurns ?? record.expect.min_agent_turns ?? 0;

  let is_successful = success.is_successful;
  let is_task_successful = success.is_task_successful;
  const insufficient = agentTurns < minAgentTurns;
  let error: Verdict["error"];
  if (record.status === "error") {
    error = record.error ?? { kind: "harness_error", message: "the trial ended in an error" };
  } else if (options.judge?.status === "error") {
    error = { kind: "judge_error", message: options.judge.error ?? "the judge did not answer" };
  }
  if (insufficient || error) {
    is_successful = false;
    is_task_successful = false;
  }

  const { key } = record;
  const events = lineEvents(record);
  return {
    schema: VERDICT_SCHEMA,
    scenario: key.scenario,
    trial: key.trial,
    seed: key.seed,
    config_hash: key.config_hash,
    ...(record.label !== undefined ? { label: record.label } : {}),
    participants: record.participants,
    domain: record.domain,
    suite: record.suite,
    ...(record.language !== undefined ? { language: record.language } : {}),
    status: error ? "error" : "completed",
    ...(error ? { error } : {}),
    stop_reason: record.stop_reason,
    is_successful,
    ...(is_task_successful !== undefined ? { is_task_successful } : {}),
    ...(insufficient ? { insufficient_agent_turns: true as const } : {}),
    ...(record.world_owner === "agent" ? { self_reported: true as const } : {}),
    success_signals: record.expect.success_signals,
    signals,
    success_breakdown: success.success_breakdown,
    details,
    metrics: {
      turns: record.turns.length,
      agent_turns: agentTurns,
      duration_ms: record.duration_ms,
      latency_ms: record.latency.map((l) => l.response_ms),
      ...(record.clock ? { clock: record.clock } : {}),
      ttft_ms: record.latency.flatMap((l) => (l.ttft_ms === undefined ? [] : [l.ttft_ms])),
      usage: record.usage,
      ...(record.audio ? { audio: audioMetrics(record.audio) } : {}),
      ...(record.audio
        ? {
          interaction: interactionMetrics({
            turns: record.turns,
            caller_events: record.audio.caller_events ?? [],
            agent_tool_calls_ms: record.tool_calls.filter((c) => c.side === "agent").map((c) =>
              c.at_ms
            ),
          }),
        }
        : {}),
    },
    turns: record.turns.map((t) => ({
      speaker: t.speaker,
      text: t.text,
      start_ms: t.start_ms,
      end_ms: t.end_ms,
      ...(t.interrupted ? { interrupted: true } : {}),
    })),
    tool_calls: record.tool_calls.map((c) => ({
      side: c.side,
      name: c.name,
      arguments: clippedJson(c.arguments),
      result: clippedJson(c.result),
      ok: c.ok,
      at_ms: c.at_ms,
    })),
    ...(events.length > 0 ? { events } : {}),
  };
}

/** The line's events besides speech and tools, by time (see `VerdictEventSchema`). */
export function lineEvents(record: TrialRecord): VerdictEvent[] {
  const events: VerdictEvent[] = [];
  const inband = record.audio?.tones ?? [];
  // In-band keys are in the tones with what was heard; out-of-band ones in `dtmf`.
  for (const d of record.dtmf) {
    events.push({ at_ms: d.at_ms, kind: "keys", side: d.side, text: d.keys });
  }
  for (const t of inband) {
    if (t.kind === "beep") {
      events.push({ at_ms: t.at_ms, kind: "beep", side: t.side, text: "beep" });
    }
  }
  for (const b of record.audio?.barge_ins ?? []) {
    events.push({
      at_ms: b.at_ms,
      kind: "barge_in",
      side: "user",
      text: b.yielded
        ? `the agent yielded after ${Math.round(b.yield_ms)} ms`
        : "the agent talked on",
    });
  }
  const flow = FlowTraceSchema.safeParse(record.flow);
  if (record.flow && flow.success) {
    const trace = flow.data;
    trace.nodes.forEach((n, i) => {
      events.push({ at_ms: n.at_ms, kind: "node", text: n.name });
      // A hold lasts until the next node is entered, or the flow ends.
      if (n.hold) {
        const end = trace.nodes[i + 1]?.at_ms ?? trace.end.at_ms;
        events.push({ at_ms: n.at_ms, kind: "hold", text: n.name, end_ms: end });
      }
    });
    const box = trace.voicemail;
    if (box) {
      const first = box.takes[0]?.start_ms ?? trace.end.at_ms;
      events.push({
        at_ms: first,
        kind: "voicemail",
        text: `voicemail box${box.beep ? " with a beep" : ", no beep"}: ${box.outcome}`,
      });
    }
    events.push({
      at_ms: trace.end.at_ms,
      kind: "end",
      text: `${trace.end.node} (${trace.end.reason})`,
    });
  }
  return events.sort((a, b) => a.at_ms - b.at_ms);
}

/** The audio figures a verdict carries, from the record's `audio` block. */
export function audioMetrics(a: AudioBlock): VerdictAudio {
  return {
    v2v_ms: a.turns.map((t) => t.v2v_ms),
    ref_frame_ms: a.turns.map((t) => t.ref_frame_ms),
    ref_segment_ms: a.turns.map((t) => t.ref_segment_ms),
    ttfa_ms: a.ttfa_ms,
    // Only the agent's own yields: callbench's playout of a text agent is not the agent's.
    barge_in_yield_ms: a.barge_ins.filter(ownYield).map((b) => b.yield_ms),
    barge_ins_yielded: a.barge_ins.filter((b) => ownYield(b) && b.yielded).length,
    talk_over_ms: a.talk_over_ms,
    user_voice: a.tts.voices.user,
    ...(a.line
      ? {
        line: a.line.preset,
        line_snr_db: a.line.snr_db.filter((x): x is number => x !== null),
        line_frames: {
          total: a.line.frames_total,
          lost: a.line.frames_lost,
          late: a.line.frames_late,
        },
      }
      : {}),
    ...(a.wav !== undefined ? { wav: a.wav } : {}),
  };
}

/** `value` as JSON text, clipped to `TOOL_JSON_MAX` chars with a marker counting the rest. */
export function clippedJson(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? "null";
  } catch {
    text = String(value);
  }
  if (text.length <= TOOL_JSON_MAX) return text;
  return `${text.slice(0, TOOL_JSON_MAX)}… [${text.length - TOOL_JSON_MAX} more characters]`;
}

/** Turns in which the agent said something. */
export function countAgentTurns(turns: readonly { speaker: string; text: string }[]): number {
  let n = 0;
  for (const t of turns) if (t.speaker === "agent" && t.text.trim() !== "") n++;
  return n;
}

/** A barge-in measured on the agent's own audio (not callbench's playout of its text). */
function ownYield(b: { source?: string }): boolean {
  return b.source !== "harness_playout";
}

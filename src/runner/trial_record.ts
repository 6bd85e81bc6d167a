/**
 * The trial record: everything one call did, written by `eval`, read by `score`.
 * Versioned; carries what scoring needs (expectations included) so re-scoring never
 * re-runs a call and needs no data root.
 *
 * @module
 */
import { z } from "zod";
import { DTMF_KEYS_TEXT } from "../dtmf/keys.ts";
import { ErrorKind, StopReason, TurnSchema } from "../bridge/outcome.ts";
import { AssertionVerdictSchema } from "../scenario/scenario.ts";
import { StateDiffSchema } from "../env/state_diff.ts";

export { AssertionVerdictSchema, ErrorKind, StopReason, TurnSchema };
export type { Turn } from "../bridge/outcome.ts";
import {
  DbStateAssertionSchema,
  FlowExpectSchema,
  ReferenceActionSchema,
  Signal,
} from "../scenario/scenario.ts";
import { AudioBlockSchema } from "./audio_block.ts";

export const TRIAL_RECORD_SCHEMA = "callbench.trial/1";

/** What identifies a trial across runs, shards and resumes (see `trial_key.ts`). */
export const TrialKeySchema = z.object({
  scenario: z.string().describe("the scenario's name"),
  trial: z.number().int().nonnegative().describe(
    "0-based index of the trial among its scenario's trials",
  ),
  /** Hex seed derived from (scenario, trial, config hash) with SHA-256. */
  seed: z.string().describe("hex seed derived from (scenario, trial, config hash) with SHA-256"),
  /** Hash of the run configuration that shapes a call (participants, models, limits). */
  config_hash: z.string().describe(
    "hash of the run configuration that shapes a call (participants, models, limits, label)",
  ),
});
/** What identifies a trial: scenario, trial index, seed and config hash. */
// The type is generated from the schema above (`deno task schema`): the package
// exports it without naming zod's types, and a test holds the two the same.
export type { TrialKey } from "../../schemas/types.ts";

/** One side's LLM usage over a trial: calls made and tokens spent. */
export const UsageSchema = z.object({
  calls: z.number().int().nonnegative().describe(
    "LLM calls made (or metrics.tokens entries received)",
  ),
  prompt_tokens: z.number().int().nonnegative().describe("prompt tokens, summed over the calls"),
  completion_tokens: z.number().int().nonnegative().describe(
    "completion tokens, summed over the calls",
  ),
});

export const ToolCallSchema = z.object({
  side: z.enum(["agent", "user"]).describe("which side called the tool"),
  name: z.string().describe("the tool called (an alias is recorded under the tool it names)"),
  arguments: z.unknown().describe("the arguments as the participant sent them"),
  result: z.unknown().describe("what the tool returned (an error result when ok is false)"),
  ok: z.boolean().describe("the tool succeeded (a failed call changes nothing)"),
  at_ms: z.number().describe("when the call was made, ms since the call started"),
  /** Characters cut from `arguments` and `result` (a cut one is the start of its JSON). */
  truncated_chars: z.number().int().positive().optional().describe(
    "characters cut from arguments and result to bound the record (a cut one is the start of its JSON)",
  ),
});

export const LatencySchema = z.object({
  /** Index into `turns` of the agent turn measured. */
  turn: z.number().int().nonnegative().describe(
    "0-based index into the record's turns of the agent turn measured",
  ),
  /** End of the caller's utterance to the agent's first output. */
  response_ms: z.number().describe(
    "ms from the end of the caller's utterance to the start of this agent turn",
  ),
  /** Time to first token of the agent's LLM, where known. */
  ttft_ms: z.number().optional().describe(
    "ms to the first token of the agent's LLM reply, where known (metrics ttfb for remote agents)",
  ),
});

export const ParticipantInfoSchema = z.object({
  kind: z.string().describe("participant kind: oracle, llm, scripted, remote, ..."),
  url: z.string().optional().describe("a remote participant's URL (its token left out)"),
  model: z.string().optional().describe("the LLM model, for LLM participants"),
  settings: z.record(z.string(), z.unknown()).optional().describe(
    "settings that shape the participant (temperature, framing, ...)",
  ),
});

/** How many trials a run made at once, against what it was asked. */
export const RunConcurrencySchema = z.object({
  requested: z.number().int().positive().describe("trials at once the run was asked for"),
  used: z.number().int().positive().describe("trials at once it ran (at most)"),
  why: z.string().optional().describe("why it ran fewer than asked"),
});
/** A run's concurrency, as records carry it. */
// Generated from the schema above (`deno task schema`), as the record's other types.
export type { RunConcurrency } from "../../schemas/types.ts";

/** The trial record, version `callbench.trial/1`: one line of `trials.jsonl`. */
export const TrialRecordSchema = z.object({
  schema: z.literal(TRIAL_RECORD_SCHEMA),
  /** The callbench that ran the trial (absent in records of older versions). */
  callbench_version: z.string().optional(),
  key: TrialKeySchema,
  /** `eval --label`: names the configuration in reports (part of its config hash). */
  label: z.string().optional(),
  domain: z.string().describe("the domain whose tools and world the call used (eva_airline, ...)"),
  suite: z.string().describe("the suite the scenario belongs to"),
  language: z.string().optional().describe(
    "the call's language, where the scenario names one (user.language; EVA-Bench's cultures)",
  ),
  status: z.enum(["completed", "error"]).describe(
    "completed: the call ran to a stop reason; error: an infrastructure error (see error)",
  ),
  /**
   * Who held the world: `harness` (callbench ran every tool, the default) or `agent`
   * (`eval --agent-world self`: the bot ran its own tools, and `final.db_sha256` and
   * `actions` are what it reported, its own claim, not checked by the harness).
   */
  world_owner: z.enum(["harness", "agent"]).default("harness"),
  error: z.object({ kind: ErrorKind, message: z.string() }).optional().describe(
    "why the trial ended in error (status error); kinds in PROTOCOL.md",
  ),
  stop_reason: StopReason.describe(
    "why the call ended: agent_end (end_conversation, server-message end, <exit>), " +
      "agent_transfer, agent_hangup, user_hangup, max_duration, silence, max_turns, error",
  ),
  /** The agent ended the call (reference `[EXIT]`). */
  clean_exit: z.boolean().describe(
    "the agent ended the call (agent_end, agent_transfer, agent_hangup): the reference's [EXIT]",
  ),
  started_at: z.string().describe("wall-clock start of the trial, ISO 8601"),
  /** Call time (simulated or real), ms. */
  duration_ms: z.number().describe(
    "length of the call in call time (simulated or real, see clock), ms",
  ),
  turns: z.array(TurnSchema).describe("the utterances of both sides, in order of start"),
  dtmf: z.array(z.object({
    side: z.enum(["agent", "user"]),
    keys: z.string().describe(`the keys pressed, ${DTMF_KEYS_TEXT}`),
    at_ms: z.number().describe("ms since the call started"),
  })).describe("key presses of both sides, in order"),
  tool_calls: z.array(ToolCallSchema).describe("every tool call of both sides, in order"),
  /** Side-stamped action records of successful writes, in order. */
  actions: z.array(z.record(z.string(), z.unknown())).describe(
    "side-stamped action records of successful write tools, in order",
  ),
  final: z.object({
    db_sha256: z.string().nullable().describe(
      "canonical SHA-256 of the agent-side database after the call (the reference's hash)",
    ),
    user_db_sha256: z.string().nullable().optional().describe(
      "the same for the caller-side database (telecom)",
    ),
    db_diff: StateDiffSchema.optional().describe(
      "when db_sha256 is not the expected hash: where the agent-side database differs from the expected one (the reference actions replayed)",
    ),
  }).describe("the world's final hashes"),
  assertions: z.array(AssertionVerdictSchema).describe(
    "the scenario's state assertions, evaluated on the final world",
  ),
  latency: z.array(LatencySchema).describe("one entry per agent turn that answered the caller"),
  usage: z.object({ agent: UsageSchema, user: UsageSchema }).describe("LLM usage per side"),
  participants: z.object({ agent: ParticipantInfoSchema, user: ParticipantInfoSchema }),
  /** The flow trace (flow scenarios). */
  flow: z.record(z.string(), z.unknown()).optional(),
  /** What scoring needs, copied from the scenario. */
  expect: z.object({
    success_signals: z.array(Signal),
    db_sha256: z.string().optional(),
    user_db_sha256: z.string().optional(),
    db_state_assertions: z.array(DbStateAssertionSchema).default([]),
    reference_actions: z.array(ReferenceActionSchema).optional(),
    nl_assertions: z.array(z.string()).default([]),
    agent_expectations: z.string().optional(),
    flow: FlowExpectSchema.optional(),
    /** `eval --min-agent-turns`: fewer agent turns fail the trial (score may override). */
    min_agent_turns: z.number().int().nonnegative().optional(),
    action_match: z.object({
      ignore_capitalization: z.boolean(),
      ignore_punctuation: z.boolean(),
      disallow_extra_items: z.boolean(),
    }).partial().optional(),
  }),
  timings: z.object({
    setup_ms: z.number().describe("wall-clock ms to prepare the world and participants"),
    call_ms: z.number().describe("wall-clock ms of the call"),
    wall_ms: z.number().describe("wall-clock ms of the whole trial"),
  }).describe("wall-clock timings of the harness (not call time)"),
  /**
   * The clock the call ran on: `simulated` when both ends are deterministic (call time
   * jumps from timer to timer, so latencies are 0 ms and say nothing of speed), `real`
   * otherwise. Absent in records of older versions and in setup errors.
   */
  clock: z.enum(["simulated", "real"]).optional(),
  concurrency: RunConcurrencySchema.optional().describe(
    "The run's trials at once: as asked and as used (fewer: why). Absent in older records",
  ),
  /**
   * Audio calls (`eval --audio`): the providers and voices, seconds of audio per side,
   * voice-to-voice latency per agent turn, time to first audio, barge-ins, silence
   * gaps, talk-over and the recording. Absent in text calls (additive: schema
   * version unchanged).
   */
  audio: AudioBlockSchema.optional().describe("Audio calls: what the call sounded like"),
});
/** One trial's record: what the call did and what scoring needs. */
// The type is generated from the schema above (`deno task schema`): the package
// exports it without naming zod's types, and a test holds the two the same.
export type { TrialRecord } from "../../schemas/types.ts";

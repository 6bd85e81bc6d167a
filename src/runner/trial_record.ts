/**
 * The trial record: everything one call did, written by `eval`, read by `score`.
 * Versioned; carries what scoring needs (expectations included) so re-scoring never
 * re-runs a call and needs no data root.
 *
 * @module
 */
import { z } from "zod";
import { ErrorKind, StopReason, TurnSchema } from "../bridge/outcome.ts";
import { AssertionVerdictSchema } from "../scenario/scenario.ts";

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

export const TrialKeySchema = z.object({
  scenario: z.string(),
  trial: z.number().int().nonnegative(),
  /** Hex seed derived from (scenario, trial, config hash) with SHA-256. */
  seed: z.string(),
  /** Hash of the run configuration that shapes a call (participants, models, limits). */
  config_hash: z.string(),
});
export type TrialKey = z.infer<typeof TrialKeySchema>;

/** One side's LLM usage over a trial: calls made and tokens spent. */
export const UsageSchema = z.object({
  calls: z.number().int().nonnegative(),
  prompt_tokens: z.number().int().nonnegative(),
  completion_tokens: z.number().int().nonnegative(),
});

export const ToolCallSchema = z.object({
  side: z.enum(["agent", "user"]),
  name: z.string(),
  arguments: z.unknown(),
  result: z.unknown(),
  ok: z.boolean(),
  at_ms: z.number(),
  /** Characters cut from `arguments` and `result` (a cut one is the start of its JSON). */
  truncated_chars: z.number().int().positive().optional(),
});

export const LatencySchema = z.object({
  /** Index into `turns` of the agent turn measured. */
  turn: z.number().int().nonnegative(),
  /** End of the caller's utterance to the agent's first output. */
  response_ms: z.number(),
  /** Time to first token of the agent's LLM, where known. */
  ttft_ms: z.number().optional(),
});

export const ParticipantInfoSchema = z.object({
  kind: z.string(),
  url: z.string().optional(),
  model: z.string().optional(),
  settings: z.record(z.string(), z.unknown()).optional(),
});

export const TrialRecordSchema = z.object({
  schema: z.literal(TRIAL_RECORD_SCHEMA),
  /** The callbench that ran the trial (absent in records of older versions). */
  callbench_version: z.string().optional(),
  key: TrialKeySchema,
  /** `eval --label`: names the configuration in reports (part of its config hash). */
  label: z.string().optional(),
  domain: z.string(),
  suite: z.string(),
  status: z.enum(["completed", "error"]),
  /**
   * Who held the world: `harness` (callbench ran every tool, the default) or `agent`
   * (`eval --agent-world self`: the bot ran its own tools, and `final.db_sha256` and
   * `actions` are what it reported, its own claim, not checked by the harness).
   */
  world_owner: z.enum(["harness", "agent"]).default("harness"),
  error: z.object({ kind: ErrorKind, message: z.string() }).optional(),
  stop_reason: StopReason,
  /** The agent ended the call (reference `[EXIT]`). */
  clean_exit: z.boolean(),
  started_at: z.string(),
  /** Call time (simulated or real), ms. */
  duration_ms: z.number(),
  turns: z.array(TurnSchema),
  dtmf: z.array(z.object({ side: z.enum(["agent", "user"]), keys: z.string(), at_ms: z.number() })),
  tool_calls: z.array(ToolCallSchema),
  /** Side-stamped action records of successful writes, in order. */
  actions: z.array(z.record(z.string(), z.unknown())),
  final: z.object({
    db_sha256: z.string().nullable(),
    user_db_sha256: z.string().nullable().optional(),
  }),
  assertions: z.array(AssertionVerdictSchema),
  latency: z.array(LatencySchema),
  usage: z.object({ agent: UsageSchema, user: UsageSchema }),
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
  timings: z.object({ setup_ms: z.number(), call_ms: z.number(), wall_ms: z.number() }),
  /**
   * The clock the call ran on: `simulated` when both ends are deterministic (call time
   * jumps from timer to timer, so latencies are 0 ms and say nothing of speed), `real`
   * otherwise. Absent in records of older versions and in setup errors.
   */
  clock: z.enum(["simulated", "real"]).optional(),
  /**
   * Audio calls (`eval --audio`): the providers and voices, seconds of audio per side,
   * voice-to-voice latency per agent turn, time to first audio, barge-ins, silence
   * gaps, talk-over and the recording. Absent in text calls (additive: schema
   * version unchanged).
   */
  audio: AudioBlockSchema.optional().describe("Audio calls: what the call sounded like"),
});
export type TrialRecord = z.infer<typeof TrialRecordSchema>;

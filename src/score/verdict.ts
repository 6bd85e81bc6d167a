/**
 * The verdict: one scored trial, written by `score`, read by `report`. Versioned; it
 * carries the trial key (so `report` de-duplicates merged shards), every signal, the
 * composite verdict and its breakdown, the evidence behind each signal, and what the
 * report needs (latency, usage, the transcript).
 *
 * Signal values are `true`/`false`, or `null` when the signal does not apply to the
 * trial (the reference's `"N/A"` or absent key). The composite `is_successful` keeps the
 * reference's `"N/A"` string.
 *
 * A trial that ended in an infrastructure error (or whose judge failed) has
 * `status: "error"` and an `error.kind`; its `is_successful` is `false`, so it counts
 * as a failure unless `report --exclude-errors`, and the report counts it by kind.
 *
 * The verdict carries the call's turns (speaker, text, times) and tool calls (arguments
 * and results as JSON text, long ones clipped with a count) so the HTML report can show
 * every trial's transcript without the trial records, and the trial's participants and
 * label, so a dashboard needs no join with the records.
 *
 * @module
 */
import { InteractionMetricsSchema } from "./interaction.ts";
import { z } from "zod";
import { Signal, SIGNALS } from "../scenario/scenario.ts";
import {
  AssertionVerdictSchema,
  ErrorKind,
  ParticipantInfoSchema,
  StopReason,
  UsageSchema,
} from "../runner/trial_record.ts";
import { StateDiffSchema } from "../env/state_diff.ts";

export const VERDICT_SCHEMA = "callbench.verdict/1";

/** Why a verdict is an error: the trial's infrastructure error, or the judge's. */
export const VerdictErrorKind = z.enum([...ErrorKind.options, "judge_error"]);
export type VerdictErrorKind = z.infer<typeof VerdictErrorKind>;

/** `true`/`false`, or `null` when the signal does not apply. */
const SignalValue = z.boolean().nullable();

/** Every signal of `SIGNALS`, in its order (the reference's enum order, then ours). */
export const SignalsSchema = z.object(
  Object.fromEntries(SIGNALS.map((s) => [s, SignalValue])) as { [S in Signal]: typeof SignalValue },
);
export type Signals = z.infer<typeof SignalsSchema>;

export const SuccessBreakdownSchema = z.object({
  /** Whitelisted signals that passed. */
  passed: z.array(Signal).describe("Whitelisted signals that passed."),
  /** Whitelisted signals that failed. */
  failed: z.array(Signal).describe("Whitelisted signals that failed."),
  /** Whitelisted signals that do not apply to this trial. */
  not_applicable: z.array(Signal).describe("Whitelisted signals that do not apply to this trial."),
  /** Signals outside the whitelist that were computed (informational). */
  excluded: z.array(Signal).describe(
    "Signals outside the whitelist that were computed (informational).",
  ),
});
export type SuccessBreakdown = z.infer<typeof SuccessBreakdownSchema>;

const PassCount = z.object({
  passed: z.number().int().nonnegative(),
  total: z.number().int().nonnegative(),
  rate: z.number().nullable(),
});

export const NlVerdictSchema = z.object({
  /** 1-based, as the judge numbers the assertions. */
  index: z.number().int().positive().describe("1-based, as the judge numbers the assertions."),
  assertion: z.string(),
  passed: z.boolean(),
  reason: z.string(),
});
export type NlVerdict = z.infer<typeof NlVerdictSchema>;

/** What the LLM judge made of a trial's natural-language assertions. */
export const JudgeResultSchema = z.object({
  model: z.string(),
  /** Completed: the judge answered; error: it could not (an infrastructure error). */
  status: z.enum(["completed", "error"]).describe(
    "Completed: the judge answered; error: it could not (an infrastructure error).",
  ),
  score: z.number().nullable(),
  reason: z.string(),
  threshold: z.number().optional(),
  /** One per assertion (NL assertions, then the flow's `agent_expectations`). */
  nl_assertion_verdicts: z.array(NlVerdictSchema).describe(
    "One per assertion (NL assertions, then the flow's agent_expectations).",
  ),
  /** The reply lacked a verdict for some assertion (those count as failed). */
  incomplete: z.boolean().optional().describe(
    "The reply lacked a verdict for some assertion (those count as failed).",
  ),
  attempts: z.number().int().nonnegative(),
  error: z.string().optional(),
  usage: z.object({
    prompt_tokens: z.number().int().nonnegative(),
    completion_tokens: z.number().int().nonnegative(),
  }).optional(),
});
/** The judge's result for one trial (see `JudgeResultSchema`). */
// The type is generated from the schema above (`deno task schema`): the package
// exports it without naming zod's types, and a test holds the two the same.
export type { JudgeResult } from "../../schemas/types.ts";

export const VoiceFlagSchema = z.object({
  /** Index into `turns`. */
  turn: z.number().int().nonnegative().describe(
    "0-based index into the verdict's (and the record's) turns.",
  ),
  /** `identifier`: a code read in canonical form; `journey_id`: an internal id read aloud. */
  kind: z.enum(["identifier", "journey_id"]).describe(
    "identifier: a code read in canonical form; journey_id: an internal id read aloud.",
  ),
  /** The identifier as it appears in the text. */
  identifier: z.string().describe("The identifier as it appears in the text."),
  /** The turn also spells it ("next to its spelling") rather than only saying it. */
  spelled: z.boolean().describe(
    'The turn also spells it ("next to its spelling") rather than only saying it.',
  ),
  /** The offending text: the identifier with some context. */
  text: z.string().describe("The offending text: the identifier with some context."),
});
export type VoiceFlag = z.infer<typeof VoiceFlagSchema>;

export const VerdictTurnSchema = z.object({
  speaker: z.enum(["agent", "user"]),
  text: z.string(),
  start_ms: z.number().describe("when the utterance began, ms since the call started"),
  end_ms: z.number().describe("when it ended (or was cut off), ms since the call started"),
  interrupted: z.boolean().optional().describe("the utterance was cut off"),
});
export type VerdictTurn = z.infer<typeof VerdictTurnSchema>;

/** A tool call as the transcript shows it; JSON text over `TOOL_JSON_MAX` chars is clipped. */
export const VerdictToolCallSchema = z.object({
  side: z.enum(["agent", "user"]),
  name: z.string(),
  /** The arguments as JSON text. */
  arguments: z.string().describe("The arguments as JSON text."),
  /** The result as JSON text. */
  result: z.string().describe("The result as JSON text."),
  ok: z.boolean(),
  at_ms: z.number().describe("when the call was made, ms since the call started"),
});
export type VerdictToolCall = z.infer<typeof VerdictToolCallSchema>;

/**
 * Something that happened on the line besides speech and tool calls, for the
 * transcript: keys pressed, beeps, the flow nodes the call went through (holds among
 * them), the voicemail box, how the flow ended, and barge-ins.
 */
export const VerdictEventSchema = z.object({
  at_ms: z.number().describe("ms since the call started"),
  kind: z.enum(["keys", "beep", "node", "hold", "voicemail", "end", "barge_in"]),
  side: z.enum(["agent", "user"]).optional().describe("who pressed, beeped or barged in"),
  text: z.string().describe(
    "the keys, the node's name (a hold's too), the box, or the end and its reason",
  ),
  end_ms: z.number().optional().describe(
    "a hold: when it ended (the next node entered, or the call's end), ms since the call started",
  ),
});
export type VerdictEvent = z.infer<typeof VerdictEventSchema>;

/** The longest JSON text of a tool call's arguments or result that a verdict keeps whole. */
export const TOOL_JSON_MAX = 2000;

export const VerdictDetailsSchema = z.object({
  db_state: z.object({
    expected_sha256: z.string().describe("the scenario's expected hash of the final agent-side db"),
    actual_sha256: z.string().nullable().describe("the record's final hash (null: no world)"),
    match: z.boolean(),
    diff: StateDiffSchema.optional().describe(
      "on a mismatch: where the final world differs from the expected one (the record's final.db_diff)",
    ),
  }).optional(),
  /** The caller-side DB (telecom): compared when expected, never gating (as the reference). */
  user_db_state: z.object({
    expected_sha256: z.string(),
    actual_sha256: z.string().nullable(),
    match: z.boolean(),
  }).optional(),
  db_state_assertion: PassCount.extend({ verdicts: z.array(AssertionVerdictSchema) }).optional(),
  action_match: z.object({
    reference_count: z.number().int().nonnegative(),
    prediction_count: z.number().int().nonnegative(),
    /** Reference actions no prediction matched: index and tool name. */
    unmatched: z.array(z.object({
      index: z.number().int().nonnegative(),
      name: z.string(),
      made_as: z.object({
        call: z.number().int().nonnegative().describe("index of that call among the predictions"),
        differing: z.array(z.object({
          argument: z.string(),
          expected: z.string().describe("the reference's value, as JSON"),
          got: z.string().describe('the call\'s value, as JSON, or "(not given)"'),
        })),
      }).optional().describe(
        "a call of the same tool on the same side, and the arguments in which it differs",
      ),
    })).describe(
      "Reference actions no prediction matched: index, tool name, and the closest call made.",
    ),
    /** Failed on `disallow_extra_items`: the lists differ in length. */
    length_mismatch: z.boolean().optional().describe(
      "Failed on disallow_extra_items: the lists differ in length.",
    ),
  }).optional(),
  nl_assertion: PassCount.optional(),
  judge: JudgeResultSchema.optional(),
  flow: z.object({ passed: z.boolean(), failures: z.array(z.string()) }).optional(),
  voice: z.object({ flags: z.array(VoiceFlagSchema) }),
});
export type VerdictDetails = z.infer<typeof VerdictDetailsSchema>;

/**
 * What the report needs of an audio call (the record's `audio` block): the three
 * latency definitions per agent turn, time to first audio, each barge-in's yield time,
 * and where the recording is.
 */
export const VerdictAudioSchema = z.object({
  v2v_ms: z.array(z.number()).describe(
    "Voice-to-voice latency per agent turn: the caller's last speech frame as sent to the agent's first as heard (energy), ms",
  ),
  ref_frame_ms: z.array(z.number()).describe(
    "The reference's live latency per agent turn: its first audio frame after the caller stopped speaking, ms",
  ),
  ref_segment_ms: z.array(z.number()).describe(
    "The reference's post-hoc latency per agent turn: segment start − (caller segment end − 0.3 s), ms",
  ),
  ttfa_ms: z.number().nullable().describe(
    "Time to first audio: from the call's connection (after the handshakes) to the agent's first speech (null: the agent never spoke)",
  ),
  barge_in_yield_ms: z.array(z.number()).describe(
    "Per barge-in: from the caller's start to the end of the agent's audio, ms",
  ),
  barge_ins_yielded: z.number().int().nonnegative().describe(
    "Barge-ins after which the agent stopped before its utterance's end",
  ),
  talk_over_ms: z.number().describe("Time both sides' audio was voiced at once, ms"),
  user_voice: z.string().nullable().optional().describe(
    "The caller's TTS voice (null: the provider's default); the report breaks success down by it",
  ),
  line: z.string().optional().describe("The phone line the caller's audio crossed, as given"),
  line_snr_db: z.array(z.number()).optional().describe(
    "The line's SNR measured on each caller utterance with a noise bed, dB (the record's audio.line.snr_db)",
  ),
  line_frames: z.object({
    total: z.number().int().nonnegative(),
    lost: z.number().int().nonnegative(),
    late: z.number().int().nonnegative(),
  }).optional().describe("The caller's 20 ms frames on the line: all, lost, late (audio.line)"),
  wav: z.string().optional().describe(
    "The stereo recording, relative to the eval --out folder (audio/<trial>.wav)",
  ),
});
export type VerdictAudio = z.infer<typeof VerdictAudioSchema>;

export const VerdictMetricsSchema = z.object({
  turns: z.number().int().nonnegative().describe("utterances of both sides"),
  agent_turns: z.number().int().nonnegative().describe("utterances of the agent"),
  duration_ms: z.number().describe("length of the call in call time (simulated or real), ms"),
  /** Response latency of each measured agent turn, ms. */
  latency_ms: z.array(z.number()).describe("Response latency of each measured agent turn, ms."),
  /** Time to first token of each agent turn where known, ms. */
  ttft_ms: z.array(z.number()).describe("Time to first token of each agent turn where known, ms."),
  usage: z.object({ agent: UsageSchema, user: UsageSchema }),
  /** The record's clock (`simulated`: latencies are not measured); absent when unknown. */
  clock: z.enum(["simulated", "real"]).optional().describe(
    "The record's clock (simulated: latencies are not measured); absent when unknown.",
  ),
  /** Audio calls (`eval --audio`): the record's audio figures; absent for text calls. */
  audio: VerdictAudioSchema.optional().describe(
    "Audio calls (eval --audio): the record's audio figures; absent for text calls.",
  ),
  /** Audio calls: the interaction metrics (src/score/interaction.ts, PROTOCOL.md). */
  interaction: InteractionMetricsSchema.optional().describe(
    "Audio calls: response latency, yields, interruptions and selectivity to the caller's behaviours (PROTOCOL.md)",
  ),
});
export type VerdictMetrics = z.infer<typeof VerdictMetricsSchema>;

/** A trial's verdict, version `VERDICT_SCHEMA`: what `score` writes per trial. */
export const VerdictSchema = z.object({
  schema: z.literal(VERDICT_SCHEMA),
  scenario: z.string(),
  trial: z.number().int().nonnegative(),
  seed: z.string(),
  config_hash: z.string(),
  /** The record's `eval --label` (the configuration's name), when it had one. */
  label: z.string().optional().describe(
    "The record's eval --label (the configuration's name), when it had one.",
  ),
  /** Who took part (absent in verdicts of older versions). */
  participants: z.object({ agent: ParticipantInfoSchema, user: ParticipantInfoSchema })
    .optional(),
  domain: z.string(),
  suite: z.string(),
  /** The call's language, where the scenario names one. */
  language: z.string().optional().describe("The call's language, where the scenario names one."),
  status: z.enum(["completed", "error"]),
  error: z.object({ kind: VerdictErrorKind, message: z.string() }).optional(),
  stop_reason: StopReason,
  /** Strict AND of the applicable whitelisted signals; `"N/A"` when none applies. */
  is_successful: z.union([z.boolean(), z.literal("N/A")]).describe(
    'Strict AND of the applicable whitelisted signals; "N/A" when none applies.',
  ),
  /** No whitelisted signal other than `clean_exit` failed (when `is_successful` is boolean). */
  is_task_successful: z.boolean().optional().describe(
    "No whitelisted signal other than clean_exit failed (when is_successful is boolean).",
  ),
  /** The agent spoke fewer turns than `--min-agent-turns`. */
  insufficient_agent_turns: z.literal(true).optional().describe(
    "The agent spoke fewer turns than --min-agent-turns.",
  ),
  /**
   * The agent held its own world (`eval --agent-world self`, record `world_owner:
   * "agent"`): the final hash and actions scored are its own report, not the harness's.
   */
  self_reported: z.literal(true).optional().describe(
    'The agent held its own world (eval --agent-world self, record world_owner: "agent"): the final hash and actions scored are its own report, not the harness\'s.',
  ),
  success_signals: z.array(Signal),
  signals: SignalsSchema,
  success_breakdown: SuccessBreakdownSchema,
  details: VerdictDetailsSchema,
  metrics: VerdictMetricsSchema,
  turns: z.array(VerdictTurnSchema),
  /** Absent in verdicts written before tool calls were carried. */
  tool_calls: z.array(VerdictToolCallSchema).optional().describe(
    "Absent in verdicts written before tool calls were carried.",
  ),
  /** Keys, beeps, flow nodes, barge-ins, by time; absent when there were none. */
  events: z.array(VerdictEventSchema).optional().describe(
    "Keys, beeps, flow nodes, barge-ins, by time; absent when there were none.",
  ),
});
/** One trial's verdict (see `VerdictSchema`). */
// The type is generated from the schema above (`deno task schema`): the package
// exports it without naming zod's types, and a test holds the two the same.
export type { Verdict } from "../../schemas/types.ts";

/**
 * A verdict read without its transcript (turns, tool calls): what summaries need,
 * lighter to hold for a whole run.
 */
export const VerdictWithoutTranscriptSchema = VerdictSchema.omit({ turns: true, tool_calls: true });

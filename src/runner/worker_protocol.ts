/**
 * The messages between the runner and its trial Workers (`worker_pool.ts`,
 * `trial_worker.ts`). A Worker is sent the runner's selected scenarios themselves
 * (plain data, structured-cloned, expected hashes included), the data root's path and
 * the participant options: it selects nothing and replays no gold, and it reads and
 * freezes its own copy of each world the scenarios name.
 *
 * @module
 */
import { z } from "zod";
import type { TrialRecord } from "./trial_record.ts";
import type { Scenario } from "../scenario/scenario.ts";
import type { ParticipantOptions } from "../participants/registry.ts";
import { CallerBehaviourSchema } from "../speech/behaviour.ts";
import { CallerTimingSchema } from "../speech/caller_timing.ts";
import { WIRE_FRAMINGS } from "../transport/mapping.ts";
import { REALTIME_AUDIO_FORMATS, REALTIME_TURN_DETECTIONS } from "../protocol/openai_realtime.ts";
import type { TtsToPool } from "./shared_tts.ts";

const LlmSettingsSchema = z.object({
  baseUrl: z.string().optional(),
  apiKey: z.string().optional(),
  model: z.string().optional(),
  temperature: z.number().optional(),
  maxTokens: z.number().optional(),
  seed: z.number().optional(),
});

/** `ParticipantOptions` as they cross to a Worker. */
export const ParticipantOptionsSchema = z.object({
  agent: z.string(),
  user: z.string(),
  agentModel: LlmSettingsSchema,
  userModel: LlmSettingsSchema,
  connectAttempts: z.number().int().optional(),
  kick: z.string().optional(),
  framing: z.enum(WIRE_FRAMINGS).optional(),
  agentKey: z.string().optional(),
  realtime: z.object({
    audio: z.enum(REALTIME_AUDIO_FORMATS).optional(),
    turnDetection: z.enum(REALTIME_TURN_DETECTIONS).optional(),
    voice: z.string().optional(),
  }).optional(),
  bargeIn: z.number().optional(),
  audio: z.boolean().optional(),
  transcripts: z.boolean().optional(),
  behaviour: CallerBehaviourSchema.optional(),
  callerTiming: CallerTimingSchema.optional(),
});
/**
 * The schema names the options' fields, no more and no fewer: a field added to
 * `ParticipantOptions` alone would be dropped on its way to a Worker (zod strips keys it
 * does not know), so this fails to type-check instead.
 */
const _sameFields: Same<z.infer<typeof ParticipantOptionsSchema>, ParticipantOptions> = true;
/** `A` and `B` have the same keys (optional ones too) and each is assignable to the other. */
type Same<A, B> = [keyof A, A] extends [keyof B, B] ? [keyof B, B] extends [keyof A, A] ? true
  : false
  : false;

/** What a Worker needs before its first trial. */
export const WorkerSetupSchema = z.object({
  /** The data root's path; the Worker reads the scenarios' worlds from it. */
  dataRoot: z.string(),
  /**
   * The scenarios it may be asked to run, as the runner holds them (already
   * validated and with their expected hashes filled, so not parsed again here).
   */
  scenarios: z.array(z.custom<Scenario>((v) => typeof v === "object" && v !== null)),
  participants: ParticipantOptionsSchema,
  /**
   * The rest of each trial's plan (`TrialPlan` but the scenario, key, root and
   * participants), as the runner gives it to an in-process trial; kept whole, so an
   * option added there reaches the Workers too.
   */
  trial: z.object({
    limits: z.object({ maxTurns: z.number(), silenceMs: z.number() }),
    minAgentTurns: z.number().int().nonnegative().optional(),
    label: z.string().optional(),
  }).passthrough(),
  /**
   * Module URLs imported first (a library's own domains register there). A module's
   * `onTrialStart(key)` export, if any, is called as each trial starts.
   */
  modules: z.array(z.string()),
});
export type WorkerSetup = z.infer<typeof WorkerSetupSchema>;

const KeySchema = z.object({
  scenario: z.string(),
  trial: z.number().int(),
  seed: z.string(),
  config_hash: z.string(),
});

/** From the runner to a Worker. */
export const ToWorkerSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("init"), setup: WorkerSetupSchema }),
  z.object({ type: z.literal("trial"), id: z.number().int(), key: KeySchema }),
  /** The pool's answer to a TTS lookup (`shared_tts.ts`): the audio, or null (make it). */
  z.object({
    type: z.literal("tts_answer"),
    id: z.number().int(),
    audio: z.object({
      samples: z.custom<Int16Array>((v) => v instanceof Int16Array),
      sampleRate: z.number().int().positive(),
    }).nullable(),
  }),
]);
export type ToWorker = z.infer<typeof ToWorkerSchema>;

/** From a Worker to the runner (records are built by `runTrial`, so not re-parsed). */
export type FromWorker =
  /**
   * Ready for trials. `loadedAt`: when its module graph had loaded (epoch ms, as
   * `performance.timeOrigin + performance.now()`); `initMs`: how long `init` took (the
   * setup's modules and parsing the worlds).
   */
  | { type: "ready"; loadedAt: number; initMs: number }
  | { type: "init_error"; message: string }
  | { type: "record"; id: number; record: TrialRecord }
  | { type: "trial_error"; id: number; message: string }
  /** An uncaught error: the Worker closes itself. */
  | { type: "crashed"; message: string }
  /** Its TTS cache asks the pool's, or gives it what it made (`shared_tts.ts`). */
  | TtsToPool;

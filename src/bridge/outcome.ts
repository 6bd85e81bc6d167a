/**
 * How a call ended and what was said: the bridge's outcome, as the trial record
 * stores it (`src/runner/trial_record.ts`).
 *
 * @module
 */
import { z } from "zod";
import { PARTICIPANT_ERROR_KINDS } from "./call.ts";

/** Why a trial failed, when it did: a participant's error kinds and the harness's. */
export const ErrorKind = z.enum([
  ...PARTICIPANT_ERROR_KINDS,
  "setup_error",
  "harness_error",
  /** Audio calls: the TTS provider failed (src/speech/speech.ts). */
  "tts_error",
  /** Audio calls: the STT provider failed. */
  "stt_error",
]);
/** Why a trial failed: one of the `ErrorKind` values. */
// The type is generated from the schema above (`deno task schema`): the package
// exports it without naming zod's types, and a test holds the two the same.
import type { ErrorKind as ErrorKindType } from "../../schemas/types.ts";
/** The type of {@link ErrorKind}'s values. */
export type ErrorKind = ErrorKindType;

/** Why the call ended. */
export const StopReason = z.enum([
  "agent_end", // end_conversation or `<exit>` text
  "agent_transfer", // a transfer-to-human tool
  "agent_hangup", // the agent hung up (flows)
  "user_hangup", // the caller side hung up (scripted/LLM caller, flow built-ins)
  "max_duration",
  "silence",
  "max_turns",
  "error",
]);
/** Why the call ended: one of the `StopReason` values. */
// The type is generated from the schema above (`deno task schema`): the package
// exports it without naming zod's types, and a test holds the two the same.
import type { StopReason as StopReasonType } from "../../schemas/types.ts";
/** The type of {@link StopReason}'s values. */
export type StopReason = StopReasonType;

/** One utterance, as the listener heard it. */
export const TurnSchema = z.object({
  speaker: z.enum(["agent", "user"]).describe("who spoke: the agent under test or the caller"),
  text: z.string().describe("the words of the utterance (as heard, when interrupted)"),
  start_ms: z.number().describe("when the utterance began, ms since the call started"),
  end_ms: z.number().describe("when it ended (or was cut off), ms since the call started"),
  voice: z.enum(["MACHINE", "VOICE"]).optional().describe(
    "who the speaker sounds like (flows: a machine such as a menu or voicemail, or a person)",
  ),
  interrupted: z.boolean().optional().describe("the utterance was cut off before its end"),
  /** Characters cut from `text` (see `record_bounds.ts`); the text ends with a marker. */
  truncated_chars: z.number().int().positive().optional().describe(
    "characters cut from text to bound the record; the text ends with a marker",
  ),
});
/** One utterance, as the listener heard it (times in ms since the call started). */
// The type is generated from the schema above (`deno task schema`): the package
// exports it without naming zod's types, and a test holds the two the same.
export type { Turn } from "../../schemas/types.ts";

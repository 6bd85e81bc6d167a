/**
 * The flow trace: what the simulated far end did during one call, stored in the
 * trial record's `flow` field and checked by `expect` (flows.md "Scoring a flow").
 *
 * @module
 */
import { z } from "zod";

/** Why the call ended, as the far end saw it. */
export const FlowEndReason = z.enum([
  /** `livekit/hangup` (or a screener or person that hung up). */
  "hangup",
  /** A node with routes was entered a fourth time. */
  "visit_limit",
  /** The bridge ended the call after 30 s without speech or keys. */
  "silence",
  /** The agent hung up or ended the call. */
  "agent_hangup",
  /**
   * `livekit/unavailable` played its announcement and hung up. Also when the agent
   * hangs up at the instant the announcement ends: once it has been played in full,
   * the end is `unavailable` whoever hangs up first.
   */
  "unavailable",
  /** The voicemail box finished: message sent, or nothing recorded. */
  "voicemail_done",
  /** The bridge's duration limit (flows set a large one; a safety net). */
  "max_duration",
  /** The bridge's turn guard. */
  "max_turns",
  /** The call ended because a participant or the harness failed. */
  "error",
]);
export type FlowEndReason = z.infer<typeof FlowEndReason>;

/** The box `livekit/voicemail` drew for this call. */
export const VoicemailBoxSchema = z.object({
  beep: z.boolean(),
  /** Seconds of agent silence (after it has spoken) that end a recording, 2 to 5. */
  silence_wait_s: z.number().int().min(2).max(5),
  /** Whether a send-or-re-record menu follows the recording. */
  menu: z.boolean(),
});
export type VoicemailBox = z.infer<typeof VoicemailBoxSchema>;

export const VoicemailTakeSchema = z.object({
  transcript: z.string(),
  start_ms: z.number(),
  end_ms: z.number(),
});
export type VoicemailTake = z.infer<typeof VoicemailTakeSchema>;

export const FlowTraceSchema = z.object({
  /** The scenario's start node, or `(persona)` for a persona call. */
  start: z.string(),
  /** Nodes entered, in order (built-ins are not nodes: see `end`). */
  nodes: z.array(z.object({
    name: z.string(),
    at_ms: z.number(),
    /** A hold (`say` + `timeout` only): the caller waits there until the timeout. */
    hold: z.literal(true).optional().describe(
      "a hold (say + timeout only): the agent waits there until the timeout",
    ),
  })),
  /** The agent's keys, grouped by the node that received them. */
  keys: z.array(z.object({ keys: z.string(), at_ms: z.number(), node: z.string() })),
  voicemail: VoicemailBoxSchema.extend({
    takes: z.array(VoicemailTakeSchema),
    outcome: z.enum(["sent", "kept", "no_message"]),
  }).optional(),
  end: z.object({ node: z.string(), reason: FlowEndReason, at_ms: z.number() }),
});
export type FlowTrace = z.infer<typeof FlowTraceSchema>;

/** The trace's `start` for a call with no flow (a persona under `instructions`). */
export const PERSONA_START = "(persona)";

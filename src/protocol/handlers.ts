/**
 * The `client-message` handlers a bot server answers (`t` values), with their
 * argument shapes (`d`). The first six are the reference harness's (same names,
 * same defaults; `tools` and `shared_state_init` are JSON strings); `call_event`
 * carries this project's call events to a hosted participant.
 *
 * @module
 */
import { z } from "zod";
import type { CallEvent, ToolSpec } from "../bridge/call.ts";
import { DTMF_KEYS } from "../dtmf/keys.ts";
import { argumentsJsonSchema, NO_ARGUMENTS } from "../schema/json_schema.ts";

export const HANDLERS = [
  "reset",
  "update_system_prompt",
  "apply_initialization",
  "apply_sync_delta",
  "get_scenario_summary",
  "get_context_history",
  "call_event",
] as const;
export type HandlerName = (typeof HANDLERS)[number];

/** Whether `t` names a handler (an own entry of the list, never a prototype member). */
export function isHandlerName(t: string): t is HandlerName {
  return (HANDLERS as readonly string[]).includes(t);
}

const Side = z.enum(["agent", "user"]);
const Json = z.record(z.string(), z.unknown());

export const ResetArgsSchema = z.looseObject({});

export const UpdateSystemPromptArgsSchema = z.looseObject({
  prompt: z.string(),
  /** JSON string: `{toolName: ctorKwargs}` (reference) or an array of tool specs (ours). */
  tools: z.string().default("{}").describe(
    "JSON-encoded string (not an array): a list of tool specs {name, description, parameters} " +
      "or the reference's object {ToolClassName: constructor kwargs}",
  ),
  add_suffix: z.boolean().default(true).describe(
    "the reference appends its own instructions to the prompt when true",
  ),
  tool_domain: z.string().default("default").describe("the domain: eva_airline, tau2_retail, ..."),
  /** Extension: the scenario's name, for participants that play a scenario. */
  scenario: z.string().optional(),
  /** Extension: which end the hosted participant plays. */
  side: Side.optional(),
  /** Extension: free data for the participant (flows' `userdata`). */
  userdata: Json.optional(),
  /** Extension: the trial's seed. */
  seed: z.string().optional(),
  /** Extension: the scenario's fingerprint; a participant playing it refuses another. */
  scenario_sha256: z.string().optional(),
  /** Extension: the scenario's culture (EVA-Bench's release); default English. */
  language: z.string().optional(),
});
export type UpdateSystemPromptArgs = z.infer<typeof UpdateSystemPromptArgsSchema>;

export const InitActionArgSchema = z.looseObject({
  /** Ignored bot-side: a bot's actions run on its own database. */
  side: z.string().optional(),
  func_name: z.string().min(1),
  arguments: Json.default({}),
});

export const ApplyInitializationArgsSchema = z.looseObject({
  domain: z.string().default("default"),
  shared_state_init: z.string().default("{}").describe(
    "JSON-encoded object: db_path (relative to the bot's data root) or db, today, other keys",
  ),
  /** Checked by the handler, so a non-list is a failure reply rather than an error. */
  actions: z.unknown().default([]),
});

export const ApplySyncDeltaArgsSchema = z.looseObject({
  domain: z.string().default("default"),
  /** Checked by the handler (`SyncDeltaSchema`), so a non-object is a failure reply. */
  delta: z.unknown(),
});

/** `apply_sync_delta`'s `delta`: dotted path (or `bills[<id>].<field>`) → value. */
export const SyncDeltaSchema = z.record(z.string(), z.unknown(), "delta must be an object");

/** `shared_state_init`, once parsed: an object of shared-state keys. */
export const SharedStateInitSchema = z.record(
  z.string(),
  z.unknown(),
  "shared_state_init must be a JSON object",
);

/** The shared-state keys `apply_initialization` reads itself. */
export const SharedStateWorldSchema = z.looseObject({
  /** An inline database. */
  db: z.record(z.string(), z.unknown(), "db must be a JSON object").optional(),
  /** A database file, relative to the bot's data root. */
  db_path: z.string("db_path must be a string").optional(),
  /** The scenario's "today" (tool dates). */
  today: z.unknown().optional(),
});

/** A tool spec as a client may send it in `update_system_prompt.tools` (our list form). */
export const ToolSpecSchema: z.ZodType<ToolSpec> = z.object({
  name: z.string().min(1),
  description: z.string().default(""),
  parameters: z.record(z.string(), z.unknown()).default(() => ({
    ...argumentsJsonSchema(NO_ARGUMENTS),
  })),
});

/**
 * `update_system_prompt.tools`, once parsed: the reference's `{toolName: ctorKwargs}`
 * or a list of tool specs.
 */
export const ToolsArgSchema = z.union([
  z.array(ToolSpecSchema),
  z.record(z.string(), z.unknown()),
], "tools must be a JSON object or list");

export const GetScenarioSummaryArgsSchema = z.looseObject({
  include_db: z.boolean().default(false),
});

export const GetContextHistoryArgsSchema = z.looseObject({});

const at = z.number();
const Voice = z.enum(["MACHINE", "VOICE"]);

/** A `CallEvent` on the wire (`at` is the sender's call time; receivers restamp it). */
export const CallEventSchema: z.ZodType<CallEvent> = z.discriminatedUnion("type", [
  z.object({ type: z.literal("call_start"), at, you_speak_first: z.boolean() }),
  z.object({ type: z.literal("speech_start"), at, voice: Voice.optional() }),
  z.object({
    type: z.literal("speech"),
    at,
    text: z.string(),
    voice: Voice.optional(),
    interrupted: z.boolean().optional(),
  }),
  z.object({ type: z.literal("dtmf"), at, keys: z.string().regex(DTMF_KEYS) }),
  z.object({ type: z.literal("beep"), at }),
  z.object({
    type: z.literal("hangup"),
    at,
    by: z.enum(["agent", "user", "harness"]),
    reason: z.string(),
  }),
]);

/** Result of `apply_initialization` and `apply_sync_delta`. */
export interface ApplyResult {
  success: boolean;
  errors: string[];
}

/** Result of `get_scenario_summary`. */
export interface ScenarioSummary {
  actions: unknown[];
  db_hash: string | null;
  db?: Record<string, unknown> | null;
}

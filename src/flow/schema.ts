/**
 * The `scenarios.yaml` flow group (flows.md "File format"), and the compiled nodes a
 * flow scenario carries in its `flow` field. The file schemas check shape only;
 * `validate.ts` checks meaning (targets, patterns, limits, loops).
 *
 * @module
 */
import { z } from "zod";
import { UserVoiceSchema } from "../speech/user_voice.ts";

/** Deterministic expectations on a flow trial (flows.md "Scoring a flow"). */
export const FlowExpectSchema = z.object({
  path: z.array(z.string()).optional(),
  keys: z.string().optional(),
  end: z.string().optional(),
  message: z.enum(["left", "none"]).optional(),
}).strict();
export type FlowExpect = z.infer<typeof FlowExpectSchema>;

/** The built-in nodes every group can name. */
export const BUILT_INS = ["livekit/hangup", "livekit/unavailable", "livekit/voicemail"] as const;
export type BuiltIn = typeof BUILT_INS[number];

export function isBuiltIn(name: string): name is BuiltIn {
  return (BUILT_INS as readonly string[]).includes(name);
}

/** Node names and scenario labels. */
export const NAME_PATTERN = /^[a-z0-9][a-z0-9_-]*$/;

/** A BCP 47 language tag as flows and scenarios write it: `en`, `en-GB`, `es-MX`. */
export const LANGUAGE_TAG = /^[a-zA-Z]{2,3}(-[A-Za-z0-9]{2,8})*$/;

/**
 * A node's `say`: one text, or one per language (`{en: ..., es: ...}`): a scenario
 * hears the one of its `language` (an exact tag, else its primary subtag: `es-MX`
 * takes `es`); a scenario with no language, `en`, else the first given.
 */
export const SayFileSchema = z.union([
  z.string(),
  z.record(
    z.string().regex(LANGUAGE_TAG, "expected a language tag such as en, es or es-MX"),
    z.string(),
  ),
], {
  error: (issue) =>
    "expected a text, or a text per language ({en: ..., es: ...}, each key a tag such as es-MX)" +
    (Array.isArray(issue.input) ? ", got a list" : ""),
});

/** The text of a per-language `say` for `language` (undefined: it has none in it). */
export function sayIn(
  says: Readonly<Record<string, string>>,
  language: string | undefined,
): string | undefined {
  if (language === undefined) return says.en ?? Object.values(says)[0];
  const lower = Object.fromEntries(Object.entries(says).map(([k, v]) => [k.toLowerCase(), v]));
  return lower[language.toLowerCase()] ?? lower[language.split("-")[0]!.toLowerCase()];
}

/** The longest node timeout, ms. */
export const MAX_TIMEOUT_MS = 20_000;

/** `{ match, to }`. `match` may be null in the file: an unquoted `#` empties it. */
export const RouteFileSchema = z.object({
  match: z.string().nullable(),
  to: z.string(),
}).strict();

/** `{ after, to }`: `after` is `8s`, `1500ms` or a bare number of seconds. */
export const TimeoutFileSchema = z.object({
  after: z.union([z.number(), z.string()]),
  to: z.string(),
}).strict();

export const FlowFileNodeSchema = z.object({
  say: SayFileSchema.optional(),
  instructions: z.string().optional(),
  /** `MACHINE` or `VOICE`, any case; default `VOICE`. */
  speaker: z.string().optional(),
  routes: z.array(RouteFileSchema).optional(),
  then: z.string().optional(),
  timeout: TimeoutFileSchema.optional(),
}).strict();
export type FlowFileNode = z.infer<typeof FlowFileNodeSchema>;

export const FlowFileScenarioSchema = z.object({
  label: z.string(),
  start: z.string().optional(),
  instructions: z.string().optional(),
  userdata: z.record(z.string(), z.unknown()).optional(),
  tags: z.array(z.string()).optional(),
  agent_expectations: z.string().optional(),
  expect: FlowExpectSchema.optional(),
  /** The caller's voice (audio calls), as a scenario's `user.voice`. */
  voice: UserVoiceSchema.optional(),
  /** The call's language (BCP 47): which of the nodes' per-language `say` it hears. */
  language: z.string().regex(LANGUAGE_TAG, "expected a language tag such as en, es or es-MX")
    .optional(),
}).strict();
export type FlowFileScenario = z.infer<typeof FlowFileScenarioSchema>;

/** One `scenarios.yaml` file: a group of scenarios sharing its nodes. */
export const FlowGroupSchema = z.object({
  name: z.string().optional(),
  nodes: z.record(z.string(), FlowFileNodeSchema).optional(),
  scenarios: z.array(FlowFileScenarioSchema),
}).strict();
export type FlowGroup = z.infer<typeof FlowGroupSchema>;

/** A node as the simulator runs it: speaker resolved, timeout in milliseconds. */
export const FlowNodeSchema = z.object({
  /** The text played (for a per-language `say`, the group's default: `en`, else the first). */
  say: z.string().optional(),
  /** A per-language `say` as the file gave it (a scenario's compiled nodes have none). */
  say_languages: z.record(z.string(), z.string()).optional(),
  instructions: z.string().optional(),
  speaker: z.enum(["MACHINE", "VOICE"]),
  routes: z.array(z.object({ match: z.string().min(1), to: z.string() }).strict()).min(1)
    .optional(),
  then: z.string().optional(),
  timeout: z.object({
    after_ms: z.number().positive().max(MAX_TIMEOUT_MS),
    to: z.string(),
  }).strict().optional(),
}).strict();
export type FlowNode = z.infer<typeof FlowNodeSchema>;

/** A flow scenario's `flow` field: node name -> node. */
export const FlowNodesSchema = z.record(z.string(), FlowNodeSchema);
export type FlowNodes = z.infer<typeof FlowNodesSchema>;

/**
 * A timeout's `after` in milliseconds: `8s`, `1.5s`, `1500ms`, or a bare number of
 * seconds. `undefined` when it is none of those.
 */
export function durationMs(after: number | string): number | undefined {
  if (typeof after === "number") return Number.isFinite(after) ? after * 1000 : undefined;
  const m = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*(ms|s)?\s*$/.exec(after);
  if (!m) return undefined;
  const n = Number(m[1]);
  return m[2] === "ms" ? n : n * 1000;
}

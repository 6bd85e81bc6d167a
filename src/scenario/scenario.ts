/**
 * The scenario model: one test case, whatever it was loaded from (an eva dataset
 * line, a tau2 task, a scaffolded scenario file, a flow file). The zod schema is the
 * single source of truth; scenario files are this shape in YAML or JSON.
 *
 * @module
 */
import { CallerNeedsSchema } from "./caller_needs.ts";
import { z } from "zod";
import { FlowExpectSchema } from "../flow/schema.ts";
import { parseLine } from "../audio/line/spec.ts";
import { CallerBehaviourSchema } from "../speech/behaviour.ts";
import { UserVoiceSchema } from "../speech/user_voice.ts";

export { type UserVoice, UserVoiceSchema } from "../speech/user_voice.ts";

export { FlowExpectSchema };
export type { FlowExpect } from "../flow/schema.ts";

export const SIGNALS = [
  "is_action_match",
  "db_state_match",
  "db_state_assertion",
  "nl_assertion",
  "judge_passed",
  "clean_exit",
  "flow_expectation",
  /** callbench's own: identifiers spelled, never read in canonical form (src/score/voice.ts). */
  "voice_readability",
  /**
   * callbench's own, audio calls with an agent that carries its own audio: every agent
   * turn with words had voiced audio of its own, and it spoke after the caller's first
   * turn (src/score/signals.ts). Gates audio calls unless the scenario whitelists it.
   */
  "agent_voiced",
] as const;
export const Signal = z.enum(SIGNALS);
export type Signal = z.infer<typeof Signal>;

export const Side = z.enum(["agent", "user"]);

const Json = z.record(z.string(), z.unknown());

export const InitActionSchema = z.object({
  side: Side,
  func_name: z.string().min(1),
  arguments: Json.default({}),
}).strict();

export const DbStateAssertionSchema = z.object({
  side: Side,
  func_name: z.string().min(1),
  arguments: Json.default({}),
  assert_value: z.unknown(),
  message: z.string().nullish(),
}).strict();
export type DbStateAssertionSpec = z.infer<typeof DbStateAssertionSchema>;

/** A state assertion evaluated on a final world (`Environment.evaluate`). */
export const AssertionVerdictSchema = z.object({
  func_name: z.string().describe("the state assertion's predicate"),
  side: z.enum(["agent", "user"]).describe("whose database it was evaluated on"),
  passed: z.boolean(),
  expected: z.unknown().describe("the value the assertion expects"),
  actual: z.unknown().describe("the value found in the final database"),
  message: z.string().nullable().describe("the predicate's explanation, if any"),
  error: z.string().nullable().describe("why the predicate could not be evaluated, if so"),
});

/** A call the oracle agent makes, in order; `side: "user"` steps are the caller's phone. */
export const ReferenceActionSchema = z.object({
  side: Side.default("agent"),
  name: z.string().min(1),
  arguments: Json.default({}),
  /** Which arguments `is_action_match` compares (tau2 `compare_args`); absent = all. */
  compare_args: z.array(z.string()).nullish(),
}).strict();
/** A call the oracle agent makes (see `ReferenceActionSchema`). */
// The type is generated from the schema above (`deno task schema`): the package
// exports it without naming zod's types, and a test holds the two the same.
export type { ReferenceAction } from "../../schemas/types.ts";

/**
 * Where a world comes from: inline, or a path under the data root. A path may carry
 * the world's initial hash (`sha256`, the canonical DB hash `hash` prints; scaffold
 * records it): a data root whose world differs is then an error, not another world.
 */
export const DbSourceSchema = z.union([
  z.object({ inline: Json }).strict(),
  z.object({
    path: z.string().min(1),
    sha256: z.string().regex(/^[0-9a-f]{64}$/).optional(),
  }).strict(),
]);
export type DbSource = z.infer<typeof DbSourceSchema>;

/** One barge-in the scenario asks of the scripted caller (audio calls). */
function isLineText(text: string): boolean {
  try {
    parseLine(text);
    return true;
  } catch {
    return false;
  }
}

export const BargeInSchema = z.object({
  agent_utterance: z.number().int().positive().describe(
    "Which of the agent's utterances to interrupt, counting from 1 (its greeting, when it speaks first, is 1)",
  ),
  at_ms: z.number().nonnegative().describe(
    "How far into that utterance the caller starts speaking, ms (none if it is over by then)",
  ),
}).strict();
export type BargeIn = z.infer<typeof BargeInSchema>;

/** A scenario: one call to simulate, its world, its two sides and what success means. */
export const ScenarioSchema = z.object({
  /** Unique, `<suite>__<id>` by convention. */
  name: z.string().min(1),
  /** Tool-registry namespace (`eva_airline`, `tau2_telecom`, `flow`, ...). */
  domain: z.string().min(1),
  /** Aggregation bucket; defaults to the name's prefix before `__`. */
  suite: z.string().optional(),
  description: z.string().optional(),
  /** Where the scenario was loaded from: `eva:1.1.2`, `tau2:<task id>`, `file:<path>`. */
  source: z.string().optional(),
  /** The scenario's "today" (YYYY-MM-DD, a real date); tools never read the machine's date. */
  today: z.string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, { error: "expected a date YYYY-MM-DD that exists", abort: true })
    .refine(isCalendarDate, "expected a date YYYY-MM-DD that exists")
    .default("2024-05-15"),
  /** Wall-clock limit of a call in seconds. */
  max_duration_s: z.number().positive().default(900),
  tags: z.array(z.string()).default([]),

  world: z.object({
    db: DbSourceSchema.optional(),
    user_db: DbSourceSchema.optional(),
  }).strict().default({}),
  initialization_actions: z.array(InitActionSchema).default([]),

  /** Everything the agent under test is given: its prompt, tool names, userdata. */
  agent: z.object({
    prompt: z.string().default(""),
    tools: z.array(z.string()).default([]),
    userdata: Json.optional(),
  }).strict().default({ prompt: "", tools: [] }),

  /** The caller's side. */
  user: z.object({
    /** The simulated caller's system prompt (LLM caller). */
    prompt: z.string().default(""),
    /** Phone tools the caller may use (telecom). */
    tools: z.array(z.string()).default([]),
    /** First thing the scripted caller says. */
    opening: z.string().optional(),
    /** Facts the scripted caller gives when asked: label -> value. */
    known_info: z.record(z.string(), z.string()).default({}),
    needs: CallerNeedsSchema.optional().describe(
      "What the scripted caller wants and insists on: it states them when asked what it needs " +
        "or offered a choice, answers preference questions from them, and refuses an option " +
        "that breaks a limit",
    ),
    /** Flow start node (flows.md); the callee side plays the flow. */
    start: z.string().optional(),
    /** Persona instructions (a flow scenario without `start`). */
    instructions: z.string().optional(),
    /** Audio calls: the scripted caller cuts in on these agent utterances. */
    /** Audio calls: the phone line the caller's audio crosses (`eval --line` overrides it). */
    line: z.string().refine(isLineText, "expected a line such as phone+street@10+loss@3%")
      .optional()
      .describe(
        "Audio calls (eval --audio): the phone line the caller's audio crosses, a preset or presets " +
          "joined by + (phone+street@10+loss@3%); a run's own line overrides it; ignored in text calls",
      ),
    voice: UserVoiceSchema.optional().describe(
      "Audio calls: this caller's voice, {name, rate, pitch}; it wins over the run's caller voice " +
        "and voice spread (the record's audio.tts.user_voice_from says which chose)",
    ),
    language: z.string().regex(/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/).optional().describe(
      "Audio calls: the call's language (BCP 47: en, en-GB, es-MX): TTS speaks it (flite only English: " +
        "another language is a tts_error, never English speech), STT requests pass its ISO 639-1 " +
        "code, and a flow's per-language prompts (say: {en: ..., es: ...}) are played in it",
    ),
    behaviour: CallerBehaviourSchema.optional().describe(
      "Audio calls (eval --audio): the caller's full-duplex behaviours, each a chance per opportunity " +
        "(backchannel, filler, pause, side, interrupt, late); a run's own overrides it; ignored in text calls",
    ),
    barge_in: z.array(BargeInSchema).optional().describe(
      "Audio calls (eval --audio): the scripted caller cuts in on these agent utterances " +
        '("Sorry, could you say that again?"); ignored in text calls',
    ),
  }).strict().default({ prompt: "", tools: [], known_info: {} }),

  /** What is checked after the call; never sent to the agent. */
  expect: z.object({
    db_sha256: z.string().regex(/^[0-9a-f]{64}$/).optional(),
    user_db_sha256: z.string().regex(/^[0-9a-f]{64}$/).optional(),
    /** The expected agent DB itself, when the source gives it (eva). */
    db: DbSourceSchema.optional(),
    db_state_assertions: z.array(DbStateAssertionSchema).default([]),
    reference_actions: z.array(ReferenceActionSchema).optional(),
    nl_assertions: z.array(z.string()).default([]),
    agent_expectations: z.string().optional(),
    flow: FlowExpectSchema.optional(),
  }).strict().default({ db_state_assertions: [], nl_assertions: [] }),

  /** The flow group's nodes (name -> node), for flow scenarios; see src/flow. */
  flow: z.record(z.string(), z.unknown()).optional(),
  /** Signals that gate `is_successful` (strict AND over the applicable ones). */
  success_signals: z.array(Signal).min(1),
  /** ACTION_MATCH options, as the reference. */
  action_match: z.object({
    ignore_capitalization: z.boolean().default(false),
    ignore_punctuation: z.boolean().default(false),
    disallow_extra_items: z.boolean().default(false),
  }).strict().optional(),
}).strict();

/** A parsed scenario (defaults filled in). */
// The type is generated from the schema above (`deno task schema`): the package
// exports it without naming zod's types, and a test holds the two the same.
export type { Scenario } from "../../schemas/types.ts";
import type { Scenario } from "../../schemas/types.ts";

/** Whether `s` is `YYYY-MM-DD` naming a day of the calendar (`2024-02-30` is not). */
export function isCalendarDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
}
export type ScenarioInput = z.input<typeof ScenarioSchema>;

/** The aggregation bucket of a scenario: its suite, or its name before the first `__`. */
export function suiteOf(s: Pick<Scenario, "name" | "suite">): string {
  return s.suite ?? s.name.split("__", 1)[0]!;
}

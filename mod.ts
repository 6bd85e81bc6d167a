/**
 * callbench as a library: run simulated calls against agents, own the world they act
 * on, score the result, and serve built-in agents over RTVI.
 *
 * @example Run the bundled scenarios with the oracle agent and score them
 * ```ts
 * import { openDataRoot, participantFactory, runTrials, scoreTrial, selectScenarios } from "./mod.ts";
 *
 * const root = openDataRoot(); // the bundled fixtures (or give a data root path)
 * const { scenarios } = await selectScenarios(root, {});
 * await runTrials({
 *   scenarios,
 *   root,
 *   participants: participantFactory({ agent: "oracle", user: "auto", agentModel: {}, userModel: {} }),
 *   configHash: "example",
 *   trials: 1,
 *   concurrency: 4,
 *   limits: { silenceMs: 30_000, maxTurns: 200 },
 *   onRecord: (record) => console.log(record.key.scenario, scoreTrial(record).is_successful),
 * });
 * ```
 *
 * @module
 */

// The reference-compatible canonical DB hash.
import type { RecordSchema } from "./src/schema/record_schema.ts";
import type {
  JudgeResult,
  ReferenceAction,
  Report,
  RunConcurrency,
  Scenario,
  SpeechError,
  SpeechOptions,
  TrialKey,
  TrialRecord,
  Turn,
  Verdict,
} from "./schemas/types.ts";
import {
  ReferenceActionSchema as referenceActionSchema,
  ScenarioSchema as scenarioSchema,
} from "./src/scenario/scenario.ts";
import { SpeechOptionsSchema as speechOptionsSchema } from "./src/speech/speech_options.ts";
import { speechErrorSchema as speechErrorZod } from "./src/speech/speech.ts";
import {
  RunConcurrencySchema as runConcurrencySchema,
  TrialKeySchema as trialKeySchema,
  TrialRecordSchema as trialRecordSchema,
  TurnSchema as turnSchema,
} from "./src/runner/trial_record.ts";
import {
  JudgeResultSchema as judgeResultSchema,
  VerdictSchema as verdictSchema,
} from "./src/score/verdict.ts";
import { ReportSchema as reportSchema } from "./src/report/summary.ts";

export { canonicalJson } from "./src/canonical/canonical_json.ts";
export { dbHash, dbHashOrNull } from "./src/canonical/hash.ts";

// Domains: the tools and world of a trial. `registerDomain` adds one.
export type {
  ActionRecord,
  Db,
  DiscoverableInfo,
  Domain,
  DomainFiles,
  InitFunction,
  Predicate,
  Side,
  SyncDeltas,
  ToolContext,
  ToolDef,
  ToolEffect,
  ToolErrorResult,
  ToolOutcome,
} from "./src/domains/domain.ts";
export type { HashVariant } from "./src/canonical/hash_variant.ts";
export { getDomain, registerDomain } from "./src/domains/registry.ts";
export { endConversationTool } from "./src/domains/common.ts";

// Scenarios and suites.
export type { Scenario } from "./schemas/types.ts";
/** Checks and parses a scenario (see `Scenario`). */
export const ScenarioSchema: RecordSchema<Scenario> = scenarioSchema;
export { DataRoot, openDataRoot } from "./src/scenario/data_root.ts";
export {
  registerSuite,
  type Selected,
  type Selection,
  type SelectOptions,
  selectScenarios,
} from "./src/scenario/suites.ts";
export type { Gold, LoadOptions, LoadResult, Suite } from "./src/scenario/suite.ts";
export type { ReferenceAction } from "./schemas/types.ts";
/** Checks and parses a reference action. */
export const ReferenceActionSchema: RecordSchema<ReferenceAction> = referenceActionSchema;
export type { AssertionVerdict } from "./src/env/environment.ts";
export {
  InputError,
  type Problem,
  PROBLEM_CODES,
  PROBLEM_OPTIONS,
  type ProblemCode,
  type ProblemOption,
} from "./src/problem/problem.ts";
export { loadScenarioFiles, type ScenarioFilesLoad } from "./src/scenario/files.ts";
export { type FlowFileLoad, loadFlowFile } from "./src/scenario/flow_file.ts";

// Participants: the interface a participant implements, and the built-ins by name.
export type {
  CallEvent,
  CallLine,
  CallSetup,
  CallTime,
  Clock,
  LineAudio,
  Participant,
  ParticipantErrorKind,
  ParticipantInfo,
  ReceivedAudio,
  SayAct,
  SelfWorldReport,
  SelfWorldSetup,
  ToolCallReply,
  ToolSpec,
  Usage,
} from "./src/bridge/call.ts";
export type { SaidUtterance, Voice } from "./src/speech/utterance.ts";
export type { BehaviourKind, CallerBehaviour } from "./src/speech/behaviour.ts";
export type { CallerTiming } from "./src/speech/caller_timing.ts";
export { PARTICIPANT_ERROR_KINDS, ParticipantError } from "./src/bridge/call.ts";
export { RealClock, SimClock } from "./src/clock/clock.ts";
export {
  type LlmSettings,
  participantFactory,
  type ParticipantOptions,
} from "./src/participants/registry.ts";
export { type RealtimeOptions, WIRE_FRAMINGS, type WireFraming } from "./src/transport/mapping.ts";
export {
  REALTIME_AUDIO_FORMATS,
  REALTIME_TURN_DETECTIONS,
  type RealtimeAudioFormat,
  type RealtimeTurnDetection,
} from "./src/protocol/openai_realtime.ts";
export type { ParticipantFactory } from "./src/participants/participant_factory.ts";

// Running, scoring and reporting.
export {
  type DroppedLine,
  planTrials,
  type RunOptions,
  type RunSummary,
  runTrials,
  type WorkerOptions,
} from "./src/runner/runner.ts";
export type { CallLimits } from "./src/bridge/bridge.ts";
export type { ServedTools, ToolsRegistry } from "./src/runner/served_tools.ts";
export type { SpeechOptions } from "./schemas/types.ts";
/** Checks and parses speech options. */
export const SpeechOptionsSchema: RecordSchema<SpeechOptions> = speechOptionsSchema;
export type {
  ErrorKind,
  RunConcurrency,
  StopReason,
  TrialKey,
  TrialRecord,
  Turn,
} from "./schemas/types.ts";
/** Checks and parses how many trials ran at once, as a record says. */
export const RunConcurrencySchema: RecordSchema<RunConcurrency> = runConcurrencySchema;
/** Checks and parses a trial key. */
export const TrialKeySchema: RecordSchema<TrialKey> = trialKeySchema;
/** Checks and parses a trial record (a line of `eval`'s output). */
export const TrialRecordSchema: RecordSchema<TrialRecord> = trialRecordSchema;
/** Checks and parses a turn. */
export const TurnSchema: RecordSchema<Turn> = turnSchema;
export { type ScoreOptions, scoreTrial } from "./src/score/score_trial.ts";
export type { JudgeResult, Verdict } from "./schemas/types.ts";
/** Checks and parses the judge's result. */
export const JudgeResultSchema: RecordSchema<JudgeResult> = judgeResultSchema;
/** Checks and parses a verdict (a line of `score`'s output). */
export const VerdictSchema: RecordSchema<Verdict> = verdictSchema;
export type { Report } from "./schemas/types.ts";
/** Checks and parses a report (`report --format json`). */
export const ReportSchema: RecordSchema<Report> = reportSchema;
export { type ReportedVerdict, summarize, type SummaryOptions } from "./src/report/summary.ts";
export { type MarkdownOptions, renderMarkdown } from "./src/report/markdown.ts";
export { renderHtml } from "./src/report/html.ts";

// The bot server: mount `createApp` on any Hono runtime (Deno, or Node with
// @hono/node-server and @hono/node-ws; `./server` is the same without the rest of the
// library). Listening on Deno is `serve` from `./serve`: not loaded from here.
export { type AppAudio, type AppOptions, createApp } from "./src/server/app.ts";
export type {
  HostedParticipantFactory,
  Session,
  SessionOptions,
  SessionSocket,
  SessionToolsRegistry,
} from "./src/server/session.ts";
export type { SessionStore, SessionStoreOptions } from "./src/server/session_store.ts";
export type { Framing } from "./src/protocol/framing.ts";
export type { SessionAudioOptions } from "./src/server/session_audio.ts";
export type { ConnectionLimits } from "./src/server/connection_guard.ts";

// Speech providers and the PCM they exchange (a call line's audio names them).
export {
  type SpeechProviderInfo,
  type SttProvider,
  type SttRequest,
  type SttResult,
  type TtsProvider,
  type TtsRequest,
  type TtsResult,
} from "./src/speech/speech.ts";
export type { Pcm16 } from "./src/audio/pcm.ts";
export type { SpeechError } from "./schemas/types.ts";
/** Checks and parses a speech provider's error. */
export const speechErrorSchema: RecordSchema<SpeechError> = speechErrorZod;
export type { RecordIssue, RecordParse, RecordSchema } from "./src/schema/record_schema.ts";

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
export { canonicalJson } from "./src/canonical/canonical_json.ts";
export { dbHash, dbHashOrNull } from "./src/canonical/hash.ts";

// Domains: the tools and world of a trial. `registerDomain` adds one.
export type {
  ActionRecord,
  Db,
  Domain,
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
export { getDomain, registerDomain } from "./src/domains/registry.ts";
export { endConversationTool } from "./src/domains/common.ts";

// Scenarios and suites.
export { type Scenario, ScenarioSchema } from "./src/scenario/scenario.ts";
export { DataRoot, openDataRoot } from "./src/scenario/data_root.ts";
export {
  registerSuite,
  type Selected,
  type Selection,
  type SelectOptions,
  selectScenarios,
} from "./src/scenario/suites.ts";
export type { Gold, LoadOptions, LoadResult, Suite } from "./src/scenario/suite.ts";
export { type ReferenceAction, ReferenceActionSchema } from "./src/scenario/scenario.ts";
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
  planTrials,
  type RunOptions,
  type RunSummary,
  runTrials,
  type WorkerOptions,
} from "./src/runner/runner.ts";
export type { CallLimits } from "./src/bridge/bridge.ts";
export type { ServedTools, ToolsRegistry } from "./src/runner/served_tools.ts";
export { type SpeechOptions, SpeechOptionsSchema } from "./src/speech/speech_options.ts";
export {
  type ErrorKind,
  type StopReason,
  type TrialKey,
  TrialKeySchema,
  type TrialRecord,
  TrialRecordSchema,
  type Turn,
  TurnSchema,
} from "./src/runner/trial_record.ts";
export { type ScoreOptions, scoreTrial } from "./src/score/score_trial.ts";
export {
  type JudgeResult,
  JudgeResultSchema,
  type Verdict,
  VerdictSchema,
} from "./src/score/verdict.ts";
export {
  type Report,
  type ReportedVerdict,
  ReportSchema,
  summarize,
  type SummaryOptions,
} from "./src/report/summary.ts";
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
  type SpeechError,
  speechErrorSchema,
  type SpeechProviderInfo,
  type SttProvider,
  type SttRequest,
  type SttResult,
  type TtsProvider,
  type TtsRequest,
  type TtsResult,
} from "./src/speech/speech.ts";
export type { Pcm16 } from "./src/audio/pcm.ts";

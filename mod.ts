/**
 * callbench as a library: run simulated calls against agents, own the world they act
 * on, score the result, and serve built-in agents over RTVI.
 *
 * @example Run the bundled scenarios with the oracle agent and score them
 * ```ts
 * import { openDataRoot, participantFactory, runTrials, scoreTrial, selectScenarios } from "./mod.ts";
 *
 * const root = openDataRoot(undefined, { env: () => undefined }); // the bundled fixtures
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

// Domains and the trial's world.
export type {
  ActionRecord,
  Db,
  Domain,
  Side,
  ToolContext,
  ToolDef,
  ToolOutcome,
} from "./src/domains/domain.ts";
export { getDomain, registerDomain } from "./src/domains/registry.ts";
export { endConversationTool } from "./src/domains/common.ts";
export { type CallResult, Environment, type World } from "./src/env/environment.ts";
export { openEnvironment } from "./src/env/open.ts";

// Scenarios.
export { type Scenario, ScenarioSchema } from "./src/scenario/scenario.ts";
export { DataRoot, openDataRoot } from "./src/scenario/data_root.ts";
export { type Selection, selectScenarios } from "./src/scenario/suites.ts";
export { loadScenarioFiles } from "./src/scenario/files.ts";
export { loadFlowFile } from "./src/flow/load.ts";

// Calls: participants, the bridge and clocks.
export type {
  CallEvent,
  CallLine,
  CallSetup,
  Clock,
  Participant,
  ToolSpec,
} from "./src/bridge/call.ts";
export { ParticipantError } from "./src/bridge/call.ts";
export { RealClock, SimClock } from "./src/bridge/clock.ts";
export { type CallOutcome, runCall } from "./src/bridge/bridge.ts";
export { participantFactory } from "./src/participants/registry.ts";
export { OracleAgent } from "./src/participants/oracle.ts";
export { NoopAgent } from "./src/participants/noop.ts";
export { ScriptedUser } from "./src/participants/scripted_user.ts";
export { NavigatorAgent } from "./src/participants/navigator.ts";
export { ScriptAgent } from "./src/participants/script.ts";
export { LlmAgent } from "./src/participants/llm_agent.ts";
export { LlmUser } from "./src/participants/llm_user.ts";
export { RemoteParticipant } from "./src/participants/remote.ts";
export { FlowCaller } from "./src/flow/caller.ts";
export { OpenAiClient } from "./src/llm/openai.ts";

// Running, scoring and reporting.
export { runTrial } from "./src/runner/run_trial.ts";
export { planTrials, runTrials } from "./src/runner/runner.ts";
export { type TrialRecord, TrialRecordSchema } from "./src/runner/trial_record.ts";
export { scoreTrial } from "./src/score/score_trial.ts";
export { type Verdict, VerdictSchema } from "./src/score/verdict.ts";
export { summarize } from "./src/report/summary.ts";

// The bot server: mount `createApp` on any Hono runtime (Deno, or Node with
// @hono/node-server and @hono/node-ws; `./server` is the same without the rest of the
// library). Listening on Deno is `serve` from `./serve`: not loaded from here.
export { type AppOptions, createApp } from "./src/server/app.ts";

/**
 * One trial: the scenario's world opened for this trial, both ends set up from the
 * scenario (the agent learns only its prompt, tools and userdata), the call run by
 * the bridge, and the trial record assembled from what happened.
 *
 * @module
 */
import type {
  CallSetup,
  Participant,
  SelfWorldReport,
  SelfWorldSetup,
  ToolSpec,
} from "../bridge/call.ts";
import { RealClock, SimClock } from "../clock/clock.ts";
import { pacerLatenessOf } from "../audio/pacer.ts";
import { type CallLimits, type CallOutcome, runCall } from "../bridge/bridge.ts";
import { SEND_DTMF_TOOL, toolSpecs } from "../bridge/tool_specs.ts";
import type { ParticipantFactory } from "../participants/participant_factory.ts";
import { Environment } from "../env/environment.ts";
import { openEnvironment, resolveDb, WORLD_SEED } from "../scenario/open_environment.ts";
import type { DataRoot } from "../scenario/data_root.ts";
import { scenarioSha256 } from "../scenario/identity.ts";
import { type Scenario, suiteOf } from "../scenario/scenario.ts";
import { TRIAL_RECORD_SCHEMA, type TrialKey, type TrialRecord } from "./trial_record.ts";
import { boundRecord } from "./record_bounds.ts";
import { expectedStateDiff } from "./expected_diff.ts";
import { CALLBENCH_VERSION } from "./version.ts";
import { openSpeech, type SpeechOptions } from "../speech/speech_options.ts";
import type { AudioBlock } from "./audio_block.ts";
import { trialLines, trialVoice } from "./trial_line.ts";
import { type ToolsRegistry, ToolsServedAgent } from "./served_tools.ts";

export interface TrialPlan {
  scenario: Scenario;
  key: TrialKey;
  root: DataRoot;
  participants: ParticipantFactory;
  limits: Omit<CallLimits, "maxDurationMs">;
  /** Recorded in the record's expectations for `score`. */
  minAgentTurns?: number;
  /** `eval --label`: recorded in the record. */
  label?: string;
  /**
   * `harness` (default): callbench holds the world and runs every tool. `self`: the
   * agent is a reference-style bot that holds its own world (`eval --agent-world self`).
   */
  agentWorld?: "harness" | "self";
  /**
   * `eval --audio`: both sides speak through TTS (plain data, so a plan can travel
   * to a Worker; the providers are opened once per thread), and the record gets an
   * `audio` block.
   */
  speech?: SpeechOptions;
  /** Audio calls: the folder for `<trial>.wav` (`<out>/audio`); no recording unless set. */
  audioDir?: string;
  /** `eval --tools-server`: the agent's tools are also served over MCP (in-process trials). */
  toolsServer?: ToolsRegistry;
}

export async function runTrial(plan: TrialPlan): Promise<TrialRecord> {
  const wallStart = performance.now();
  const startedAt = new Date().toISOString();
  const { scenario, key } = plan;
  const base = baseRecord(scenario, key, startedAt, plan.label);
  if (plan.minAgentTurns !== undefined) base.expect.min_agent_turns = plan.minAgentTurns;
  let env: Environment;
  let agent: Participant | undefined;
  let user: Participant | undefined;
  try {
    // The world's ids come from the world's seed, not the trial's (see WORLD_SEED).
    const opened = await openEnvironment(plan.root, scenario, WORLD_SEED);
    env = opened.env;
    const agentTools = toolSpecs(env.domain, "agent", scenario.agent.tools);
    if (scenario.domain === "flow" || scenario.user.start) agentTools.push(SEND_DTMF_TOOL);
    const agentSetup: CallSetup = {
      side: "agent",
      scenario: scenario.name,
      domain: scenario.domain,
      prompt: scenario.agent.prompt,
      tools: agentTools,
      ...(scenario.agent.userdata ? { userdata: scenario.agent.userdata } : {}),
      seed: key.seed,
      scenario_sha256: scenarioSha256(scenario, plan.root),
      ...(scenario.user.language ? { language: scenario.user.language } : {}),
      data_root: plan.root.path,
      ...(plan.agentWorld === "self"
        ? { agent_world: selfWorldSetup(plan.root, scenario, env, agentTools, WORLD_SEED) }
        : {}),
    };
    const userSetup: CallSetup = {
      side: "user",
      scenario: scenario.name,
      domain: scenario.domain,
      prompt: scenario.user.prompt,
      tools: toolSpecs(env.domain, "user", scenario.user.tools),
      seed: key.seed,
      scenario_sha256: scenarioSha256(scenario, plan.root),
      ...(scenario.user.language ? { language: scenario.user.language } : {}),
      data_root: plan.root.path,
    };
    const made = await plan.participants.agent(scenario, agentSetup);
    agent = plan.toolsServer ? new ToolsServedAgent(made, plan.toolsServer) : made;
    user = await plan.participants.user(scenario, userSetup);
    const setupMs = performance.now() - wallStart;
    const simulated = plan.participants.deterministic(scenario);
    const isFlow = scenario.domain === "flow";
    const so = plan.speech;
    const providers = so ? await openSpeech(so) : undefined;
    const clock = simulated ? new SimClock() : new RealClock();
    const lines = so ? await trialLines(so, scenario.user.line, key.seed) : undefined;
    const chosen = so ? trialVoice(so, key.seed, scenario.user.voice) : undefined;
    const userVoice = chosen?.voice;
    const outcome = await runCall({
      env,
      agent,
      user,
      agentSetup,
      userSetup,
      clock,
      limits: { ...plan.limits, maxDurationMs: scenario.max_duration_s * 1000 },
      firstSpeaker: isFlow ? "user" : "agent",
      timedSpeech: simulated || isFlow || so !== undefined,
      ...(so && providers
        ? {
          speech: {
            tts: providers.tts,
            voices: {
              ...(so.voices.agent ? { agent: so.voices.agent } : {}),
              ...(userVoice ? { user: userVoice } : {}),
            },
            dtmf: so.dtmf,
            ...(providers.stt ? { stt: providers.stt } : {}),
            sampleRate: so.sample_rate,
            ...(lines ? { line: lines.line } : {}),
            ...(scenario.user.language ? { language: scenario.user.language } : {}),
          },
        }
        : {}),
    });
    let audio: AudioBlock | undefined;
    if (so && providers) {
      const { measureAudio, writeRecording } = await import("./audio_metrics.ts");
      audio = await measureAudio(outcome, {
        tts: {
          provider: providers.tts.info.provider,
          ...(providers.tts.info.model ? { model: providers.tts.info.model } : {}),
          voices: { agent: so.voices.agent ?? null, user: userVoice ?? null },
          ...(chosen ? { user_voice_from: chosen.from } : {}),
        },
        stt: so.stt.provider,
        dtmf: so.dtmf,
        sample_rate: so.sample_rate,
      });
      const late = pacerLatenessOf(clock);
      if (late) {
        audio.pacer_late_ms = { chunks: late.count, p50: late.p50, p99: late.p99, max: late.max };
      }
      if (lines) audio.line = lines.block(outcome);
      if (outcome.callerEvents?.length) audio.caller_events = outcome.callerEvents;
      if (plan.audioDir) {
        const fill = lines?.line.user;
        Object.assign(
          audio,
          await writeRecording(
            outcome,
            so.sample_rate,
            plan.audioDir,
            key,
            fill ? (x, from, at, rate) => fill.fill(x, from, at, rate) : undefined,
          ),
        );
      }
    }
    const flowTrace = user.flowTrace?.();
    let report: SelfWorldReport | undefined;
    if (plan.agentWorld === "self") {
      report = await agent.worldReport?.() ?? { db_hash: null, actions: [] };
    }
    const record = completeRecord(base, env, scenario, outcome, agent, user, flowTrace, report, {
      setup_ms: setupMs,
      call_ms: performance.now() - wallStart - setupMs,
      wall_ms: performance.now() - wallStart,
    });
    // A wrong final world: say where it is wrong (the passing trials pay nothing).
    const expected = scenario.expect.db_sha256;
    if (!report && expected && record.final.db_sha256 !== expected) {
      const diff = await expectedStateDiff(plan.root, scenario, env);
      if (diff) record.final.db_diff = diff;
    }
    return boundRecord({
      ...record,
      clock: simulated ? "simulated" : "real",
      ...(audio ? { audio } : {}),
    });
  } catch (e) {
    return {
      ...base,
      status: "error",
      error: { kind: "setup_error", message: e instanceof Error ? e.message : String(e) },
      stop_reason: "error",
      participants: {
        agent: agent?.info ?? { kind: "unknown" },
        user: user?.info ?? { kind: "unknown" },
      },
      timings: {
        setup_ms: performance.now() - wallStart,
        call_ms: 0,
        wall_ms: performance.now() - wallStart,
      },
    };
  } finally {
    await Promise.allSettled([agent?.close(), user?.close()]);
  }
}

/**
 * The record of a trial that could not run at all (e.g. the Worker running it broke):
 * status `error`, no call, the scenario's expectations kept for `score`.
 */
export function failedRecord(
  plan: Pick<TrialPlan, "scenario" | "key" | "label" | "minAgentTurns">,
  error: NonNullable<TrialRecord["error"]>,
): TrialRecord {
  const base = baseRecord(plan.scenario, plan.key, new Date().toISOString(), plan.label);
  if (plan.minAgentTurns !== undefined) base.expect.min_agent_turns = plan.minAgentTurns;
  return { ...base, status: "error", error, stop_reason: "error" };
}

function baseRecord(
  scenario: Scenario,
  key: TrialKey,
  startedAt: string,
  label: string | undefined,
): TrialRecord {
  return {
    schema: TRIAL_RECORD_SCHEMA,
    callbench_version: CALLBENCH_VERSION,
    key,
    ...(label !== undefined ? { label } : {}),
    domain: scenario.domain,
    suite: suiteOf(scenario),
    ...(scenario.user.language ? { language: scenario.user.language } : {}),
    status: "completed",
    world_owner: "harness",
    stop_reason: "error",
    clean_exit: false,
    started_at: startedAt,
    duration_ms: 0,
    turns: [],
    dtmf: [],
    tool_calls: [],
    actions: [],
    final: { db_sha256: null },
    assertions: [],
    latency: [],
    usage: {
      agent: { calls: 0, prompt_tokens: 0, completion_tokens: 0 },
      user: { calls: 0, prompt_tokens: 0, completion_tokens: 0 },
    },
    participants: { agent: { kind: "unknown" }, user: { kind: "unknown" } },
    expect: {
      success_signals: scenario.success_signals,
      ...(scenario.expect.db_sha256 ? { db_sha256: scenario.expect.db_sha256 } : {}),
      ...(scenario.expect.user_db_sha256 ? { user_db_sha256: scenario.expect.user_db_sha256 } : {}),
      db_state_assertions: scenario.expect.db_state_assertions,
      ...(scenario.expect.reference_actions
        ? { reference_actions: scenario.expect.reference_actions }
        : {}),
      nl_assertions: scenario.expect.nl_assertions,
      ...(scenario.expect.agent_expectations
        ? { agent_expectations: scenario.expect.agent_expectations }
        : {}),
      ...(scenario.expect.flow ? { flow: scenario.expect.flow } : {}),
      ...(scenario.action_match ? { action_match: scenario.action_match } : {}),
    },
    timings: { setup_ms: 0, call_ms: 0, wall_ms: 0 },
  };
}

function completeRecord(
  base: TrialRecord,
  env: Environment,
  scenario: Scenario,
  outcome: CallOutcome,
  agent: Participant,
  user: Participant,
  flowTrace: unknown,
  report: SelfWorldReport | undefined,
  timings: TrialRecord["timings"],
): TrialRecord {
  const hashes = env.hashes();
  const self = report ? selfReported(env, scenario, report) : undefined;
  return {
    ...base,
    status: outcome.error ? "error" : "completed",
    ...(outcome.error
      ? {
        error: {
          kind: outcome.error.kind,
          message: `${outcome.error.side}: ${outcome.error.message}`,
        },
      }
      : {}),
    stop_reason: outcome.stopReason,
    clean_exit: outcome.cleanExit,
    duration_ms: outcome.durationMs,
    turns: outcome.turns,
    dtmf: outcome.dtmf,
    tool_calls: outcome.toolCalls,
    ...(self ? { world_owner: "agent" as const } : {}),
    actions: self?.actions ?? env.actions,
    final: {
      db_sha256: self ? self.db_sha256 : hashes.db_sha256,
      ...(hashes.user_db_sha256 !== undefined ? { user_db_sha256: hashes.user_db_sha256 } : {}),
    },
    assertions: self?.assertions ?? env.evaluate(scenario.expect.db_state_assertions),
    latency: outcome.latency,
    usage: outcome.usage,
    participants: { agent: agent.info, user: user.info },
    ...(flowTrace ? { flow: flowTrace as Record<string, unknown> } : {}),
    timings,
  };
}

/**
 * How the reference runner configures a bot that owns its world (reference-harness.md
 * §1.4, §5): the tools under their reference names (class-style where the domain has
 * them, `{}` kwargs), the world by its path under the data root the bot shares (or
 * inline when the scenario holds it inline), the agent-side initialization actions,
 * and for dual-control domains the first sync's agent delta.
 */
export function selfWorldSetup(
  root: DataRoot,
  scenario: Scenario,
  env: Environment,
  agentTools: readonly ToolSpec[],
  seed: string,
): SelfWorldSetup {
  const tools: SelfWorldSetup["tools"] = {};
  for (const spec of agentTools) {
    const tool = env.tool("agent", spec.name);
    if (!tool) continue; // send_dtmf and other bridge tools: the reference has none
    tools[tool.aliases?.find((a) => /Tool$/.test(a)) ?? tool.name] = {};
  }
  const db = scenario.world.db;
  const init = db === undefined ? {} : "path" in db ? { db_path: db.path } : { db: db.inline };
  const actions = scenario.initialization_actions.filter((a) => a.side === "agent");
  let syncDelta: Record<string, unknown> | undefined;
  if (env.domain.sync && scenario.world.user_db) {
    // The runner's shadow copies: initial worlds, initialization, one sync.
    const shadow = new Environment(env.domain, {
      db: db ? resolveDb(root, db) : {},
      user_db: resolveDb(root, scenario.world.user_db),
    }, { today: scenario.today, seed });
    shadow.initialize(scenario.initialization_actions);
    const deltas = shadow.sync();
    if (deltas && Object.keys(deltas.agent).length > 0) syncDelta = deltas.agent;
  }
  return {
    tools,
    shared_state_init: init as Record<string, unknown>,
    actions,
    ...(syncDelta ? { sync_delta: syncDelta } : {}),
    include_db: scenario.expect.db_state_assertions.length > 0,
  };
}

/** The record's world from a bot's own report: its hash, its actions, its DB. */
function selfReported(env: Environment, scenario: Scenario, report: SelfWorldReport) {
  const actions = [
    // The reference stamps `side: "agent"` unless a record has its own.
    ...report.actions.map((a) => ({ side: "agent", ...a })),
    ...env.actions.filter((a) => a.side === "user"),
  ];
  const world = new Environment(env.domain, {
    db: (report.db ?? {}) as Record<string, unknown>,
    ...(env.userDb ? { user_db: env.userDb } : {}),
  }, env.options);
  return {
    db_sha256: report.db_hash,
    actions,
    assertions: world.evaluate(scenario.expect.db_state_assertions),
  };
}

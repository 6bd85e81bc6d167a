/**
 * Participants by name: `--agent oracle|noop|llm|navigator|script:FILE|ws://...` and
 * `--user auto|scripted|llm|flow|ws://...`. Modules load on first use.
 *
 * @module
 */
import type { CallLine, CallSetup, Participant, Usage } from "../bridge/call.ts";
import { InputError } from "../problem/problem.ts";
import type { ParticipantFactory } from "./participant_factory.ts";
import type { Scenario } from "../scenario/scenario.ts";
import { NoopAgent } from "./noop.ts";
import { OracleAgent } from "./oracle.ts";
import { ScriptedUser } from "./scripted_user.ts";

export const AGENT_KINDS = [
  "oracle",
  "noop",
  "llm",
  "navigator",
  "script:FILE",
  "ws://HOST:PORT/PATH",
];
export const USER_KINDS = ["auto", "scripted", "llm", "flow", "ws://HOST:PORT/PATH"];

/** Model settings for LLM participants (agent, caller, flow persona). */
export interface LlmSettings {
  baseUrl?: string;
  apiKey?: string;
  model?: string;
  temperature?: number;
  maxTokens?: number;
  seed?: number;
}

export interface ParticipantOptions {
  agent: string;
  user: string;
  agentModel: LlmSettings;
  userModel: LlmSettings;
  /** Remote participants: connection attempts before `agent_unreachable` (default 5). */
  connectAttempts?: number;
  /** Remote agents: text sent when the call starts (reference-style bots wait for one). */
  kick?: string;
}

const DETERMINISTIC_AGENTS = new Set(["oracle", "noop", "navigator"]);

function isRemote(spec: string): boolean {
  return spec.startsWith("ws://") || spec.startsWith("wss://");
}

/** Checks the participant names up front, so a typo fails before any call. */
export function checkParticipantSpecs(opts: ParticipantOptions): void {
  const a = opts.agent;
  if (!(DETERMINISTIC_AGENTS.has(a) || a === "llm" || a.startsWith("script:") || isRemote(a))) {
    throw new InputError({
      field: "--agent",
      message: `unknown agent "${a}"`,
      hint: `one of ${AGENT_KINDS.join(", ")}`,
    });
  }
  const u = opts.user;
  if (!(["auto", "scripted", "llm", "flow"].includes(u) || isRemote(u))) {
    throw new InputError({
      field: "--user",
      message: `unknown user "${u}"`,
      hint: `one of ${USER_KINDS.join(", ")}`,
    });
  }
  for (
    const [flag, spec, model] of [["--agent", a, opts.agentModel], [
      "--user",
      u,
      opts.userModel,
    ]] as const
  ) {
    if (spec === "llm" && (!model.model || !model.baseUrl)) {
      throw new InputError({
        field: flag,
        message: `"llm" needs a model and a base URL`,
        hint:
          "set --agent-model/--user-model and --base-url, or OPENAI_BASE_URL and CALLBENCH_AGENT_MODEL/CALLBENCH_USER_MODEL",
      });
    }
  }
}

export function participantFactory(opts: ParticipantOptions): ParticipantFactory {
  checkParticipantSpecs(opts);
  return {
    deterministic(scenario) {
      const agentOk = DETERMINISTIC_AGENTS.has(opts.agent) || opts.agent.startsWith("script:");
      const userKind = resolveUser(opts.user, scenario);
      const userOk = userKind === "scripted" || (userKind === "flow" && !opts.userModel.model);
      return agentOk && userOk;
    },
    agent: (scenario, setup) => makeAgent(opts, scenario, setup),
    user: (scenario, setup) => makeUser(opts, scenario, setup),
  };
}

function resolveUser(spec: string, scenario: Scenario): string {
  if (spec === "auto" || spec === "scripted") {
    return scenario.domain === "flow" ? "flow" : "scripted";
  }
  return spec;
}

async function makeAgent(
  opts: ParticipantOptions,
  scenario: Scenario,
  _setup: CallSetup,
): Promise<Participant> {
  const spec = opts.agent;
  if (spec === "oracle") return new OracleAgent(scenario.expect.reference_actions ?? []);
  if (spec === "noop") return new NoopAgent();
  if (isRemote(spec)) {
    const { RemoteParticipant } = await import("./remote.ts");
    return new RemoteParticipant({
      url: spec,
      side: "agent",
      connectAttempts: opts.connectAttempts,
      kick: opts.kick,
    });
  }
  if (spec === "navigator") {
    const { NavigatorAgent } = await import("./navigator.ts");
    return new NavigatorAgent();
  }
  if (spec.startsWith("script:")) {
    const { ScriptAgent } = await import("./script.ts");
    return await ScriptAgent.fromFile(spec.slice("script:".length));
  }
  const { LlmAgent } = await import("./llm_agent.ts");
  return new LlmAgent(llmOptions(opts.agentModel));
}

async function makeUser(
  opts: ParticipantOptions,
  scenario: Scenario,
  _setup: CallSetup,
): Promise<Participant> {
  const kind = resolveUser(opts.user, scenario);
  if (isRemote(kind)) {
    const { RemoteParticipant } = await import("./remote.ts");
    return new RemoteParticipant({
      url: kind,
      side: "user",
      connectAttempts: opts.connectAttempts,
    });
  }
  if (kind === "flow") {
    const { FlowCaller } = await import("./flow_caller.ts");
    if (!opts.userModel.model) return new FlowCaller(scenario, {});
    // The persona's tokens count as the caller side's usage, on the caller's line.
    const lineOf: { line?: CallLine } = {};
    const persona = await personaSpeaker(opts.userModel, (u) => lineOf.line?.usage(u));
    const caller = new FlowCaller(scenario, { persona });
    return {
      info: caller.info,
      start: (line, setup) => {
        lineOf.line = line;
        return caller.start(line, setup);
      },
      onEvent: (event) => caller.onEvent(event),
      close: () => caller.close(),
      flowTrace: () => caller.flowTrace(),
    } as Participant;
  }
  if (kind === "llm") {
    const { LlmUser } = await import("./llm_user.ts");
    return new LlmUser(llmOptions(opts.userModel));
  }
  return new ScriptedUser({ opening: scenario.user.opening, knownInfo: scenario.user.known_info });
}

async function personaSpeaker(settings: LlmSettings, onUsage: (u: Usage) => void) {
  const { llmPersonaSpeaker } = await import("./llm_persona.ts");
  const { OpenAiClient } = await import("../llm/openai.ts");
  const client = new OpenAiClient({
    baseUrl: settings.baseUrl!,
    apiKey: settings.apiKey,
    model: settings.model!,
  });
  return llmPersonaSpeaker(client, {
    model: settings.model!,
    temperature: settings.temperature,
    maxTokens: settings.maxTokens,
    seed: settings.seed,
    onUsage,
  });
}

function llmOptions(s: LlmSettings) {
  return {
    baseUrl: s.baseUrl!,
    apiKey: s.apiKey,
    model: s.model!,
    temperature: s.temperature,
    maxTokens: s.maxTokens,
    seed: s.seed,
  };
}

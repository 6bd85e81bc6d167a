/**
 * The participant kinds: one entry per kind (its name, its side, what it needs, and
 * its factory). `eval` (src/participants/registry.ts) and `serve`
 * (src/commands/serve.ts) both make their participants from this table, so adding a
 * kind is one entry here. Modules load on first use.
 *
 * @module
 */
import type { RealtimeOptions, WireFraming } from "../transport/mapping.ts";
import type { CallLine, CallSetup, Participant, Usage } from "../bridge/call.ts";
import { closest, InputError } from "../problem/problem.ts";
import type { Side } from "../domains/domain.ts";
import type { Scenario } from "../scenario/scenario.ts";

/** Model settings for LLM participants (agent, caller, flow persona). */
export interface LlmSettings {
  /** Base URL of an OpenAI-compatible chat completions API. */
  baseUrl?: string;
  /** The API key sent to it, if the endpoint needs one. */
  apiKey?: string;
  /** The model name sent with each request. */
  model?: string;
  /** Sampling temperature (the API's default when absent). */
  temperature?: number;
  /** Cap on tokens per reply (`max_tokens`). */
  maxTokens?: number;
  /** Sampling seed, for endpoints that honour one. */
  seed?: number;
}

/**
 * What a kind needs to be made: `model` (an LLM and its base URL), `scenario` (it plays
 * the scenario: reference actions, caller facts), `file` (the text after `script:`),
 * `url` (a remote participant's WebSocket URL), `audio` (it hears the other end's
 * audio: audio calls only).
 */
export type KindNeed = "model" | "scenario" | "file" | "url" | "audio";

/** What a kind's factory is given. */
export interface KindContext {
  /** The participant spec as written (`oracle`, `script:FILE`, `ws://...`). */
  spec: string;
  setup: CallSetup;
  /** The scenario, for kinds that need one. */
  scenario?: Scenario;
  /** Model settings of this side. */
  model: LlmSettings;
  /** Remote participants: connection attempts before `agent_unreachable`. */
  connectAttempts?: number;
  /** Remote agents: text sent when the call starts. */
  kick?: string;
  /** Remote participants: the wire mapping (`eval --framing`; else the URL's `?framing=`). */
  framing?: WireFraming;
  /** Remote agents on the realtime wire: the API key (an `Authorization` header; never recorded). */
  agentKey?: string;
  /** Remote agents on the realtime wire: the session's audio format and turn detection. */
  realtime?: RealtimeOptions;
  /** Audio calls: the scripted caller's chance per agent utterance to cut in (`--barge-in`). */
  bargeIn?: number;
  /** The call is an audio call (`eval --audio`): the scenario's `user.barge_in` applies. */
  audio?: boolean;
  /** Audio calls: remote agents also get the caller's words and turn ends (debugging). */
  transcripts?: boolean;
}

/** One participant kind. */
export interface ParticipantKind {
  /** The name, or for parametrised kinds the prefix (`script:`, `ws://`, `wss://`). */
  readonly name: string;
  /** How help texts show it (`script:FILE`). */
  readonly usage: string;
  readonly side: Side;
  readonly needs: readonly KindNeed[];
  /** Whether `serve` can host it. */
  readonly hostable: boolean;
  /** Whether it is deterministic with these model settings (the call may run on a simulated clock). */
  deterministic(model: LlmSettings): boolean;
  make(ctx: KindContext): Promise<Participant>;
}

const always = () => true;
const never = () => false;

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

function remoteKind(prefix: string, side: Side): ParticipantKind {
  return {
    name: prefix,
    usage: `${prefix}HOST:PORT/PATH`,
    side,
    needs: ["url"],
    hostable: false,
    deterministic: never,
    async make(ctx) {
      const { RemoteParticipant } = await import("./remote.ts");
      return new RemoteParticipant({
        url: ctx.spec,
        side,
        connectAttempts: ctx.connectAttempts,
        ...(side === "agent" ? { kick: ctx.kick } : {}),
        ...(side === "agent" && ctx.transcripts ? { transcripts: true } : {}),
        ...(ctx.framing !== undefined ? { framing: ctx.framing } : {}),
        ...(side === "agent" && ctx.agentKey !== undefined ? { apiKey: ctx.agentKey } : {}),
        ...(ctx.realtime !== undefined ? { realtime: ctx.realtime } : {}),
      });
    },
  };
}

function requireScenario(ctx: KindContext): Scenario {
  if (!ctx.scenario) throw new Error(`${ctx.spec} needs a scenario`);
  return ctx.scenario;
}

/** Every kind, agents first. */
export const PARTICIPANT_KINDS: readonly ParticipantKind[] = [
  {
    name: "oracle",
    usage: "oracle",
    side: "agent",
    needs: ["scenario"],
    hostable: true,
    deterministic: always,
    async make(ctx) {
      const { OracleAgent } = await import("./oracle.ts");
      return new OracleAgent(requireScenario(ctx).expect.reference_actions ?? []);
    },
  },
  {
    name: "vad-oracle",
    usage: "vad-oracle",
    side: "agent",
    needs: ["scenario", "audio"],
    // It hears the call's audio, which a served participant is not given.
    hostable: false,
    deterministic: always,
    async make(ctx) {
      const { VadOracleAgent } = await import("./vad_oracle.ts");
      return new VadOracleAgent(requireScenario(ctx).expect.reference_actions ?? []);
    },
  },
  {
    name: "noop",
    usage: "noop",
    side: "agent",
    needs: [],
    hostable: true,
    deterministic: always,
    async make() {
      const { NoopAgent } = await import("./noop.ts");
      return new NoopAgent();
    },
  },
  {
    name: "llm",
    usage: "llm",
    side: "agent",
    needs: ["model"],
    hostable: true,
    deterministic: never,
    async make(ctx) {
      const { LlmAgent } = await import("./llm_agent.ts");
      return new LlmAgent(llmOptions(ctx.model));
    },
  },
  {
    name: "navigator",
    usage: "navigator",
    side: "agent",
    needs: [],
    hostable: true,
    deterministic: always,
    async make() {
      const { NavigatorAgent } = await import("./navigator.ts");
      return new NavigatorAgent();
    },
  },
  {
    name: "script:",
    usage: "script:FILE",
    side: "agent",
    needs: ["file"],
    hostable: false,
    deterministic: always,
    async make(ctx) {
      const { ScriptAgent } = await import("./script.ts");
      return await ScriptAgent.fromFile(ctx.spec.slice("script:".length));
    },
  },
  remoteKind("ws://", "agent"),
  remoteKind("wss://", "agent"),
  {
    name: "sip:",
    usage: "sip:USER@HOST[:PORT]",
    side: "agent",
    needs: ["url"],
    hostable: false,
    deterministic: never,
    async make(ctx) {
      const { SipParticipant } = await import("../transport/sip.ts");
      return new SipParticipant({ uri: ctx.spec, side: "agent" });
    },
  },
  {
    name: "scripted",
    usage: "scripted",
    side: "user",
    needs: ["scenario"],
    hostable: true,
    deterministic: always,
    async make(ctx) {
      const { ScriptedUser } = await import("./scripted_user.ts");
      const { user } = requireScenario(ctx);
      return new ScriptedUser({
        opening: user.opening,
        knownInfo: user.known_info,
        ...(user.needs ? { needs: user.needs } : {}),
        ...(ctx.bargeIn ? { bargeIn: ctx.bargeIn } : {}),
        // The scenario's barge-ins are for audio calls only.
        ...(ctx.audio && user.barge_in
          ? {
            bargeIns: user.barge_in.map((b) => ({
              agentUtterance: b.agent_utterance,
              atMs: b.at_ms,
            })),
          }
          : {}),
      });
    },
  },
  {
    name: "llm",
    usage: "llm",
    side: "user",
    needs: ["model"],
    hostable: true,
    deterministic: never,
    async make(ctx) {
      const { LlmUser } = await import("./llm_user.ts");
      return new LlmUser(llmOptions(ctx.model));
    },
  },
  {
    name: "flow",
    usage: "flow",
    side: "user",
    needs: ["scenario"],
    hostable: true,
    // Without a persona model the flow callee is a state machine.
    deterministic: (model) => !model.model,
    make: (ctx) => makeFlowCaller(requireScenario(ctx), ctx.model),
  },
  remoteKind("ws://", "user"),
  remoteKind("wss://", "user"),
];

/** `auto` on the user side: the flow callee for flow scenarios, else the scripted caller. */
export const AUTO_USER = "auto";

function matches(kind: ParticipantKind, spec: string): boolean {
  return kind.name.endsWith(":") || kind.name.endsWith("://")
    ? spec.startsWith(kind.name) && spec.length > kind.name.length
    : spec === kind.name;
}

/** The kinds of one side (those `serve` can host, with `hosted`). */
export function kindsOf(side: Side, options: { hosted?: boolean } = {}): ParticipantKind[] {
  return PARTICIPANT_KINDS.filter((k) => k.side === side && (!options.hosted || k.hostable));
}

/** How a help text lists one side's kinds. */
export function kindUsages(side: Side, options: { hosted?: boolean } = {}): string[] {
  const names = kindsOf(side, options).map((k) => k.usage);
  return [...new Set(side === "user" && !options.hosted ? [AUTO_USER, ...names] : names)];
}

/**
 * The kind `spec` names on `side`, or an `InputError` about the option `side` naming
 * the closest known name (an unknown kind is never taken for an LLM).
 */
export function findKind(
  spec: string,
  side: Side,
  options: { hosted?: boolean } = {},
): ParticipantKind {
  const kinds = kindsOf(side, options);
  const found = kinds.find((k) => matches(k, spec));
  if (found) return found;
  const names = kindUsages(side, options);
  const near = closest(spec, kinds.map((k) => k.name.replace(/:\/?\/?$/, "")));
  const known = PARTICIPANT_KINDS.filter((k) => matches(k, spec));
  const message = known.some((k) => k.side === side)
    ? `${side} "${spec}" cannot be hosted by serve`
    : known.length > 0
    ? `"${spec}" is ${known[0]!.side === "agent" ? "an agent" : "a user"}, not ${
      side === "agent" ? "an agent" : "a user"
    }`
    : `unknown ${side} "${spec}"`;
  throw new InputError({
    option: side,
    message,
    hint: near && near !== spec ? `did you mean "${near}"?` : `one of ${names.join(", ")}`,
  });
}

async function makeFlowCaller(scenario: Scenario, model: LlmSettings): Promise<Participant> {
  const { FlowCaller } = await import("./flow_caller.ts");
  if (!model.model) return new FlowCaller(scenario, {});
  // The persona's tokens count as the caller side's usage, on the caller's line.
  const lineOf: { line?: CallLine } = {};
  const persona = await personaSpeaker(model, (u) => lineOf.line?.usage(u));
  const caller = new FlowCaller(scenario, { persona });
  const participant: Participant = {
    info: caller.info,
    start: (line, setup) => {
      lineOf.line = line;
      return caller.start(line, setup);
    },
    onEvent: (event) => caller.onEvent(event),
    close: () => caller.close(),
    flowTrace: () => caller.flowTrace(),
  };
  return participant;
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

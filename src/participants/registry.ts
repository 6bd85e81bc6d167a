/**
 * Participants by name for `eval`: `--agent oracle|vad-oracle|noop|llm|navigator|script:FILE|ws://...`
 * and `--user auto|scripted|llm|flow|ws://...`, made from the one table of kinds
 * (src/participants/kinds.ts) that `serve` uses too.
 *
 * @module
 */
import type { CallSetup, Participant } from "../bridge/call.ts";
import { InputError } from "../problem/problem.ts";
import type { Side } from "../domains/domain.ts";
import type { ParticipantFactory } from "./participant_factory.ts";
import type { Scenario } from "../scenario/scenario.ts";
import type { RealtimeOptions, WireFraming } from "../transport/mapping.ts";
import { type CallerBehaviour, hasBehaviour } from "../speech/behaviour.ts";
import type { CallerTiming } from "../speech/caller_timing.ts";
import { AUTO_USER, findKind, type LlmSettings, type ParticipantKind } from "./kinds.ts";

export type { LlmSettings } from "./kinds.ts";

/** Both ends of a run by spec, for `participantFactory`; serializable (Workers rebuild it). */
export interface ParticipantOptions {
  /** The agent spec, as `eval --agent` takes it (`oracle`, `llm`, `script:FILE`, `ws://...`). */
  agent: string;
  /** The user spec, as `eval --user` takes it (`auto`, `scripted`, `llm`, `flow`, `ws://...`). */
  user: string;
  /** Model settings of the agent side (LLM kinds). */
  agentModel: LlmSettings;
  /** Model settings of the user side (LLM caller, flow persona). */
  userModel: LlmSettings;
  /** Remote participants: connection attempts before `agent_unreachable` (default 5). */
  connectAttempts?: number;
  /** Remote agents: text sent when the call starts (reference-style bots wait for one). */
  kick?: string;
  /** Remote agents: the wire mapping (`eval --framing`; else the URL's `?framing=`). */
  framing?: WireFraming;
  /** Remote agents on the realtime wire: the API key (an `Authorization` header; never recorded). */
  agentKey?: string;
  /** Remote agents on the realtime wire: the session's audio format and turn detection. */
  realtime?: RealtimeOptions;
  /** Audio calls: the scripted caller's chance per agent utterance to cut in (`--barge-in`). */
  bargeIn?: number;
  /** The calls are audio calls (`eval --audio`): scenarios' `user.barge_in` applies. */
  audio?: boolean;
  /** Audio calls: remote agents also get the caller's words and turn ends (debugging). */
  transcripts?: boolean;
  /**
   * Audio calls: the caller's behaviours (`src/speech/behaviour.ts`), else the
   * scenario's `user.behaviour`; acted out around the scripted or LLM caller.
   */
  behaviour?: CallerBehaviour;
  /**
   * Audio calls: when the scripted or LLM caller takes its turn (`src/speech/caller_timing.ts`;
   * default its `DEFAULT_CALLER_TIMING`).
   */
  callerTiming?: CallerTiming;
}

/** The kind a user spec plays in `scenario` (`auto` and `scripted` are the flow callee on flows). */
function userSpec(spec: string, scenario: Scenario): string {
  if (spec === AUTO_USER || spec === "scripted") {
    return scenario.domain === "flow" ? "flow" : "scripted";
  }
  return spec;
}

function checkModel(kind: ParticipantKind, side: Side, model: LlmSettings): void {
  if (kind.needs.includes("model") && (!model.model || !model.baseUrl)) {
    throw new InputError({
      option: side,
      code: "model_missing",
      message: `"${kind.name}" needs a model and a base URL`,
      hint: `give the ${side} model settings a model and a base URL`,
    });
  }
}

/** Checks the participant names up front, so a typo fails before any call. */
export function checkParticipantSpecs(opts: ParticipantOptions): void {
  const agent = findKind(opts.agent, "agent");
  checkModel(agent, "agent", opts.agentModel);
  if (agent.needs.includes("audio") && !opts.audio) {
    throw new InputError({
      option: "agent",
      code: "audio_required",
      message: `"${agent.name}" hears the caller's audio: it needs an audio call`,
      hint: "make the calls audio calls",
    });
  }
  const user = opts.user === AUTO_USER ? "scripted" : opts.user;
  checkModel(findKind(user, "user"), "user", opts.userModel);
}

/** The two ends of each trial, from `--agent` and `--user`. */
export function participantFactory(opts: ParticipantOptions): ParticipantFactory {
  checkParticipantSpecs(opts);
  const agent = findKind(opts.agent, "agent");
  const userKind = (scenario: Scenario) => findKind(userSpec(opts.user, scenario), "user");
  const make =
    (kind: ParticipantKind, spec: string, side: Side, bargeIn = opts.bargeIn) =>
    (scenario: Scenario, setup: CallSetup): Promise<Participant> =>
      kind.make({
        spec,
        setup,
        scenario,
        model: side === "agent" ? opts.agentModel : opts.userModel,
        connectAttempts: opts.connectAttempts,
        kick: opts.kick,
        ...(opts.framing !== undefined ? { framing: opts.framing } : {}),
        ...(side === "agent" && opts.agentKey !== undefined ? { agentKey: opts.agentKey } : {}),
        ...(opts.realtime !== undefined ? { realtime: opts.realtime } : {}),
        ...(bargeIn ? { bargeIn } : {}),
        ...(opts.audio ? { audio: true } : {}),
        ...(opts.transcripts ? { transcripts: true } : {}),
      });
  return {
    deterministic: (scenario) =>
      agent.deterministic(opts.agentModel) && userKind(scenario).deterministic(opts.userModel),
    agent: make(agent, opts.agent, "agent"),
    user: async (scenario, setup) => {
      const spec = userSpec(opts.user, scenario);
      const behaviour = opts.behaviour ?? scenario.user.behaviour;
      const kind = userKind(scenario);
      const simulated = kind.name === "scripted" || kind.name === "llm";
      const wrap = opts.audio && hasBehaviour(behaviour) && simulated;
      // The scripted caller's barge-in is the interrupt behaviour.
      const bargeIn = opts.bargeIn || (wrap ? behaviour.interrupt : undefined);
      let user = await make(kind, spec, "user", bargeIn)(scenario, setup);
      if (wrap) {
        const { BehavingCaller } = await import("./caller_behaviour.ts");
        user = new BehavingCaller(user, behaviour);
      }
      if (!opts.audio || !simulated) return user;
      // On a phone line the caller answers when the agent's turn is over by its ear.
      const { TurnTakingCaller } = await import("./turn_taking.ts");
      return new TurnTakingCaller(user, opts.callerTiming);
    },
  };
}

/** `eval`'s participant flags (`--agent`, `--user`, models, the realtime wire) as options. */
import {
  REALTIME_AUDIO_FORMATS,
  REALTIME_TURN_DETECTIONS,
  type RealtimeAudioFormat,
  type RealtimeTurnDetection,
} from "../protocol/openai_realtime.ts";
import type { Io } from "./io.ts";
import { InputError } from "./problem.ts";
import { envWithKey } from "./secret_env.ts";
import { MODEL_ENV, type ModelRole, modelSettings } from "../llm/model_settings.ts";
import type { LlmSettings, ParticipantOptions } from "../participants/registry.ts";
import { isWireFraming, type RealtimeOptions, type WireFraming } from "../transport/mapping.ts";

export /** The framing a ws:// URL names (`?framing=`), else json. */
function urlFraming(url: string): WireFraming {
  const named = new URL(url).searchParams.get("framing");
  return isWireFraming(named) ? named : "json";
}

export /** `--agent sip:...`: a SIP URI over UDP, in an audio call (a phone line carries audio only). */
async function checkSipAgent(agent: string, audio: boolean | undefined): Promise<void> {
  const { parseSipAgent } = await import("../transport/sip.ts");
  const read = parseSipAgent(agent);
  if (!read.ok) throw new InputError({ field: "--agent", message: read.message });
  if (!audio) {
    throw new InputError({
      field: "--agent",
      message: "a SIP agent carries audio only",
      hint: "add --audio",
    });
  }
}

export /** `--agent` omitted: the llm agent when a model is configured, else the oracle baseline. */
function defaultAgent(values: { "agent-model"?: string }, io: Io): string {
  const model = values["agent-model"] ?? io.env(MODEL_ENV.agent);
  if (model) {
    io.err(`eval: no --agent given: running the llm agent with model "${model}"`);
    return "llm";
  }
  io.err(
    "eval: no --agent given and no agent model configured (--agent-model or " +
      "CALLBENCH_AGENT_MODEL): running the oracle baseline",
  );
  return "oracle";
}

export /** `--realtime-audio` and `--turn-detection`: only with `--framing openai-realtime` (and `--audio`). */
function realtimeFromFlags(
  values: Record<string, unknown>,
  framing: string | undefined,
): RealtimeOptions | undefined {
  const audio = values["realtime-audio"] as string | undefined;
  const turn = values["turn-detection"] as string | undefined;
  if (framing !== "openai-realtime") {
    for (const flag of ["realtime-audio", "turn-detection", "agent-key"]) {
      if (values[flag] !== undefined) {
        throw new InputError({ field: `--${flag}`, message: "needs --framing openai-realtime" });
      }
    }
    return undefined;
  }
  if (!values.audio) {
    throw new InputError({
      field: "--framing",
      message: "openai-realtime carries audio only",
      hint: "add --audio",
    });
  }
  if (audio !== undefined && !(REALTIME_AUDIO_FORMATS as readonly string[]).includes(audio)) {
    throw new InputError({
      field: "--realtime-audio",
      message: `unknown format "${audio}"`,
      hint: REALTIME_AUDIO_FORMATS.join(" or "),
    });
  }
  if (turn !== undefined && !(REALTIME_TURN_DETECTIONS as readonly string[]).includes(turn)) {
    throw new InputError({
      field: "--turn-detection",
      message: `unknown turn detection "${turn}"`,
      hint: "server_vad, semantic_vad or none",
    });
  }
  return {
    audio: (audio ?? "pcm16") as RealtimeAudioFormat,
    turnDetection: (turn ?? "server_vad") as RealtimeTurnDetection,
  };
}

export function participantOptions(values: Record<string, unknown>, io: Io): ParticipantOptions {
  const apiKeyEnv = values["api-key-env"] as string | undefined;
  const env = envWithKey(io, apiKeyEnv, "--api-key-env");
  const flags = { baseUrl: values["base-url"] as string | undefined, apiKeyEnv };
  const temperature = values.temperature === undefined ? undefined : Number(values.temperature);
  if (temperature !== undefined && !(temperature >= 0)) {
    throw new InputError({ field: "--temperature", message: "expected a number >= 0" });
  }
  const model = (role: ModelRole): LlmSettings => ({
    ...modelSettings(role, { ...flags, model: values[`${role}-model`] as string | undefined }, env),
    temperature,
  });
  return {
    agent: values.agent as string,
    user: (values.user as string | undefined) ?? "auto",
    agentModel: model("agent"),
    userModel: model("user"),
  };
}

export /** What shapes a call, without secrets. */
function modelConfig(m: LlmSettings): Record<string, unknown> {
  return {
    model: m.model ?? null,
    base_url: m.model ? m.baseUrl ?? null : null,
    temperature: m.temperature ?? null,
  };
}

/**
 * Wire mappings: how a participant on the far side of a WebSocket is spoken to. The
 * plumbing (connect, retry, correlation, frame bounds) is `./ws_client.ts` and
 * `./correlator.ts`; a mapping turns call events into frames and frames into acts
 * on the call line. Each mapping is one file, loaded when a call first uses it:
 *
 * | `--framing`      | mapping        | wire                                                  |
 * | ---------------- | -------------- | ----------------------------------------------------- |
 * | `json` (default) | `./rtvi.ts`    | RTVI 2.1 JSON in text frames                          |
 * | `protobuf`       | `./rtvi.ts`    | RTVI JSON inside pipecat protobuf `MessageFrame`s      |
 * | `twilio`         | `./twilio.ts`  | Twilio Media Streams (callbench plays Twilio's side)   |
 * | `openai-realtime`| `./openai_realtime.ts` | OpenAI Realtime API (callbench is the client)  |
 *
 * A new mapping is a new file and one row of `MAPPINGS` (`./mappings.ts`, which alone
 * imports the mapping files, so that they can import this one). The framing comes from
 * the option (`eval --framing`), else the URL's `?framing=` query, else `json`.
 *
 * @module
 */
import { redactUrl } from "./redact_url.ts";
import type { Clock, Participant, ParticipantInfo } from "../bridge/call.ts";
import type { Side } from "../domains/domain.ts";
import type { SttProvider, TtsProvider } from "../speech/speech.ts";
import type { Connector, WsClientOptions } from "./ws_client.ts";
import type { RealtimeAudioFormat, RealtimeTurnDetection } from "../protocol/openai_realtime.ts";

/** The text of an agent turn whose words are unknown: the bot sent none, and no STT heard them. */
export const WORDS_UNKNOWN = "[words unknown]";

/** The framings `--framing` takes. */
export const WIRE_FRAMINGS = ["json", "protobuf", "twilio", "openai-realtime"] as const;
/** One of `WIRE_FRAMINGS`: how a remote participant's messages go on the wire. */
export type WireFraming = typeof WIRE_FRAMINGS[number];

/** Whether `value` names a framing. */
export function isWireFraming(value: unknown): value is WireFraming {
  return (WIRE_FRAMINGS as readonly unknown[]).includes(value);
}

/** Speech for mappings that carry audio only (Twilio). */
export interface RemoteSpeech {
  /** Synthesizes what the other end says (default: flite, voice `kal` at 8 kHz). */
  tts?: TtsProvider;
  /** Transcribes the peer's turns; without one their words are unknown. */
  stt?: SttProvider;
  /** The TTS voice of the other end. */
  voice?: string;
}

export interface RemoteParticipantOptions {
  /** `ws://HOST:PORT/PATH`; `?framing=protobuf|twilio` selects the framing. */
  url: string;
  /** The side this participant plays (for messages; the setup's side is sent). */
  side?: Side;
  /** Overrides `?framing=` in the URL (default JSON). */
  framing?: WireFraming;
  /** Sent as `?token=` (what our server and browser clients use; no header needed). */
  token?: string;
  /**
   * Connection attempts before `agent_unreachable` (default 3). An HTTP 4xx answer to
   * the upgrade is not retried (401/403: `agent_unauthorized`), and once a URL has
   * failed every attempt, later trials try it once until it answers again.
   */
  connectAttempts?: number;
  /** Delay before the second attempt, doubling each time (default 250 ms). */
  retryDelayMs?: number;
  /** How long one attempt may take to open the socket (default 5000 ms). */
  connectTimeoutMs?: number;
  /** How long to wait for each reply (default 15000 ms). */
  replyTimeoutMs?: number;
  /**
   * How long the start waits for the reply to `update_system_prompt` before the call
   * starts without it (default 1000 ms). The reply is optional: silence is no failure,
   * and a refusal that comes later still fails the trial.
   */
  promptReplyWaitMs?: number;
  /** Text sent as `send-text` when the call starts: `"Hello"` kicks reference-style bots. */
  kick?: string;
  /**
   * Audio calls: also give the bot the other end's words and the end of each of its
   * utterances (`call_event` `speech_start`/`speech`), which a phone line never gives
   * (debugging a bot's STT or endpointing; `eval --hints transcript`). Off by default:
   * in an audio call the bot gets only the audio (and the one-time kick).
   */
  transcripts?: boolean;
  /** `specs` sends tools as a list of specs; `names` as the reference's `{name: {}}`. */
  toolsFormat?: "specs" | "names";
  maxFrameBytes?: number;
  /** Audio-only wires (Twilio): how speech is synthesized and transcribed. */
  speech?: RemoteSpeech;
  /** Opens the socket (tests; default the `ws` package's client). */
  connect?: Connector;
  /**
   * An API key sent as `Authorization: Bearer` with the upgrade (the realtime wire):
   * never in the URL, a message or the record.
   */
  apiKey?: string;
  /** The realtime wire: audio format and turn detection asked for in `session.update`. */
  realtime?: RealtimeOptions;
}

/** How a realtime session is configured (`openai-realtime`). */
export interface RealtimeOptions {
  /** `pcm16` (24 kHz, the default) or `g711_ulaw` (8 kHz), both ways. */
  audio?: RealtimeAudioFormat;
  /** `server_vad` (default), `semantic_vad`, or `none` (callbench commits each utterance). */
  turnDetection?: RealtimeTurnDetection;
  /** The model's output voice (default: the server's). */
  voice?: string;
}

/** The options with the framing chosen and the URLs worked out. */
export interface ResolvedRemote extends RemoteParticipantOptions {
  framing: WireFraming;
  side: Side;
  /** The URL connected to (with the token). */
  connectUrl: string;
  /** The URL as records and messages show it (no token, userinfo or secret-named parameter values). */
  shownUrl: string;
}

/** Builds the participant of one mapping. */
export type WireMapping = (options: ResolvedRemote) => Participant;

/** What every mapping's `WsClient.connect` takes from its options (the rest is its own). */
export function connectOptions(
  resolved: ResolvedRemote,
  clock: Clock,
): Omit<WsClientOptions, "onFrame" | "onGarbage" | "onClosed" | "headers"> {
  return {
    url: resolved.connectUrl,
    shownUrl: resolved.shownUrl,
    side: resolved.side,
    clock,
    connectAttempts: resolved.connectAttempts,
    retryDelayMs: resolved.retryDelayMs,
    connectTimeoutMs: resolved.connectTimeoutMs,
    maxFrameBytes: resolved.maxFrameBytes,
    connect: resolved.connect,
  };
}

/** Chooses the framing (option, else `?framing=`, else json) and the URLs. */
export function resolveRemote(options: RemoteParticipantOptions): ResolvedRemote {
  const url = new URL(options.url);
  const param = url.searchParams.get("framing");
  const framing = options.framing ?? (isWireFraming(param) ? param : "json");
  if (options.token !== undefined) url.searchParams.set("token", options.token);
  const shown = new URL(options.url);
  shown.searchParams.delete("token");
  return {
    ...options,
    framing,
    side: options.side ?? "agent",
    connectUrl: url.toString(),
    shownUrl: redactUrl(shown.toString()),
  };
}

/** How the trial record describes a remote participant. */
export function remoteInfo(
  resolved: ResolvedRemote,
  settings: Record<string, unknown> = {},
): ParticipantInfo {
  return {
    kind: "remote",
    url: resolved.shownUrl,
    settings: {
      framing: resolved.framing,
      ...(resolved.transcripts ? { transcripts: true } : {}),
      ...settings,
    },
  };
}

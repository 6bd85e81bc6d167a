/**
 * RTVI 2.1 messages (pipecat's real-time voice inference protocol), as zod schemas:
 * the envelope, the client messages a bot server handles, and the server messages it
 * sends. Unknown fields are kept (`loose`), as pydantic and the official client
 * ignore them, so our own extensions ride along without breaking either.
 *
 * @module
 */
import { z } from "zod";
import { DTMF_KEY, DTMF_KEYS_TEXT } from "../dtmf/keys.ts";
import {
  assertPcm,
  AudioPayloadError,
  audioProblem,
  type AudioResult,
  checkPcm,
  decodeBase64,
  encodeBase64,
  MAX_AUDIO_PAYLOAD_BYTES,
  type PcmAudio,
} from "./audio_payload.ts";

export const RTVI_LABEL = "rtvi-ai";
export const PROTOCOL_VERSION = "2.1.0";

/** Every RTVI message: `{label, type, id?, data?}`. */
export const EnvelopeSchema = z.object({
  label: z.literal(RTVI_LABEL),
  type: z.string().min(1),
  id: z.string().optional(),
  data: z.unknown().optional(),
});
export type RtviMessage = z.infer<typeof EnvelopeSchema>;

const Voice = z.enum(["MACHINE", "VOICE"]);
export const DtmfKey = z.string().regex(DTMF_KEY, `a key is one of ${DTMF_KEYS_TEXT}`);

// ---- client → server -------------------------------------------------------------

export const ClientReadyDataSchema = z.looseObject({
  version: z.string().optional(),
  about: z.looseObject({ library: z.string().optional() }).optional(),
});

export const ClientMessageDataSchema = z.looseObject({
  t: z.string().min(1),
  d: z.unknown().optional(),
});

export const SendTextDataSchema = z.looseObject({
  content: z.string(),
  options: z.looseObject({
    run_immediately: z.boolean().optional(),
    audio_response: z.boolean().optional(),
  }).optional(),
  /** Extension: who the far end sounds like (flows). */
  voice: Voice.optional(),
  /** Extension: the utterance was cut off. */
  interrupted: z.boolean().optional(),
  /** Extension: the runner's one-time kick (`--kick`), not the caller's words. */
  kick: z.boolean().optional(),
});

/** 2.1 sends `{buttons}`; 2.0 sent one message per key as `{button}`. */
export const DtmfDataSchema = z.union([
  z.object({ buttons: z.array(DtmfKey).min(1) }),
  z.object({ button: DtmfKey }),
]);

export const FunctionCallResultDataSchema = z.looseObject({
  function_name: z.string().optional(),
  tool_call_id: z.string().min(1),
  arguments: z.unknown().optional(),
  result: z.unknown(),
});

// ---- server → client -------------------------------------------------------------

export const BotReadyDataSchema = z.looseObject({
  version: z.string(),
  about: z.unknown().optional(),
  /** Extension (`serve --tools-server`): the session's own MCP endpoint for its tools. */
  tools_server: z.object({ url: z.string(), token: z.string() }).optional().describe(
    "the session's own MCP endpoint (Streamable HTTP) for its tools, when the server serves them",
  ),
});

export const ErrorDataSchema = z.looseObject({
  error: z.string(),
  fatal: z.boolean().optional(),
  /** Extension: a participant error kind (`agent_timeout`, ...). */
  kind: z.string().optional(),
});

export const ErrorResponseDataSchema = z.looseObject({ error: z.string() });

export const ServerResponseDataSchema = z.looseObject({ t: z.string(), d: z.unknown().optional() });

export const TextDataSchema = z.looseObject({ text: z.string() });

export const BotOutputDataSchema = z.looseObject({
  text: z.string(),
  aggregated_by: z.string().optional(),
  segment_id: z.union([z.string(), z.number()]).optional(),
  will_be_spoken: z.boolean().optional(),
  spoken: z.boolean().optional(),
  spoken_status: z.string().optional(),
  /** Extension: who the speaker sounds like (flows). */
  voice: Voice.optional(),
});

export const FunctionCallInProgressDataSchema = z.looseObject({
  tool_call_id: z.string().min(1),
  function_name: z.string().optional(),
  arguments: z.unknown().optional(),
});

/** The deprecated `llm-function-call` form. */
export const FunctionCallDataSchema = z.looseObject({
  tool_call_id: z.string().min(1),
  function_name: z.string(),
  args: z.unknown().optional(),
});

export const TokenUsageSchema = z.looseObject({
  prompt_tokens: z.number().nonnegative(),
  completion_tokens: z.number().nonnegative(),
  total_tokens: z.number().nonnegative().optional(),
});

export const MetricsDataSchema = z.looseObject({
  ttfb: z.array(z.looseObject({ processor: z.string(), value: z.number() })).optional(),
  tokens: z.array(TokenUsageSchema).optional(),
});

/**
 * `server-message` payloads this project reads. `end`, `beep` and `trace` are ours;
 * `{text}` carries the reference's `<exit>...</exit>`, and `action-applied` is the
 * reference's write-tool notice.
 */
export const ServerMessageDataSchema = z.union([
  z.looseObject({ type: z.literal("end"), reason: z.string().optional() }),
  z.looseObject({ type: z.literal("beep") }),
  z.looseObject({ type: z.literal("trace"), entry: z.record(z.string(), z.unknown()) }),
  z.looseObject({ type: z.literal("action-applied"), action: z.unknown() }),
  z.looseObject({ text: z.string() }),
]);

// ---- audio as RTVI JSON (base64 PCM16 little-endian) -------------------------------

const SampleRate = z.number().int().describe("Hz");
const NumChannels = z.number().int();

/** Client `raw-audio`: one chunk of the user's audio. */
export const RawAudioDataSchema = z.looseObject({
  base64Audio: z.string().describe("PCM16 LE, base64"),
  sampleRate: SampleRate,
  numChannels: NumChannels,
});

/** Client `raw-audio-batch`: several chunks of one format, in order. */
export const RawAudioBatchDataSchema = z.looseObject({
  base64AudioBatch: z.array(z.string().describe("PCM16 LE, base64")).min(1),
  sampleRate: SampleRate,
  numChannels: NumChannels,
});

/** Server `bot-tts-audio`: the bot's synthesized audio (snake_case, unlike the client's). */
export const BotTtsAudioDataSchema = z.looseObject({
  audio: z.string().describe("PCM16 LE, base64"),
  sample_rate: SampleRate,
  num_channels: NumChannels,
});

/** Reads `raw-audio` data: PCM, rate and channels, or a problem. */
export function decodeRawAudio(data: unknown): AudioResult<PcmAudio> {
  const parsed = RawAudioDataSchema.safeParse(data);
  if (!parsed.success) return audioProblem("malformed", `raw-audio: ${issues(parsed.error)}`);
  const { base64Audio, sampleRate, numChannels } = parsed.data;
  return decodePcm(base64Audio, sampleRate, numChannels, MAX_AUDIO_PAYLOAD_BYTES);
}

/**
 * Reads `raw-audio-batch` data as one run of PCM: every chunk is checked on its own
 * (each must hold whole sample frames) and the batch together is capped at
 * `MAX_AUDIO_PAYLOAD_BYTES`.
 */
export function decodeRawAudioBatch(data: unknown): AudioResult<PcmAudio> {
  const parsed = RawAudioBatchDataSchema.safeParse(data);
  if (!parsed.success) {
    return audioProblem("malformed", `raw-audio-batch: ${issues(parsed.error)}`);
  }
  const { base64AudioBatch, sampleRate, numChannels } = parsed.data;
  const chunks: Uint8Array[] = [];
  let left = MAX_AUDIO_PAYLOAD_BYTES;
  for (const [i, text] of base64AudioBatch.entries()) {
    const chunk = decodePcm(text, sampleRate, numChannels, left);
    if (!chunk.ok) {
      const { code, message } = chunk.problem;
      const limit = code === "oversized"
        ? ` (the batch's limit is ${MAX_AUDIO_PAYLOAD_BYTES})`
        : "";
      return audioProblem(code, `base64AudioBatch.${i}: ${message}${limit}`);
    }
    chunks.push(chunk.value.pcm);
    left -= chunk.value.pcm.length;
  }
  const pcm = new Uint8Array(MAX_AUDIO_PAYLOAD_BYTES - left);
  let at = 0;
  for (const c of chunks) {
    pcm.set(c, at);
    at += c.length;
  }
  return { ok: true, value: { pcm, sampleRate, numChannels } };
}

/** Reads `bot-tts-audio` data: PCM, rate and channels, or a problem. */
export function decodeBotTtsAudio(data: unknown): AudioResult<PcmAudio> {
  const parsed = BotTtsAudioDataSchema.safeParse(data);
  if (!parsed.success) return audioProblem("malformed", `bot-tts-audio: ${issues(parsed.error)}`);
  const { audio, sample_rate, num_channels } = parsed.data;
  return decodePcm(audio, sample_rate, num_channels, MAX_AUDIO_PAYLOAD_BYTES);
}

/** A client `raw-audio` message; audio the guard refuses throws `AudioPayloadError`. */
export function rawAudioMessage(audio: PcmAudio, id?: string): RtviMessage {
  assertPcm(audio.pcm, audio.sampleRate, audio.numChannels);
  return rtvi("raw-audio", {
    base64Audio: encodeBase64(audio.pcm),
    sampleRate: audio.sampleRate,
    numChannels: audio.numChannels,
  }, id);
}

/** A client `raw-audio-batch` message of `chunks`, all in one format. */
export function rawAudioBatchMessage(
  chunks: readonly Uint8Array[],
  sampleRate: number,
  numChannels: number,
  id?: string,
): RtviMessage {
  if (chunks.length === 0) throw new RangeError("raw-audio-batch needs at least one chunk");
  let total = 0;
  for (const c of chunks) {
    assertPcm(c, sampleRate, numChannels);
    total += c.length;
  }
  if (total > MAX_AUDIO_PAYLOAD_BYTES) {
    throw new AudioPayloadError({
      code: "oversized",
      message: `raw-audio-batch too large: ${total} bytes (limit ${MAX_AUDIO_PAYLOAD_BYTES})`,
    });
  }
  return rtvi("raw-audio-batch", {
    base64AudioBatch: chunks.map(encodeBase64),
    sampleRate,
    numChannels,
  }, id);
}

/** A server `bot-tts-audio` message. */
export function botTtsAudioMessage(audio: PcmAudio): RtviMessage {
  assertPcm(audio.pcm, audio.sampleRate, audio.numChannels);
  return rtvi("bot-tts-audio", {
    audio: encodeBase64(audio.pcm),
    sample_rate: audio.sampleRate,
    num_channels: audio.numChannels,
  });
}

function decodePcm(
  text: string,
  sampleRate: number,
  numChannels: number,
  maxBytes: number,
): AudioResult<PcmAudio> {
  // The format first: a bad rate is named even when the audio is bad too.
  const format = checkPcm(new Uint8Array(), sampleRate, numChannels);
  if (!format.ok) return format;
  const bytes = decodeBase64(text, maxBytes);
  if (!bytes.ok) return bytes;
  return checkPcm(bytes.value, sampleRate, numChannels, maxBytes);
}

/** An envelope with `undefined` fields left out (pipecat serialises with `exclude_none`). */
export function rtvi(type: string, data?: unknown, id?: string): RtviMessage {
  const msg: RtviMessage = { label: RTVI_LABEL, type };
  if (id !== undefined) msg.id = id;
  if (data !== undefined) msg.data = data;
  return msg;
}

/** What reading one message's text gave. */
export type ParsedMessage =
  | { ok: true; message: RtviMessage }
  /** Not an RTVI message (another label): ignored, as pipecat does. */
  | { ok: true; message: undefined }
  | { ok: false; error: string; id?: string };

/** Parses an RTVI message from JSON text; the request id is kept when it is readable. */
export function parseMessage(text: string): ParsedMessage {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { ok: false, error: `invalid JSON: ${(e as Error).message}` };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, error: "an RTVI message must be a JSON object" };
  }
  const obj = value as Record<string, unknown>;
  const id = typeof obj.id === "string" ? obj.id : undefined;
  if (obj.label !== RTVI_LABEL) return { ok: true, message: undefined };
  const parsed = EnvelopeSchema.safeParse(obj);
  if (!parsed.success) {
    return { ok: false, error: `invalid RTVI message: ${issues(parsed.error)}`, id };
  }
  return { ok: true, message: parsed.data };
}

/** A zod error as one line: `field: message; field: message`. */
export function issues(error: z.ZodError): string {
  return error.issues
    .map((i) => (i.path.length > 0 ? `${i.path.join(".")}: ${i.message}` : i.message))
    .join("; ");
}

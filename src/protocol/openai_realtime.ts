/**
 * The OpenAI Realtime API's events, as callbench (the client) sends and reads them
 * (`--framing openai-realtime`). The event shapes are the `openai` package's
 * (`openai/resources/realtime/realtime`, imported for types only): every event sent
 * is typed as its `RealtimeClientEvent`, every event type read is checked against its
 * `RealtimeServerEvent` at compile time, and the list of server event types known here
 * is held equal to the package's union (plus the beta API's names for the audio and
 * text deltas), so a type the package does not name is a compile error, not a guess.
 *
 * What is received is parsed here: bounded first (`./limits.ts`), then an object with
 * a known `type`, then, for the events the call acts on, a zod schema of the fields it
 * reads. Anything else is a typed problem, never an exception.
 *
 * @module
 */
import { z } from "zod";
// deno-lint-ignore no-import-prefix -- kept out of the import map, so a first run does not download it
import type * as RT from "npm:openai@7.55.0/resources/realtime/realtime";
import { checkValueLimits } from "./limits.ts";

export type {
  RealtimeClientEvent,
  RealtimeServerEvent,
} from "npm:openai@7.55.0/resources/realtime/realtime";

/** The audio formats callbench offers (`--realtime-audio`). */
export const REALTIME_AUDIO_FORMATS = ["pcm16", "g711_ulaw"] as const;
/** One of {@link REALTIME_AUDIO_FORMATS}: the format both ways. */
export type RealtimeAudioFormat = typeof REALTIME_AUDIO_FORMATS[number];

/** The turn detection callbench asks for (`--turn-detection`); `none`: callbench commits. */
export const REALTIME_TURN_DETECTIONS = ["server_vad", "semantic_vad", "none"] as const;
/** One of {@link REALTIME_TURN_DETECTIONS}. */
export type RealtimeTurnDetection = typeof REALTIME_TURN_DETECTIONS[number];

/** Each format's wire description and rate. */
export const REALTIME_FORMATS: Record<
  RealtimeAudioFormat,
  { format: RT.RealtimeAudioFormats; sampleRate: number; codec: "pcm16" | "mulaw" }
> = {
  pcm16: { format: { type: "audio/pcm", rate: 24000 }, sampleRate: 24000, codec: "pcm16" },
  g711_ulaw: { format: { type: "audio/pcmu" }, sampleRate: 8000, codec: "mulaw" },
};

/** Server events named by the beta API and still sent by compatible servers. */
const BETA_SERVER_TYPES = [
  "response.audio.delta",
  "response.audio.done",
  "response.audio_transcript.delta",
  "response.audio_transcript.done",
  "response.text.delta",
  "response.text.done",
] as const;

/** Every server event type of the package's union (compile-checked both ways). */
const GA_SERVER_TYPES = [
  "conversation.created",
  "conversation.item.created",
  "conversation.item.deleted",
  "conversation.item.input_audio_transcription.completed",
  "conversation.item.input_audio_transcription.delta",
  "conversation.item.input_audio_transcription.failed",
  "conversation.item.input_audio_transcription.segment",
  "conversation.item.retrieved",
  "conversation.item.truncated",
  "conversation.item.added",
  "conversation.item.done",
  "error",
  "input_audio_buffer.cleared",
  "input_audio_buffer.committed",
  "input_audio_buffer.dtmf_event_received",
  "input_audio_buffer.speech_started",
  "input_audio_buffer.speech_stopped",
  "input_audio_buffer.timeout_triggered",
  "rate_limits.updated",
  "response.output_audio.delta",
  "response.output_audio.done",
  "response.output_audio_transcript.delta",
  "response.output_audio_transcript.done",
  "response.content_part.added",
  "response.content_part.done",
  "response.created",
  "response.done",
  "response.function_call_arguments.delta",
  "response.function_call_arguments.done",
  "response.output_item.added",
  "response.output_item.done",
  "response.output_text.delta",
  "response.output_text.done",
  "session.created",
  "session.updated",
  "output_audio_buffer.started",
  "output_audio_buffer.stopped",
  "output_audio_buffer.cleared",
  "mcp_list_tools.in_progress",
  "mcp_list_tools.completed",
  "mcp_list_tools.failed",
  "response.mcp_call_arguments.delta",
  "response.mcp_call_arguments.done",
  "response.mcp_call.in_progress",
  "response.mcp_call.completed",
  "response.mcp_call.failed",
] as const satisfies readonly RT.RealtimeServerEvent["type"][];
// Every type of the package's union is listed: a new one fails `deno check` here.
const _everyType: [Exclude<RT.RealtimeServerEvent["type"], typeof GA_SERVER_TYPES[number]>] extends
  [never] ? true : never = true;
void _everyType;

/** A server event type callbench knows (the package's, or a beta name). */
export type ServerEventType = typeof GA_SERVER_TYPES[number] | typeof BETA_SERVER_TYPES[number];
const KNOWN_TYPES: ReadonlySet<string> = new Set<string>([
  ...GA_SERVER_TYPES,
  ...BETA_SERVER_TYPES,
]);

// ---- the events the call reads (the fields it reads, typed against the package) ----

const SessionEventSchema = z.looseObject({
  type: z.enum(["session.created", "session.updated"]),
  session: z.looseObject({
    audio: z.looseObject({
      input: z.looseObject({ format: z.looseObject({}).optional() }).optional(),
      output: z.looseObject({ format: z.looseObject({}).optional() }).optional(),
    }).optional(),
  }).optional(),
});

const ErrorEventSchema = z.looseObject({
  type: z.literal("error"),
  error: z.looseObject({
    message: z.string(),
    type: z.string(),
    code: z.string().nullable().optional(),
    event_id: z.string().nullable().optional(),
  }),
}) satisfies z.ZodType<Pick<RT.RealtimeErrorEvent, "type" | "error">>;

const AudioDeltaSchema = z.looseObject({
  type: z.enum(["response.output_audio.delta", "response.audio.delta"]),
  response_id: z.string(),
  item_id: z.string(),
  content_index: z.number().int().nonnegative().optional(),
  delta: z.string(),
}) satisfies z.ZodType<
  Omit<Pick<RT.ResponseAudioDeltaEvent, "response_id" | "item_id" | "delta">, never>
>;

const TranscriptDeltaSchema = z.looseObject({
  type: z.enum(["response.output_audio_transcript.delta", "response.audio_transcript.delta"]),
  response_id: z.string(),
  item_id: z.string(),
  delta: z.string(),
}) satisfies z.ZodType<Pick<RT.ResponseAudioTranscriptDeltaEvent, "response_id" | "delta">>;

const TranscriptDoneSchema = z.looseObject({
  type: z.enum(["response.output_audio_transcript.done", "response.audio_transcript.done"]),
  response_id: z.string(),
  item_id: z.string(),
  transcript: z.string(),
}) satisfies z.ZodType<Pick<RT.ResponseAudioTranscriptDoneEvent, "response_id" | "transcript">>;

const FunctionCallDoneSchema = z.looseObject({
  type: z.literal("response.function_call_arguments.done"),
  response_id: z.string(),
  item_id: z.string(),
  call_id: z.string(),
  name: z.string(),
  arguments: z.string(),
}) satisfies z.ZodType<
  Pick<
    RT.ResponseFunctionCallArgumentsDoneEvent,
    "type" | "response_id" | "call_id" | "name" | "arguments"
  >
>;

const count = z.number().int().nonnegative();
const UsageSchema = z.looseObject({
  input_tokens: count.optional(),
  output_tokens: count.optional(),
  total_tokens: count.optional(),
  input_token_details: z.looseObject({
    audio_tokens: count.optional(),
    text_tokens: count.optional(),
    cached_tokens: count.optional(),
  }).optional(),
  output_token_details: z.looseObject({
    audio_tokens: count.optional(),
    text_tokens: count.optional(),
  }).optional(),
}) satisfies z.ZodType<
  Pick<RT.RealtimeResponseUsage, "input_tokens" | "output_tokens" | "total_tokens">
>;
/** A response's token counts, as `response.done` gives them. */
export type RealtimeUsage = z.infer<typeof UsageSchema>;

const ResponseDoneSchema = z.looseObject({
  type: z.literal("response.done"),
  response: z.looseObject({
    id: z.string().optional(),
    status: z.string().optional(),
    usage: UsageSchema.nullable().optional(),
  }),
}) satisfies z.ZodType<Pick<RT.ResponseDoneEvent, "type">>;

const ResponseCreatedSchema = z.looseObject({
  type: z.literal("response.created"),
  response: z.looseObject({ id: z.string().optional() }),
});

const SpeechStartedSchema = z.looseObject({
  type: z.literal("input_audio_buffer.speech_started"),
  audio_start_ms: z.number().nonnegative().optional(),
  item_id: z.string().optional(),
}) satisfies z.ZodType<Pick<RT.InputAudioBufferSpeechStartedEvent, "type">>;

const RateLimitsSchema = z.looseObject({
  type: z.literal("rate_limits.updated"),
  rate_limits: z.array(z.looseObject({})),
});

const READ_SCHEMAS = {
  "session.created": SessionEventSchema,
  "session.updated": SessionEventSchema,
  error: ErrorEventSchema,
  "response.output_audio.delta": AudioDeltaSchema,
  "response.audio.delta": AudioDeltaSchema,
  "response.output_audio_transcript.delta": TranscriptDeltaSchema,
  "response.audio_transcript.delta": TranscriptDeltaSchema,
  "response.output_audio_transcript.done": TranscriptDoneSchema,
  "response.audio_transcript.done": TranscriptDoneSchema,
  "response.function_call_arguments.done": FunctionCallDoneSchema,
  "response.created": ResponseCreatedSchema,
  "response.done": ResponseDoneSchema,
  "input_audio_buffer.speech_started": SpeechStartedSchema,
  "rate_limits.updated": RateLimitsSchema,
} as const satisfies Partial<Record<ServerEventType, z.ZodType>>;

/** A server event the call acts on, with the fields it reads. */
export type ReadEvent = { [K in keyof typeof READ_SCHEMAS]: z.infer<typeof READ_SCHEMAS[K]> }[
  keyof typeof READ_SCHEMAS
];
/** A known server event the call passes over (its type only). */
export interface OtherEvent {
  type: Exclude<ServerEventType, keyof typeof READ_SCHEMAS>;
}

/** What one text frame from the server is. */
export type ServerEventResult =
  | { ok: true; event: ReadEvent | OtherEvent }
  | { ok: false; problem: string };

/**
 * Parses one text frame from a realtime server: JSON, within the value bounds, an
 * object whose `type` is a known server event type, and for the events the call acts
 * on, the fields it reads. Never throws.
 */
export function parseServerEvent(text: string): ServerEventResult {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, problem: `not JSON: ${snippet(text)}` };
  }
  const bounds = checkValueLimits(value);
  if (bounds) return { ok: false, problem: `an event ${bounds}` };
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, problem: `not an event object: ${snippet(text)}` };
  }
  const type = (value as { type?: unknown }).type;
  if (typeof type !== "string") return { ok: false, problem: "an event without a type" };
  if (!KNOWN_TYPES.has(type)) {
    return { ok: false, problem: `an event of unknown type ${JSON.stringify(snippet(type))}` };
  }
  if (!Object.hasOwn(READ_SCHEMAS, type)) return { ok: true, event: { type } as OtherEvent };
  const schema = READ_SCHEMAS[type as keyof typeof READ_SCHEMAS];
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return {
      ok: false,
      problem: `a bad ${type} event: ${issue?.path.join(".") || "event"}: ${issue?.message}`,
    };
  }
  return { ok: true, event: parsed.data as ReadEvent };
}

function snippet(text: string): string {
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

// ---- what the client sends ------------------------------------------------------

/** What the session is configured with. */
export interface RealtimeSessionSettings {
  instructions: string;
  tools: { name: string; description: string; parameters: Record<string, unknown> }[];
  audio: RealtimeAudioFormat;
  turnDetection: RealtimeTurnDetection;
  /** The output voice, when one is asked for. */
  voice?: string;
  /** `eval --tools-server`: the call's MCP endpoint, offered as the session's `mcp` tool. */
  toolsServer?: { url: string; token: string };
}

/** `session.update` with the agent's prompt, tools, audio formats and turn detection. */
export function sessionUpdate(settings: RealtimeSessionSettings): RT.SessionUpdateEvent {
  const format = REALTIME_FORMATS[settings.audio].format;
  const turnDetection: RT.RealtimeAudioInputTurnDetection | null = settings.turnDetection === "none"
    ? null
    : { type: settings.turnDetection };
  return {
    type: "session.update",
    session: {
      type: "realtime",
      instructions: settings.instructions,
      output_modalities: ["audio"],
      tools: [
        ...settings.tools.map((t): RT.RealtimeFunctionTool => ({
          type: "function",
          name: t.name,
          description: t.description,
          parameters: t.parameters,
        })),
        ...(settings.toolsServer
          ? [
            {
              type: "mcp",
              server_label: "callbench",
              server_url: settings.toolsServer.url,
              headers: { Authorization: `Bearer ${settings.toolsServer.token}` },
              require_approval: "never",
            } satisfies RT.RealtimeToolsConfigUnion.Mcp,
          ]
          : []),
      ],
      tool_choice: "auto",
      audio: {
        input: { format, turn_detection: turnDetection },
        output: { format, ...(settings.voice ? { voice: settings.voice } : {}) },
      },
    },
  };
}

/** One chunk of the caller's audio (already encoded in the session's format). */
export function audioAppend(bytes: Uint8Array): RT.InputAudioBufferAppendEvent {
  return { type: "input_audio_buffer.append", audio: bytes.toBase64() };
}

/** Turn detection off: the caller's turn is over. */
export function audioCommit(): RT.InputAudioBufferCommitEvent {
  return { type: "input_audio_buffer.commit" };
}

/** Asks for a response (after a commit, or after tool outputs). */
export function responseCreate(): RT.ResponseCreateEvent {
  return { type: "response.create" };
}

/** Cancels the response in progress (client-side barge-in). */
export function responseCancel(): RT.ResponseCancelEvent {
  return { type: "response.cancel" };
}

/** A tool's result for the model. */
export function functionCallOutput(
  callId: string,
  output: unknown,
): RT.ConversationItemCreateEvent {
  return {
    type: "conversation.item.create",
    item: {
      type: "function_call_output",
      call_id: callId,
      output: typeof output === "string" ? output : JSON.stringify(output),
    },
  };
}

/** What of an item's audio the caller heard before cutting in. */
export function itemTruncate(itemId: string, audioEndMs: number): RT.ConversationItemTruncateEvent {
  return {
    type: "conversation.item.truncate",
    item_id: itemId,
    content_index: 0,
    audio_end_ms: Math.max(0, Math.round(audioEndMs)),
  };
}

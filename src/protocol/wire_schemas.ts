/**
 * Every message on callbench's wire as one zod schema per message type, whole
 * (envelope and data): what an RTVI client sends a bot (`client`), what a bot sends
 * back (`server`), and the Twilio Media Streams events of each side (`twilio`,
 * `twilio-agent`). `cli.ts schema` writes each as a JSON Schema under
 * `schemas/wire/`; tests parse every frame of recorded calls with them. They are
 * built from the schemas the code reads and writes with (`messages.ts`,
 * `handlers.ts`, `twilio.ts`), so the documents cannot say more than the code checks.
 *
 * @module
 */
import { z } from "zod";
import {
  ApplyInitializationArgsSchema,
  ApplySyncDeltaArgsSchema,
  CallEventSchema,
  GetContextHistoryArgsSchema,
  GetScenarioSummaryArgsSchema,
  type HandlerName,
  ResetArgsSchema,
  UpdateSystemPromptArgsSchema,
} from "./handlers.ts";
import {
  BotOutputDataSchema,
  BotReadyDataSchema,
  BotTtsAudioDataSchema,
  ClientReadyDataSchema,
  DtmfDataSchema,
  ErrorDataSchema,
  ErrorResponseDataSchema,
  FunctionCallDataSchema,
  FunctionCallInProgressDataSchema,
  FunctionCallResultDataSchema,
  MetricsDataSchema,
  RawAudioBatchDataSchema,
  RawAudioDataSchema,
  RTVI_LABEL,
  SendTextDataSchema,
  ServerMessageDataSchema,
  TextDataSchema,
} from "./messages.ts";
import {
  AgentMarkMessageSchema,
  AgentMediaMessageSchema,
  ClearMessageSchema,
  ConnectedMessageSchema,
  DtmfMessageSchema as TwilioDtmfMessageSchema,
  MarkMessageSchema,
  MediaMessageSchema,
  StartMessageSchema,
  StopMessageSchema,
} from "./twilio.ts";

/** Who sends a message. */
export type WireDirection = "client" | "server" | "twilio" | "twilio-agent";

/** One message type of the wire. */
export interface WireMessage {
  direction: WireDirection;
  /** The RTVI `type` (or Twilio `event`); `client-message` is one entry per handler. */
  type: string;
  /** `client-message`'s `t`, when the entry is one handler's request or reply. */
  t?: string;
  /** One line: what the message is for. */
  summary: string;
  schema: z.ZodType;
}

const Id = z.string().describe(
  "request id; a reply (bot-ready, server-response, error-response) echoes its request's id",
);

/** An RTVI envelope of `type` whose `data` is `data` (absent data: `{}` or nothing). */
function envelope(type: string, data: z.ZodType | undefined, summary: string) {
  return z.object({
    label: z.literal(RTVI_LABEL),
    type: z.literal(type),
    id: Id.optional(),
    data: data ?? z.looseObject({}).optional(),
  }).describe(summary);
}

/** What a handler answers in `server-response.data.d`. */
const ApplyResultSchema = z.looseObject({
  success: z.boolean(),
  errors: z.array(z.string()),
});
const ScenarioSummarySchema = z.looseObject({
  actions: z.array(z.record(z.string(), z.unknown())).describe(
    "action records of the successful write tools run on the session's world, in order",
  ),
  db_hash: z.string().nullable().describe(
    "canonical SHA-256 of the session's world (reference hash); null without a world",
  ),
  db: z.record(z.string(), z.unknown()).nullable().optional().describe(
    "the world itself, with include_db",
  ),
});
const ContextHistorySchema = z.looseObject({
  context: z.string().describe(
    "a JSON string literal whose content is the JSON list of turns (doubly encoded: " +
      "the reference bridge eval()s the reply, then parses the string it gets as JSON)",
  ),
});

/** Each handler: its request's `d` and its reply's `d`. */
const HANDLER_SHAPES: Record<HandlerName, { args: z.ZodType; reply: z.ZodType; summary: string }> =
  {
    reset: {
      args: ResetArgsSchema,
      reply: z.literal(true),
      summary: "restart the hosted participant on its current prompt; history cleared",
    },
    update_system_prompt: {
      args: UpdateSystemPromptArgsSchema,
      reply: z.boolean().describe("false: refused (an empty prompt)"),
      summary: "configure the bot: prompt, tools (a JSON string), domain, scenario",
    },
    apply_initialization: {
      args: ApplyInitializationArgsSchema,
      reply: ApplyResultSchema,
      summary: "load a world into the session (db_path or db) and run init actions on it",
    },
    apply_sync_delta: {
      args: ApplySyncDeltaArgsSchema,
      reply: ApplyResultSchema,
      summary: "set dotted paths of the session's world (telecom's cross-side sync)",
    },
    get_scenario_summary: {
      args: GetScenarioSummaryArgsSchema,
      reply: ScenarioSummarySchema,
      summary: "the session world's actions and hash (and the world, with include_db)",
    },
    get_context_history: {
      args: GetContextHistoryArgsSchema,
      reply: ContextHistorySchema,
      summary: "the conversation so far, doubly JSON-encoded",
    },
    call_event: {
      args: CallEventSchema,
      reply: z.literal(true),
      summary: "a call event for the hosted participant (call_start, hangup, beep, ...)",
    },
  };

function clientMessage(t: HandlerName): z.ZodType {
  const { args, summary } = HANDLER_SHAPES[t];
  return envelope(
    "client-message",
    z.object({ t: z.literal(t), d: args.optional() }),
    `client-message ${t}: ${summary}`,
  );
}

function serverResponse(t: HandlerName): z.ZodType {
  const { reply } = HANDLER_SHAPES[t];
  return envelope(
    "server-response",
    z.object({ t: z.literal(t), d: reply }),
    `server-response to client-message ${t}`,
  );
}

const HANDLER_NAMES = Object.keys(HANDLER_SHAPES) as HandlerName[];

const Empty = z.looseObject({}).optional();

/** Every message type, by direction. */
export const WIRE_MESSAGES: readonly WireMessage[] = [
  // ---- client → bot (RTVI) -------------------------------------------------------
  {
    direction: "client",
    type: "client-ready",
    summary: "first message: the client's RTVI version; the bot answers bot-ready",
    schema: envelope("client-ready", ClientReadyDataSchema, "client-ready"),
  },
  ...HANDLER_NAMES.map((t): WireMessage => ({
    direction: "client",
    type: "client-message",
    t,
    summary: HANDLER_SHAPES[t].summary,
    schema: clientMessage(t),
  })),
  {
    direction: "client",
    type: "send-text",
    summary: "the other end's whole utterance, as text",
    schema: envelope("send-text", SendTextDataSchema, "send-text"),
  },
  {
    direction: "client",
    type: "dtmf",
    summary: "keys the other end pressed (2.1: buttons; 2.0: one button per message)",
    schema: envelope("dtmf", DtmfDataSchema, "dtmf"),
  },
  {
    direction: "client",
    type: "llm-function-call-result",
    summary: "the result of a tool call the bot asked for",
    schema: envelope("llm-function-call-result", FunctionCallResultDataSchema, "tool result"),
  },
  {
    direction: "client",
    type: "disconnect-bot",
    summary: "the call is over; the bot may close (serve frees the session)",
    schema: envelope("disconnect-bot", Empty, "disconnect-bot"),
  },
  {
    direction: "client",
    type: "raw-audio",
    summary: "one chunk of the caller's audio (PCM16 LE, base64)",
    schema: envelope("raw-audio", RawAudioDataSchema, "raw-audio"),
  },
  {
    direction: "client",
    type: "raw-audio-batch",
    summary: "several chunks of the caller's audio, one format",
    schema: envelope("raw-audio-batch", RawAudioBatchDataSchema, "raw-audio-batch"),
  },
  // ---- bot → client (RTVI) -------------------------------------------------------
  {
    direction: "server",
    type: "bot-ready",
    summary: "answer to client-ready: the bot's RTVI version",
    schema: envelope("bot-ready", BotReadyDataSchema, "bot-ready"),
  },
  ...HANDLER_NAMES.map((t): WireMessage => ({
    direction: "server",
    type: "server-response",
    t,
    summary: `reply to client-message ${t}`,
    schema: serverResponse(t),
  })),
  {
    direction: "server",
    type: "error-response",
    summary: "a request (by id) was refused",
    schema: envelope("error-response", ErrorResponseDataSchema, "error-response"),
  },
  {
    direction: "server",
    type: "error",
    summary: "an error not tied to a request; fatal ends the call with its kind",
    schema: envelope("error", ErrorDataSchema, "error"),
  },
  ...["bot-started-speaking", "bot-stopped-speaking", "bot-tts-started", "bot-tts-stopped"].map(
    (type): WireMessage => ({
      direction: "server",
      type,
      summary: type.startsWith("bot-tts")
        ? "the bot's TTS began or ended (it speaks aloud)"
        : "brackets one spoken turn",
      schema: envelope(type, Empty, type),
    }),
  ),
  {
    direction: "server",
    type: "bot-output",
    summary: "text of the bot's speech (by segment); counted first",
    schema: envelope("bot-output", BotOutputDataSchema, "bot-output"),
  },
  {
    direction: "server",
    type: "bot-tts-text",
    summary: "words as spoken by the bot's TTS; counted when no bot-output comes",
    schema: envelope("bot-tts-text", TextDataSchema, "bot-tts-text"),
  },
  {
    direction: "server",
    type: "bot-llm-text",
    summary: "streamed LLM tokens; counted only when neither bot-output nor bot-tts-text comes",
    schema: envelope("bot-llm-text", TextDataSchema, "bot-llm-text"),
  },
  {
    direction: "server",
    type: "bot-interrupted",
    summary: "the bot cut its own utterance off",
    schema: envelope("bot-interrupted", Empty, "bot-interrupted"),
  },
  {
    direction: "server",
    type: "llm-function-call-in-progress",
    summary: "the bot asks the client to run a tool (with function_name)",
    schema: envelope(
      "llm-function-call-in-progress",
      FunctionCallInProgressDataSchema,
      "llm-function-call-in-progress",
    ),
  },
  {
    direction: "server",
    type: "llm-function-call",
    summary: "deprecated form of llm-function-call-in-progress (args, not arguments)",
    schema: envelope("llm-function-call", FunctionCallDataSchema, "llm-function-call"),
  },
  {
    direction: "server",
    type: "metrics",
    summary: "token usage per LLM call, and time to first byte",
    schema: envelope("metrics", MetricsDataSchema, "metrics"),
  },
  {
    direction: "server",
    type: "server-message",
    summary: "end of call, beep, trace entry, action-applied, or <exit> text",
    schema: envelope("server-message", ServerMessageDataSchema, "server-message"),
  },
  {
    direction: "server",
    type: "bot-tts-audio",
    summary: "the bot's synthesized audio (PCM16 LE, base64; snake_case fields)",
    schema: envelope("bot-tts-audio", BotTtsAudioDataSchema, "bot-tts-audio"),
  },
  // ---- Twilio Media Streams ------------------------------------------------------
  ...([
    ["connected", ConnectedMessageSchema, "first message of the stream"],
    ["start", StartMessageSchema, "stream and call ids, tracks, media format"],
    ["media", MediaMessageSchema, "20 ms of the caller's µ-law audio"],
    ["dtmf", TwilioDtmfMessageSchema, "a key the caller pressed"],
    ["mark", MarkMessageSchema, "echo of the agent's mark, once what preceded it played"],
    ["stop", StopMessageSchema, "the call ended (the last message)"],
  ] as const).map(([type, schema, summary]): WireMessage => ({
    direction: "twilio",
    type,
    summary,
    schema: schema.describe(summary),
  })),
  ...([
    ["media", AgentMediaMessageSchema, "the agent's µ-law audio"],
    ["mark", AgentMarkMessageSchema, "a named point in the agent's audio, echoed once played"],
    ["clear", ClearMessageSchema, "drop the agent's audio not yet played (barge-in)"],
  ] as const).map(([type, schema, summary]): WireMessage => ({
    direction: "twilio-agent",
    type,
    summary,
    schema: schema.describe(summary),
  })),
];

/** The schema file of a message: `client.client-message.reset.schema.json`, `server.bot-ready...`. */
export function wireSchemaFile(m: WireMessage): string {
  return `${[m.direction, m.type, ...(m.t ? [m.t] : [])].join(".")}.schema.json`;
}

/** What checking one message against the catalog gave. */
export type WireCheck =
  | { ok: true; entry: WireMessage }
  | { ok: false; error: string };

/**
 * Checks one decoded message against the schema of its type (and handler) for the
 * direction it travelled. A message type the catalog lacks is an error, so the
 * catalog cannot fall behind what is really sent.
 */
export function checkWireMessage(direction: WireDirection, message: unknown): WireCheck {
  const obj = (typeof message === "object" && message !== null ? message : {}) as Record<
    string,
    unknown
  >;
  const type = direction.startsWith("twilio") ? obj.event : obj.type;
  const t = (obj.data as { t?: unknown } | undefined)?.t;
  const candidates = WIRE_MESSAGES.filter((m) =>
    m.direction === direction && m.type === type &&
    (m.t === undefined || m.t === t)
  );
  if (candidates.length === 0) {
    return { ok: false, error: `no ${direction} message ${JSON.stringify(type)} in the catalog` };
  }
  const errors: string[] = [];
  for (const entry of candidates) {
    const parsed = entry.schema.safeParse(message);
    if (parsed.success) return { ok: true, entry };
    errors.push(
      parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; "),
    );
  }
  return { ok: false, error: `${direction} ${String(type)}: ${errors.join(" | ")}` };
}

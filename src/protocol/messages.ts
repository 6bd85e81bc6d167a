/**
 * RTVI 2.1 messages (pipecat's real-time voice inference protocol), as zod schemas:
 * the envelope, the client messages a bot server handles, and the server messages it
 * sends. Unknown fields are kept (`loose`), as pydantic and the official client
 * ignore them, so our own extensions ride along without breaking either.
 *
 * @module
 */
import { z } from "zod";

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
export const DtmfKey = z.string().regex(/^[0-9*#A-D]$/, "a key is one of 0-9 * # A-D");

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

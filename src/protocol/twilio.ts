/**
 * Twilio Media Streams over a WebSocket, as zod schemas: every JSON message Twilio
 * documents in both directions of a bidirectional (`<Connect><Stream>`) stream.
 * callbench plays Twilio's side: {@link TwilioStream} builds what Twilio sends
 * (`connected`, `start`, `media`, `dtmf`, `mark`, `stop`) with its sequence, chunk
 * and timestamp bookkeeping, and {@link parseAgentMessage} reads what the agent's
 * stream endpoint sends back (`media`, `mark`, `clear`). Audio is 8 kHz mono µ-law,
 * one byte a sample, base64 in `payload`; this module moves µ-law bytes and leaves
 * the codec to `src/audio/`. Counters travel as decimal strings, as Twilio sends them.
 *
 * @module
 */
import { z } from "zod";
import {
  AudioProblemCodeSchema,
  decodeBase64,
  encodeBase64,
  MAX_AUDIO_PAYLOAD_BYTES,
} from "./audio_payload.ts";
import { DtmfKey, issues } from "./messages.ts";

/** Twilio's only media format. */
export const TWILIO_MEDIA_FORMAT = Object.freeze(
  {
    encoding: "audio/x-mulaw",
    sampleRate: 8000,
    channels: 1,
  } as const,
);

/** Twilio sends audio in 20 ms frames... */
export const TWILIO_FRAME_MS = 20;
/** ...of 160 µ-law bytes (8000 Hz × 20 ms, one byte a sample). */
export const TWILIO_FRAME_BYTES = (TWILIO_MEDIA_FORMAT.sampleRate * TWILIO_FRAME_MS) / 1000;
/** µ-law silence (the code for a zero sample), used to pad a last short frame. */
export const MULAW_SILENCE = 0xff;

const Counter = z.string().regex(/^[1-9][0-9]*$/, "a counter is a decimal string from 1");
const Millis = z.string().regex(/^(0|[1-9][0-9]*)$/, "milliseconds as a decimal string");
const Sid = z.string().min(1);
const Track = z.enum(["inbound", "outbound"]);
export type TwilioTrack = z.infer<typeof Track>;

// ---- Twilio → the agent's stream endpoint ------------------------------------------

/** First message on the socket; the only one without `sequenceNumber` and `streamSid`. */
export const ConnectedMessageSchema = z.looseObject({
  event: z.literal("connected"),
  protocol: z.string().describe('"Call"'),
  version: z.string().describe('"1.0.0"'),
});

/** Sent once, right after `connected`, with sequenceNumber 1. */
export const StartMessageSchema = z.looseObject({
  event: z.literal("start"),
  sequenceNumber: Counter,
  start: z.looseObject({
    streamSid: Sid,
    accountSid: Sid,
    callSid: Sid,
    tracks: z.array(Track).min(1),
    customParameters: z.record(z.string(), z.string()),
    mediaFormat: z.looseObject({
      encoding: z.literal(TWILIO_MEDIA_FORMAT.encoding),
      sampleRate: z.literal(TWILIO_MEDIA_FORMAT.sampleRate),
      channels: z.literal(TWILIO_MEDIA_FORMAT.channels),
    }),
  }),
  streamSid: Sid,
});

/** One frame of the call's audio. */
export const MediaMessageSchema = z.looseObject({
  event: z.literal("media"),
  sequenceNumber: Counter,
  media: z.looseObject({
    track: Track,
    chunk: Counter.describe("from 1, per track"),
    timestamp: Millis.describe("presentation time from the start of the stream"),
    payload: z.string().describe("µ-law 8 kHz mono, base64"),
  }),
  streamSid: Sid,
});

/** A key the caller pressed. */
export const DtmfMessageSchema = z.looseObject({
  event: z.literal("dtmf"),
  streamSid: Sid,
  sequenceNumber: Counter,
  dtmf: z.looseObject({ track: z.literal("inbound_track"), digit: DtmfKey }),
});

/** Echo of the agent's mark: the audio sent before it has played (or was cleared). */
export const MarkMessageSchema = z.looseObject({
  event: z.literal("mark"),
  sequenceNumber: Counter,
  streamSid: Sid,
  mark: z.looseObject({ name: z.string() }),
});

/** The stream stopped or the call ended; the last message. */
export const StopMessageSchema = z.looseObject({
  event: z.literal("stop"),
  sequenceNumber: Counter,
  stop: z.looseObject({ accountSid: Sid, callSid: Sid }),
  streamSid: Sid,
});

/** Any message Twilio sends. */
export const FromTwilioMessageSchema = z.discriminatedUnion("event", [
  ConnectedMessageSchema,
  StartMessageSchema,
  MediaMessageSchema,
  DtmfMessageSchema,
  MarkMessageSchema,
  StopMessageSchema,
]);
export type ConnectedMessage = z.infer<typeof ConnectedMessageSchema>;
export type StartMessage = z.infer<typeof StartMessageSchema>;
export type MediaMessage = z.infer<typeof MediaMessageSchema>;
export type DtmfMessage = z.infer<typeof DtmfMessageSchema>;
export type MarkMessage = z.infer<typeof MarkMessageSchema>;
export type StopMessage = z.infer<typeof StopMessageSchema>;
export type FromTwilioMessage = z.infer<typeof FromTwilioMessageSchema>;

// ---- the agent's stream endpoint → Twilio ------------------------------------------

/** Audio for Twilio to play on the call. */
export const AgentMediaMessageSchema = z.looseObject({
  event: z.literal("media"),
  streamSid: Sid,
  media: z.looseObject({ payload: z.string().describe("µ-law 8 kHz mono, base64") }),
});

/** Asks to be told (by an echoed mark) when the audio sent so far has played. */
export const AgentMarkMessageSchema = z.looseObject({
  event: z.literal("mark"),
  streamSid: Sid,
  mark: z.looseObject({ name: z.string() }),
});

/** Drops the audio buffered for playback (barge-in); pending marks are echoed. */
export const ClearMessageSchema = z.looseObject({
  event: z.literal("clear"),
  streamSid: Sid,
});

/** Any message the agent may send to Twilio. */
export const ToTwilioMessageSchema = z.discriminatedUnion("event", [
  AgentMediaMessageSchema,
  AgentMarkMessageSchema,
  ClearMessageSchema,
]);
export type ToTwilioMessage = z.infer<typeof ToTwilioMessageSchema>;

// ---- reading -----------------------------------------------------------------------

/** Why a Twilio message was refused: an audio problem, or one of the envelope. */
export const TwilioProblemCodeSchema = z.enum([
  ...AudioProblemCodeSchema.options,
  "invalid_json",
  "unknown_event",
  "wrong_stream",
]).describe("Why a Twilio Media Streams message was refused");
export type TwilioProblemCode = z.infer<typeof TwilioProblemCodeSchema>;

export interface TwilioProblem {
  code: TwilioProblemCode;
  message: string;
}

/** A value, or the problem that prevented it. */
export type TwilioResult<T> = { ok: true; value: T } | { ok: false; problem: TwilioProblem };

/** What the agent sent, with a media payload decoded to µ-law bytes. */
export type AgentMessage =
  | { event: "media"; streamSid: string; mulaw: Uint8Array }
  | { event: "mark"; streamSid: string; name: string }
  | { event: "clear"; streamSid: string };

/**
 * Reads one text frame from the agent's stream endpoint. Invalid JSON, an event
 * Twilio does not take (`unknown_event`), a bad shape, a payload that is not base64 or
 * is over `MAX_AUDIO_PAYLOAD_BYTES`, or (when `streamSid` is given) another stream's
 * sid each come back as a problem.
 */
export function parseAgentMessage(text: string, streamSid?: string): TwilioResult<AgentMessage> {
  const json = readJson(text);
  if (!json.ok) return json;
  const event = (json.value as { event?: unknown }).event;
  if (event !== "media" && event !== "mark" && event !== "clear") {
    return problem("unknown_event", `unknown event ${JSON.stringify(event)} (media, mark, clear)`);
  }
  const parsed = ToTwilioMessageSchema.safeParse(json.value);
  if (!parsed.success) return problem("malformed", `${event}: ${issues(parsed.error)}`);
  const msg = parsed.data;
  if (streamSid !== undefined && msg.streamSid !== streamSid) {
    return problem("wrong_stream", `${event} for stream ${msg.streamSid}, not ${streamSid}`);
  }
  switch (msg.event) {
    case "media": {
      const mulaw = decodeBase64(msg.media.payload, MAX_AUDIO_PAYLOAD_BYTES);
      if (!mulaw.ok) return { ok: false, problem: mulaw.problem };
      return { ok: true, value: { event: "media", streamSid: msg.streamSid, mulaw: mulaw.value } };
    }
    case "mark":
      return { ok: true, value: { event: "mark", streamSid: msg.streamSid, name: msg.mark.name } };
    case "clear":
      return { ok: true, value: { event: "clear", streamSid: msg.streamSid } };
  }
}

/** Reads one message as Twilio sends it (to test a stream endpoint, or our own builders). */
export function parseTwilioMessage(text: string): TwilioResult<FromTwilioMessage> {
  const json = readJson(text);
  if (!json.ok) return json;
  const event = (json.value as { event?: unknown }).event;
  const known = ["connected", "start", "media", "dtmf", "mark", "stop"];
  if (typeof event !== "string" || !known.includes(event)) {
    return problem("unknown_event", `unknown event ${JSON.stringify(event)}`);
  }
  const parsed = FromTwilioMessageSchema.safeParse(json.value);
  if (!parsed.success) return problem("malformed", `${event}: ${issues(parsed.error)}`);
  if (parsed.data.event === "media") {
    const mulaw = decodeBase64(parsed.data.media.payload, MAX_AUDIO_PAYLOAD_BYTES);
    if (!mulaw.ok) return { ok: false, problem: mulaw.problem };
  }
  return { ok: true, value: parsed.data };
}

function readJson(text: string): TwilioResult<object> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return problem("invalid_json", `invalid JSON: ${(e as Error).message}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return problem("malformed", "a Twilio message must be a JSON object");
  }
  return { ok: true, value };
}

function problem(code: TwilioProblemCode, message: string): TwilioResult<never> {
  return { ok: false, problem: { code, message } };
}

// ---- writing (callbench as Twilio) -------------------------------------------------

/** The stream a {@link TwilioStream} describes. */
export interface TwilioStreamInit {
  streamSid: string;
  accountSid: string;
  callSid: string;
  /** Defaults to `["inbound"]`: the caller's audio. */
  tracks?: TwilioTrack[];
  customParameters?: Record<string, string>;
}

/**
 * Builds the messages of one stream, in order, as Twilio numbers them:
 * `sequenceNumber` counts every message from `start` (1) on; `media.chunk` counts
 * each track's media messages from 1; `media.timestamp` is the track's audio
 * position in ms (its µ-law bytes so far ÷ 8), so continuous 20 ms frames step by 20.
 * Misuse (media before `start`, anything after `stop`) throws: it is a bug here.
 */
export class TwilioStream {
  readonly init: Readonly<Required<TwilioStreamInit>>;
  #sequence = 0;
  #started = false;
  #stopped = false;
  readonly #chunks: Record<TwilioTrack, number> = { inbound: 0, outbound: 0 };
  readonly #bytes: Record<TwilioTrack, number> = { inbound: 0, outbound: 0 };

  constructor(init: TwilioStreamInit) {
    this.init = Object.freeze({
      streamSid: init.streamSid,
      accountSid: init.accountSid,
      callSid: init.callSid,
      tracks: [...(init.tracks ?? ["inbound" as const])],
      customParameters: { ...init.customParameters },
    });
  }

  /** The last sequence number used (0 before `start`). */
  get sequenceNumber(): number {
    return this.#sequence;
  }

  /** `connected`: the first message on the socket. */
  connected(): ConnectedMessage {
    return { event: "connected", protocol: "Call", version: "1.0.0" };
  }

  /** `start`: the stream's metadata and media format. */
  start(): StartMessage {
    if (this.#started) throw new Error("start was already sent");
    this.#started = true;
    const { streamSid, accountSid, callSid, tracks, customParameters } = this.init;
    return {
      event: "start",
      sequenceNumber: this.#next(),
      start: {
        accountSid,
        streamSid,
        callSid,
        tracks: [...tracks],
        mediaFormat: { ...TWILIO_MEDIA_FORMAT },
        customParameters: { ...customParameters },
      },
      streamSid,
    };
  }

  /**
   * One `media` message of µ-law bytes (a 20 ms frame is {@link TWILIO_FRAME_BYTES}).
   * `timestampMs` overrides the audio position when the sender keeps real time.
   */
  media(mulaw: Uint8Array, track: TwilioTrack = "inbound", timestampMs?: number): MediaMessage {
    this.#check(track);
    if (mulaw.length === 0 || mulaw.length > MAX_AUDIO_PAYLOAD_BYTES) {
      throw new RangeError(`a media payload holds 1 to ${MAX_AUDIO_PAYLOAD_BYTES} bytes`);
    }
    const position = Math.floor(this.#bytes[track] / (TWILIO_MEDIA_FORMAT.sampleRate / 1000));
    const timestamp = timestampMs ?? position;
    if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
      throw new RangeError(`timestamp must be whole non-negative ms: ${timestamp}`);
    }
    this.#bytes[track] += mulaw.length;
    return {
      event: "media",
      sequenceNumber: this.#next(),
      media: {
        track,
        chunk: String(++this.#chunks[track]),
        timestamp: String(timestamp),
        payload: encodeBase64(mulaw),
      },
      streamSid: this.init.streamSid,
    };
  }

  /** µ-law audio as 20 ms `media` frames; a short last frame is padded with silence. */
  frames(mulaw: Uint8Array, track: TwilioTrack = "inbound"): MediaMessage[] {
    const out: MediaMessage[] = [];
    for (let at = 0; at < mulaw.length; at += TWILIO_FRAME_BYTES) {
      let frame = mulaw.subarray(at, at + TWILIO_FRAME_BYTES);
      if (frame.length < TWILIO_FRAME_BYTES) {
        const padded = new Uint8Array(TWILIO_FRAME_BYTES).fill(MULAW_SILENCE);
        padded.set(frame);
        frame = padded;
      }
      out.push(this.media(frame, track));
    }
    return out;
  }

  /** `dtmf`: the caller pressed `digit`. */
  dtmf(digit: string): DtmfMessage {
    this.#check();
    if (!DtmfKey.safeParse(digit).success) throw new RangeError(`not a DTMF key: ${digit}`);
    return {
      event: "dtmf",
      streamSid: this.init.streamSid,
      sequenceNumber: this.#next(),
      dtmf: { track: "inbound_track", digit },
    };
  }

  /** `mark`: echoes the agent's mark `name` once the audio before it has played. */
  mark(name: string): MarkMessage {
    this.#check();
    return {
      event: "mark",
      sequenceNumber: this.#next(),
      streamSid: this.init.streamSid,
      mark: { name },
    };
  }

  /** `stop`: the last message of the stream. */
  stop(): StopMessage {
    this.#check();
    this.#stopped = true;
    const { accountSid, callSid, streamSid } = this.init;
    return {
      event: "stop",
      sequenceNumber: this.#next(),
      stop: { accountSid, callSid },
      streamSid,
    };
  }

  #check(track?: TwilioTrack): void {
    if (!this.#started) throw new Error("send start first");
    if (this.#stopped) throw new Error("the stream has stopped");
    if (track !== undefined && !this.init.tracks.includes(track)) {
      throw new RangeError(`track ${track} is not one of the stream's tracks`);
    }
  }

  #next(): string {
    return String(++this.#sequence);
  }
}

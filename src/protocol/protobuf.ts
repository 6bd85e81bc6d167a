/**
 * Pipecat's protobuf frame (`pipecat.Frame`), by hand. `message(4).data(1)` carries
 * RTVI JSON; `audio(2)` is an `AudioRawFrame` (`id=1 uint64, name=2 string, audio=3
 * bytes, sample_rate=4 uint32, num_channels=5 uint32, pts=6 optional uint64`) of PCM16;
 * `text(1)`, `transcription(3)` and `interruption(5)` are read too. Wire format: tag
 * varint `(field << 3) | wireType`, length-delimited fields as varint length then
 * bytes; writers leave proto3 defaults out, as the official serializer does, so frames
 * are byte-identical to it.
 *
 * {@link decodeFrame} only names the kind (and throws on malformed bytes);
 * {@link decodePipecatFrame} reads every kind's fields and returns problems as data.
 *
 * @module
 */
import {
  assertPcm,
  type AudioProblem,
  checkPcm,
  MAX_AUDIO_PAYLOAD_BYTES,
  type PcmAudio,
} from "./audio_payload.ts";

/** The oneof kinds of `pipecat.Frame`, by field number. */
export const FRAME_KINDS = {
  1: "text",
  2: "audio",
  3: "transcription",
  4: "message",
  5: "interruption",
} as const;

export type FrameKind = (typeof FRAME_KINDS)[keyof typeof FRAME_KINDS];

/** What a binary frame holds. */
export type PipecatFrame =
  | { kind: "message"; data: string }
  | { kind: Exclude<FrameKind, "message"> };

export class ProtobufError extends Error {
  /** `truncated` when the bytes end inside a field, else `malformed`. */
  readonly code: "truncated" | "malformed";
  constructor(message: string, code: "truncated" | "malformed" = "malformed") {
    super(message);
    this.name = "ProtobufError";
    this.code = code;
  }
}

const WIRE_VARINT = 0;
const WIRE_I64 = 1;
const WIRE_LEN = 2;
const WIRE_I32 = 5;

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

/** Bytes of `value` (a non-negative safe integer) as a base-128 varint. */
export function encodeVarint(value: number): Uint8Array {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`varint out of range: ${value}`);
  }
  const out: number[] = [];
  let v = value;
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
  return Uint8Array.from(out);
}

/** A varint at `offset`: its value and the offset after it. */
export function readVarint(bytes: Uint8Array, offset: number): { value: number; next: number } {
  let value = 0;
  let scale = 1;
  for (let i = 0; i < 10; i++) {
    const at = offset + i;
    if (at >= bytes.length) throw new ProtobufError("truncated varint", "truncated");
    const b = bytes[at]!;
    value += (b & 0x7f) * scale;
    if ((b & 0x80) === 0) {
      if (!Number.isSafeInteger(value)) throw new ProtobufError("varint too large");
      return { value, next: at + 1 };
    }
    scale *= 0x80;
  }
  throw new ProtobufError("varint longer than 10 bytes");
}

/** `Frame{message: MessageFrame{data: json}}` as bytes. */
export function encodeMessageFrame(json: string): Uint8Array<ArrayBuffer> {
  const data = encoder.encode(json);
  const inner = concat([Uint8Array.of((1 << 3) | WIRE_LEN), encodeVarint(data.length), data]);
  return concat([Uint8Array.of((4 << 3) | WIRE_LEN), encodeVarint(inner.length), inner]);
}

/**
 * Reads a `pipecat.Frame`. Unknown fields are skipped as proto3 readers do; a frame
 * that sets none of the oneof kinds, or is malformed, is a `ProtobufError`.
 */
export function decodeFrame(bytes: Uint8Array): PipecatFrame {
  const { kind, body } = readKind(bytes);
  if (kind === undefined) throw new ProtobufError("frame sets no known kind");
  return kind === "message" ? { kind, data: readMessageData(body) } : { kind };
}

/** The frame's oneof kind and body: in a oneof the last field seen wins. */
function readKind(bytes: Uint8Array): { kind: FrameKind | undefined; body: Uint8Array } {
  let kind: FrameKind | undefined;
  let body: Uint8Array = new Uint8Array();
  forEachField(bytes, (field, wire, value) => {
    const k = FRAME_KINDS[field as keyof typeof FRAME_KINDS];
    if (!k) return;
    if (wire !== WIRE_LEN || !(value instanceof Uint8Array)) {
      throw new ProtobufError(`field ${field} (${k}) has wire type ${wire}, expected 2`);
    }
    kind = k;
    body = value;
  });
  return { kind, body };
}

function readMessageData(bytes: Uint8Array): string {
  let data = "";
  forEachField(bytes, (field, wire, value) => {
    if (field !== 1) return;
    if (wire !== WIRE_LEN || !(value instanceof Uint8Array)) {
      throw new ProtobufError(`message.data has wire type ${wire}, expected 2`);
    }
    try {
      data = decoder.decode(value);
    } catch {
      throw new ProtobufError("message.data is not valid UTF-8");
    }
  });
  return data;
}

const UINT64_LIMIT = 1n << 64n;
const UINT32_MAX = 0xffff_ffff;
const UINT32_MAX_BIG = BigInt(UINT32_MAX);

/** Bytes of `value` (0 to 2^64 - 1) as a base-128 varint. */
export function encodeVarintBigInt(value: bigint): Uint8Array {
  if (value < 0n || value >= UINT64_LIMIT) throw new RangeError(`uint64 out of range: ${value}`);
  const out: number[] = [];
  let v = value;
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
  return Uint8Array.from(out);
}

/** A uint64 varint at `offset`, as a bigint, and the offset after it. */
export function readVarintBigInt(
  bytes: Uint8Array,
  offset: number,
): { value: bigint; next: number } {
  // Up to four bytes (under 2^28, most fields: rates, channels, lengths) the value is
  // summed in a 32-bit integer and made a BigInt once.
  let small = 0;
  for (let i = 0; i < 4; i++) {
    const at = offset + i;
    if (at >= bytes.length) throw new ProtobufError("truncated varint", "truncated");
    const b = bytes[at]!;
    small |= (b & 0x7f) << (7 * i);
    if ((b & 0x80) === 0) return { value: BigInt(small), next: at + 1 };
  }
  let value = 0n;
  for (let i = 0; i < 10; i++) {
    const at = offset + i;
    if (at >= bytes.length) throw new ProtobufError("truncated varint", "truncated");
    const b = bytes[at]!;
    value |= BigInt(b & 0x7f) << BigInt(7 * i);
    if ((b & 0x80) === 0) {
      if (value >= UINT64_LIMIT) throw new ProtobufError("varint too large");
      return { value, next: at + 1 };
    }
  }
  throw new ProtobufError("varint longer than 10 bytes");
}

/** The header fields every pipecat data frame carries. */
export interface FrameHeader {
  /** `uint64 id`; 0 when unset. */
  id: bigint;
  /** `string name`; "" when unset. */
  name: string;
}

/** A pipecat `AudioRawFrame`: PCM16 audio, its format, and its header. */
export interface PipecatAudioFrame extends PcmAudio, FrameHeader {
  /** `optional uint64 pts`: absent when the sender left it out. */
  pts?: bigint;
}

/** A pipecat `TextFrame`. */
export interface PipecatTextFrame extends FrameHeader {
  text: string;
}

/** A pipecat `TranscriptionFrame`. */
export interface PipecatTranscriptionFrame extends FrameHeader {
  text: string;
  userId: string;
  timestamp: string;
}

/** Every kind of `pipecat.Frame`, with its fields. */
export type DecodedFrame =
  | { kind: "message"; data: string }
  | ({ kind: "audio" } & PipecatAudioFrame)
  | ({ kind: "text" } & PipecatTextFrame)
  | ({ kind: "transcription" } & PipecatTranscriptionFrame)
  | ({ kind: "interruption" } & FrameHeader);

/** A decoded frame, or why it was refused (never an exception). */
export type FrameResult = { ok: true; frame: DecodedFrame } | { ok: false; problem: AudioProblem };

/** What {@link encodeAudioFrame} writes besides the audio. */
export interface AudioFrameOptions {
  /** Defaults to 0 (left out), as the official serializer. */
  id?: bigint;
  /** Defaults to `"audio"`, as the official serializer. */
  name?: string;
  pts?: bigint;
}

/**
 * `Frame{audio: AudioRawFrame{...}}` as bytes; byte-identical to
 * `ProtobufFrameSerializer.serializeAudio` for the same PCM, rate and channels.
 * Audio the guard refuses throws `AudioPayloadError`.
 */
export function encodeAudioFrame(
  audio: PcmAudio,
  options: AudioFrameOptions = {},
): Uint8Array<ArrayBuffer> {
  assertPcm(audio.pcm, audio.sampleRate, audio.numChannels);
  if (options.id === undefined && options.name === undefined && options.pts === undefined) {
    return _encodeDefaultAudioFrame(audio);
  }
  const inner = concat([
    ...headerFields(options.id ?? 0n, options.name ?? "audio"),
    ...bytesField(3, audio.pcm),
    ...varintField(4, BigInt(audio.sampleRate)),
    ...varintField(5, BigInt(audio.numChannels)),
    ...(options.pts === undefined ? [] : [tag(6, WIRE_VARINT), encodeVarintBigInt(options.pts)]),
  ]);
  return concat([tag(2, WIRE_LEN), encodeVarint(inner.length), inner]);
}

/** Bytes of a varint of a non-negative safe integer. */
function _varintSize(v: number): number {
  let n = 1;
  while (v >= 0x80) {
    v = Math.floor(v / 0x80);
    n++;
  }
  return n;
}

function _putVarint(out: Uint8Array, at: number, v: number): number {
  while (v >= 0x80) {
    out[at++] = (v % 0x80) | 0x80;
    v = Math.floor(v / 0x80);
  }
  out[at++] = v;
  return at;
}

// `name: "audio"` (field 2, length-delimited), as the official serializer writes it.
const AUDIO_NAME_FIELD = Uint8Array.of(2 * 8 + WIRE_LEN, 5, ...encoder.encode("audio"));

/**
 * {@link encodeAudioFrame} with the default id and name and no pts, written into one
 * buffer (the caller's audio goes out 62.5 times a second a call): the same bytes as
 * the general path.
 */
function _encodeDefaultAudioFrame(audio: PcmAudio): Uint8Array<ArrayBuffer> {
  const { pcm, sampleRate, numChannels } = audio;
  const pcmField = pcm.length === 0 ? 0 : 1 + _varintSize(pcm.length) + pcm.length;
  const rateField = sampleRate === 0 ? 0 : 1 + _varintSize(sampleRate);
  const channelsField = numChannels === 0 ? 0 : 1 + _varintSize(numChannels);
  const inner = AUDIO_NAME_FIELD.length + pcmField + rateField + channelsField;
  const out = new Uint8Array(1 + _varintSize(inner) + inner);
  out[0] = 2 * 8 + WIRE_LEN;
  let at = _putVarint(out, 1, inner);
  out.set(AUDIO_NAME_FIELD, at);
  at += AUDIO_NAME_FIELD.length;
  if (pcmField > 0) {
    out[at++] = 3 * 8 + WIRE_LEN;
    at = _putVarint(out, at, pcm.length);
    out.set(pcm, at);
    at += pcm.length;
  }
  if (rateField > 0) {
    out[at++] = 4 * 8 + WIRE_VARINT;
    at = _putVarint(out, at, sampleRate);
  }
  if (channelsField > 0) {
    out[at++] = 5 * 8 + WIRE_VARINT;
    _putVarint(out, at, numChannels);
  }
  return out;
}

/** `Frame{text: TextFrame{...}}` as bytes. */
export function encodeTextFrame(frame: Partial<PipecatTextFrame>): Uint8Array<ArrayBuffer> {
  const inner = concat([
    ...headerFields(frame.id ?? 0n, frame.name ?? ""),
    ...stringField(3, frame.text ?? ""),
  ]);
  return concat([tag(1, WIRE_LEN), encodeVarint(inner.length), inner]);
}

/** `Frame{transcription: TranscriptionFrame{...}}` as bytes. */
export function encodeTranscriptionFrame(
  frame: Partial<PipecatTranscriptionFrame>,
): Uint8Array<ArrayBuffer> {
  const inner = concat([
    ...headerFields(frame.id ?? 0n, frame.name ?? ""),
    ...stringField(3, frame.text ?? ""),
    ...stringField(4, frame.userId ?? ""),
    ...stringField(5, frame.timestamp ?? ""),
  ]);
  return concat([tag(3, WIRE_LEN), encodeVarint(inner.length), inner]);
}

/**
 * Reads a `pipecat.Frame` with all its fields. Malformed or truncated bytes, a frame
 * of no known kind, and audio the guard refuses (over `maxAudioBytes`, not whole
 * PCM16 sample frames, a sample rate outside `AUDIO_SAMPLE_RATES`, a channel count
 * other than 1 or 2) come back as a problem. The audio is copied out of `bytes`, unless
 * `copyAudio` is false: then it is a view of them, for a reader done with it before
 * `bytes` can change (one buffer less for each frame only passing through).
 */
export function decodePipecatFrame(
  bytes: Uint8Array,
  maxAudioBytes = MAX_AUDIO_PAYLOAD_BYTES,
  { copyAudio = true }: { copyAudio?: boolean } = {},
): FrameResult {
  try {
    const { kind, body } = readKind(bytes);
    switch (kind) {
      case undefined:
        return fail("malformed", "frame sets no known kind");
      case "message":
        return { ok: true, frame: { kind, data: readMessageData(body) } };
      case "audio":
        return readAudio(body, maxAudioBytes, copyAudio);
      case "text": {
        const f = readFields(body, kind, { 1: "uint64", 2: "string", 3: "string" });
        return { ok: true, frame: { kind, ...header(f), text: str(f[3]) } };
      }
      case "transcription": {
        const f = readFields(body, kind, {
          1: "uint64",
          2: "string",
          3: "string",
          4: "string",
          5: "string",
        });
        return {
          ok: true,
          frame: { kind, ...header(f), text: str(f[3]), userId: str(f[4]), timestamp: str(f[5]) },
        };
      }
      case "interruption":
        return { ok: true, frame: { kind, ...header(readFields(body, kind, HEADER)) } };
    }
  } catch (e) {
    if (e instanceof ProtobufError) return fail(e.code, `invalid protobuf frame: ${e.message}`);
    throw e;
  }
}

type FieldType = "uint64" | "uint32" | "string" | "bytes";
type FieldValue = bigint | number | string | Uint8Array;
const HEADER = { 1: "uint64", 2: "string" } as const;

function readAudio(body: Uint8Array, maxAudioBytes: number, copy: boolean): FrameResult {
  const f = readFields(body, "audio", {
    1: "uint64",
    2: "string",
    3: "bytes",
    4: "uint32",
    5: "uint32",
    6: "uint64",
  });
  const pts = f[6] as bigint | undefined;
  const audio = (f[3] as Uint8Array | undefined) ?? new Uint8Array();
  const checked = checkPcm(audio, Number(f[4] ?? 0), Number(f[5] ?? 0), maxAudioBytes);
  if (!checked.ok) return { ok: false, problem: checked.problem };
  const frame: { kind: "audio" } & PipecatAudioFrame = {
    kind: "audio",
    ...header(f),
    pcm: copy ? audio.slice() : audio,
    sampleRate: checked.value.sampleRate,
    numChannels: checked.value.numChannels,
  };
  if (pts !== undefined) frame.pts = pts;
  return { ok: true, frame };
}

/** Reads a sub-message's known fields by type (last one wins); unknown ones are skipped. */
function readFields(
  bytes: Uint8Array,
  kind: FrameKind,
  types: Record<number, FieldType>,
): Record<number, FieldValue> {
  const out: Record<number, FieldValue> = {};
  forEachField(bytes, (field, wire, value) => {
    const type = types[field];
    if (type === undefined) return;
    const expected = type === "string" || type === "bytes" ? WIRE_LEN : WIRE_VARINT;
    if (wire !== expected) {
      throw new ProtobufError(
        `${kind} field ${field} has wire type ${wire}, expected ${expected}`,
      );
    }
    let v: FieldValue;
    if (type === "string") v = utf8(value as Uint8Array, `${kind} field ${field}`);
    else if (type === "bytes") v = value as Uint8Array;
    else if (type === "uint32") {
      if ((value as bigint) > UINT32_MAX_BIG) {
        throw new ProtobufError(`${kind} field ${field} is out of range for uint32`);
      }
      v = Number(value);
    } else v = value as bigint;
    out[field] = v;
  });
  return out;
}

function header(f: Record<number, FieldValue>): FrameHeader {
  return { id: (f[1] as bigint | undefined) ?? 0n, name: str(f[2]) };
}

function str(v: FieldValue | undefined): string {
  return typeof v === "string" ? v : "";
}

function utf8(bytes: Uint8Array, what: string): string {
  // Short ASCII (a frame's name, a transcript's timestamp) is its own UTF-8: read in JS,
  // without a call into the decoder for every frame.
  if (bytes.length <= 64) {
    let ascii = true;
    for (let i = 0; i < bytes.length; i++) if (bytes[i]! >= 0x80) ascii = false;
    if (ascii) return String.fromCharCode(...bytes);
  }
  try {
    return decoder.decode(bytes);
  } catch {
    throw new ProtobufError(`${what} is not valid UTF-8`);
  }
}

function fail(code: AudioProblem["code"], message: string): FrameResult {
  return { ok: false, problem: { code, message } };
}

function tag(field: number, wire: number): Uint8Array {
  return encodeVarint(field * 8 + wire);
}

function headerFields(id: bigint, name: string): Uint8Array[] {
  return [...varintField(1, id), ...stringField(2, name)];
}

function varintField(field: number, value: bigint): Uint8Array[] {
  return value === 0n ? [] : [tag(field, WIRE_VARINT), encodeVarintBigInt(value)];
}

function stringField(field: number, value: string): Uint8Array[] {
  return value === "" ? [] : bytesField(field, encoder.encode(value));
}

function bytesField(field: number, value: Uint8Array): Uint8Array[] {
  return value.length === 0 ? [] : [tag(field, WIRE_LEN), encodeVarint(value.length), value];
}

/** Calls `fn` for each field; length-delimited values are passed as subarrays. */
function forEachField(
  bytes: Uint8Array,
  fn: (field: number, wire: number, value: Uint8Array | bigint | number) => void,
): void {
  let at = 0;
  while (at < bytes.length) {
    const tag = readVarint(bytes, at);
    at = tag.next;
    const field = Math.floor(tag.value / 8);
    const wire = tag.value % 8;
    if (field === 0) throw new ProtobufError("field number 0");
    switch (wire) {
      case WIRE_VARINT: {
        const v = readVarintBigInt(bytes, at);
        at = v.next;
        fn(field, wire, v.value);
        break;
      }
      case WIRE_I64:
      case WIRE_I32: {
        const size = wire === WIRE_I64 ? 8 : 4;
        if (at + size > bytes.length) {
          throw new ProtobufError("truncated fixed-width field", "truncated");
        }
        at += size;
        fn(field, wire, 0);
        break;
      }
      case WIRE_LEN: {
        const len = readVarint(bytes, at);
        at = len.next;
        if (at + len.value > bytes.length) {
          throw new ProtobufError("truncated length-delimited field", "truncated");
        }
        fn(field, wire, bytes.subarray(at, at + len.value));
        at += len.value;
        break;
      }
      default:
        throw new ProtobufError(`unsupported wire type ${wire}`);
    }
  }
}

function concat(parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

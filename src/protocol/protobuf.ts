/**
 * Pipecat's protobuf frame (`pipecat.Frame`), by hand: only `message(4).data(1)`
 * carries RTVI JSON; the other kinds of the oneof (text, audio, transcription,
 * interruption) are recognised so they can be skipped or refused. Wire format:
 * tag varint `(field << 3) | wireType`, length-delimited fields as varint length
 * then bytes.
 *
 * @module
 */

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
  constructor(message: string) {
    super(message);
    this.name = "ProtobufError";
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
    if (at >= bytes.length) throw new ProtobufError("truncated varint");
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
  let kind: FrameKind | undefined;
  let data: string | undefined;
  forEachField(bytes, (field, wire, value) => {
    const k = FRAME_KINDS[field as keyof typeof FRAME_KINDS];
    if (!k) return;
    if (wire !== WIRE_LEN || !(value instanceof Uint8Array)) {
      throw new ProtobufError(`field ${field} (${k}) has wire type ${wire}, expected 2`);
    }
    // In a oneof the last field seen wins.
    kind = k;
    data = k === "message" ? readMessageData(value) : undefined;
  });
  if (kind === undefined) throw new ProtobufError("frame sets no known kind");
  return kind === "message" ? { kind, data: data ?? "" } : { kind };
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

/** Calls `fn` for each field; length-delimited values are passed as subarrays. */
function forEachField(
  bytes: Uint8Array,
  fn: (field: number, wire: number, value: Uint8Array | number) => void,
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
        const v = readVarint(bytes, at);
        at = v.next;
        fn(field, wire, v.value);
        break;
      }
      case WIRE_I64:
      case WIRE_I32: {
        const size = wire === WIRE_I64 ? 8 : 4;
        if (at + size > bytes.length) throw new ProtobufError("truncated fixed-width field");
        at += size;
        fn(field, wire, 0);
        break;
      }
      case WIRE_LEN: {
        const len = readVarint(bytes, at);
        at = len.next;
        if (at + len.value > bytes.length) {
          throw new ProtobufError("truncated length-delimited field");
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

/**
 * How RTVI messages travel over a WebSocket: as JSON text frames, or as pipecat's
 * protobuf binary frames (`Frame.message.data` holding the same JSON). A server
 * answers in the framing the client used.
 *
 * @module
 */
import { decodeFrame, encodeMessageFrame, ProtobufError } from "./protobuf.ts";
import type { RtviMessage } from "./messages.ts";

/** How an RTVI message is framed: JSON text, or pipecat protobuf bytes. */
export type Framing = "json" | "protobuf";

/** Frames over this many bytes are refused (the reference bot's cap is about 1 MB). */
export const MAX_FRAME_BYTES = 1 << 20;

/** What one incoming frame held. */
export type IncomingFrame =
  /** RTVI JSON text. */
  | { ok: true; framing: Framing; text: string }
  /** A protobuf frame of another kind (audio, ...): nothing to do. */
  | { ok: true; framing: "protobuf"; skipped: string }
  | { ok: false; framing: Framing; error: string };

/** Reads one frame as received: text is JSON framing, bytes are protobuf framing. */
export function readFrame(
  data: string | ArrayBufferLike | ArrayBufferView,
  maxBytes = MAX_FRAME_BYTES,
): IncomingFrame {
  if (typeof data === "string") {
    // UTF-8 takes at most three bytes per UTF-16 unit: most frames need no count.
    const size = data.length * 3 <= maxBytes ? 0 : utf8Length(data);
    if (size > maxBytes) return { ok: false, framing: "json", error: tooLarge(size, maxBytes) };
    return { ok: true, framing: "json", text: data };
  }
  const bytes = ArrayBuffer.isView(data)
    ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
    : new Uint8Array(data);
  if (bytes.length > maxBytes) {
    return { ok: false, framing: "protobuf", error: tooLarge(bytes.length, maxBytes) };
  }
  try {
    const frame = decodeFrame(bytes);
    if (frame.kind === "message") return { ok: true, framing: "protobuf", text: frame.data };
    if (frame.kind === "audio" || frame.kind === "interruption") {
      return { ok: true, framing: "protobuf", skipped: frame.kind };
    }
    return {
      ok: false,
      framing: "protobuf",
      error:
        `unsupported protobuf frame kind "${frame.kind}": send RTVI messages as message frames`,
    };
  } catch (e) {
    if (e instanceof ProtobufError) {
      return { ok: false, framing: "protobuf", error: `invalid protobuf frame: ${e.message}` };
    }
    throw e;
  }
}

/** One message as a frame in the given framing. */
export function writeFrame(
  message: RtviMessage,
  framing: Framing,
): string | Uint8Array<ArrayBuffer> {
  const json = JSON.stringify(message);
  return framing === "json" ? json : encodeMessageFrame(json);
}

/** The UTF-8 size of `text`, counted without encoding it. */
function utf8Length(text: string): number {
  let size = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) size += 1;
    else if (c < 0x800) size += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      size += 4; // a surrogate pair is one 4-byte code point
      i++;
    } else size += 3;
  }
  return size;
}

function tooLarge(size: number, limit: number): string {
  return `frame too large: ${size} bytes (limit ${limit})`;
}

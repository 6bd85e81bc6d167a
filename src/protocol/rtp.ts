/**
 * RTP (RFC 3550) packets and RFC 4733 telephone events, as pure functions over bytes.
 * {@link parseRtp} reads a packet (version 2, CSRC list and header extension skipped,
 * padding removed) and never throws: a bad packet is an {@link RtpError} with a code.
 * {@link buildRtp} writes one. {@link parseTelephoneEvent} and
 * {@link buildTelephoneEvent} read and write the 4-byte event payload, and
 * {@link telephoneEventPackets} plans the packets of one key press: the first with the
 * marker bit, updates every 20 ms with a growing duration on one timestamp, and the end
 * packet three times, as RFC 4733 section 2.5.1.4 asks.
 *
 * @example
 * ```ts
 * const bytes = buildRtp({ payloadType: 0, sequence: 1, timestamp: 160, ssrc: 7, payload: new Uint8Array(160) });
 * const read = parseRtp(bytes);
 * if (read.ok) console.log(read.packet.sequence); // 1
 * ```
 *
 * @module
 */
import { DTMF_KEY_CHARS } from "../dtmf/keys.ts";

/** The fixed header's size; a packet is at least this long. */
export const RTP_HEADER_BYTES = 12;
/** Largest packet accepted (a UDP datagram's payload). */
export const MAX_RTP_BYTES = 65_507;

/** Why a packet was refused. */
export type RtpErrorCode =
  | "rtp_short"
  | "rtp_version"
  | "rtp_csrc"
  | "rtp_extension"
  | "rtp_padding"
  | "rtp_too_large";

/** A refused packet: its code and a message naming what is wrong. */
export interface RtpError {
  code: RtpErrorCode;
  message: string;
}

/** One RTP packet as read. */
export interface RtpPacket {
  payloadType: number;
  marker: boolean;
  /** 16-bit sequence number. */
  sequence: number;
  /** 32-bit media timestamp (8 kHz clock for G.711 and telephone-event). */
  timestamp: number;
  ssrc: number;
  csrc: number[];
  /** The payload, padding removed (a view on the input). */
  payload: Uint8Array;
}

/** What {@link parseRtp} returns. */
export type RtpParse = { ok: true; packet: RtpPacket } | { ok: false; error: RtpError };

function fail(code: RtpErrorCode, message: string): RtpParse {
  return { ok: false, error: { code, message } };
}

/** Reads one RTP packet; never throws. */
export function parseRtp(bytes: Uint8Array): RtpParse {
  if (bytes.length > MAX_RTP_BYTES) {
    return fail("rtp_too_large", `RTP packet of ${bytes.length} bytes is over ${MAX_RTP_BYTES}`);
  }
  if (bytes.length < RTP_HEADER_BYTES) {
    return fail("rtp_short", `RTP packet of ${bytes.length} bytes is shorter than its header`);
  }
  const b0 = bytes[0]!;
  const version = b0 >> 6;
  if (version !== 2) return fail("rtp_version", `RTP version ${version}, expected 2`);
  const padding = (b0 & 0x20) !== 0;
  const extension = (b0 & 0x10) !== 0;
  const csrcCount = b0 & 0x0f;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let offset = RTP_HEADER_BYTES + 4 * csrcCount;
  if (offset > bytes.length) {
    return fail("rtp_csrc", `RTP packet too short for its ${csrcCount} CSRC entries`);
  }
  const csrc: number[] = [];
  for (let i = 0; i < csrcCount; i++) csrc.push(view.getUint32(RTP_HEADER_BYTES + 4 * i));
  if (extension) {
    if (offset + 4 > bytes.length) {
      return fail("rtp_extension", "RTP packet too short for its header extension");
    }
    const words = view.getUint16(offset + 2);
    offset += 4 + 4 * words;
    if (offset > bytes.length) {
      return fail("rtp_extension", `RTP header extension of ${words} words runs past the packet`);
    }
  }
  let end = bytes.length;
  if (padding) {
    const count = bytes[bytes.length - 1]!;
    if (count === 0 || end - count < offset) {
      return fail("rtp_padding", `RTP padding of ${count} bytes does not fit the packet`);
    }
    end -= count;
  }
  return {
    ok: true,
    packet: {
      payloadType: bytes[1]! & 0x7f,
      marker: (bytes[1]! & 0x80) !== 0,
      sequence: view.getUint16(2),
      timestamp: view.getUint32(4),
      ssrc: view.getUint32(8),
      csrc,
      payload: bytes.subarray(offset, end),
    },
  };
}

/** What {@link buildRtp} writes (no CSRC, no extension, no padding). */
export interface RtpHeaderFields {
  payloadType: number;
  marker?: boolean;
  sequence: number;
  timestamp: number;
  ssrc: number;
  payload: Uint8Array;
}

/** Writes one RTP packet; numbers wrap to their field widths. */
export function buildRtp(fields: RtpHeaderFields): Uint8Array {
  const out = new Uint8Array(RTP_HEADER_BYTES + fields.payload.length);
  const view = new DataView(out.buffer);
  out[0] = 0x80;
  out[1] = (fields.marker ? 0x80 : 0) | (fields.payloadType & 0x7f);
  view.setUint16(2, fields.sequence & 0xffff);
  view.setUint32(4, fields.timestamp >>> 0);
  view.setUint32(8, fields.ssrc >>> 0);
  out.set(fields.payload, RTP_HEADER_BYTES);
  return out;
}

/** How far `a` is ahead of `b` in 16-bit sequence space (negative when behind). */
export function sequenceDelta(a: number, b: number): number {
  const d = (a - b) & 0xffff;
  return d >= 0x8000 ? d - 0x10000 : d;
}

// ---- RFC 4733 telephone events ---------------------------------------------------

/** One telephone-event payload. */
export interface TelephoneEvent {
  /** Event code: 0-9 digits, 10 `*`, 11 `#`, 12-15 `A`-`D`. */
  event: number;
  /** The last packet(s) of the event. */
  end: boolean;
  /** Power level in -dBm0, 0..63. */
  volume: number;
  /** Duration so far, in timestamp units (8 kHz: 8 a millisecond). */
  duration: number;
}

/** A refused telephone-event payload. */
export interface TelephoneEventError {
  code: "event_short";
  message: string;
}

/** What {@link parseTelephoneEvent} returns. */
export type TelephoneEventParse =
  | { ok: true; event: TelephoneEvent }
  | { ok: false; error: TelephoneEventError };

/** Reads a telephone-event payload (4 bytes; more are ignored); never throws. */
export function parseTelephoneEvent(payload: Uint8Array): TelephoneEventParse {
  if (payload.length < 4) {
    return {
      ok: false,
      error: {
        code: "event_short",
        message: `telephone-event payload of ${payload.length} bytes, expected 4`,
      },
    };
  }
  return {
    ok: true,
    event: {
      event: payload[0]!,
      end: (payload[1]! & 0x80) !== 0,
      volume: payload[1]! & 0x3f,
      duration: (payload[2]! << 8) | payload[3]!,
    },
  };
}

/** Writes a telephone-event payload. */
export function buildTelephoneEvent(e: TelephoneEvent): Uint8Array {
  const duration = Math.max(0, Math.min(0xffff, Math.round(e.duration)));
  return Uint8Array.of(
    e.event & 0xff,
    (e.end ? 0x80 : 0) | (e.volume & 0x3f),
    duration >> 8,
    duration & 0xff,
  );
}

/** The event code of a DTMF key (`"5"` → 5, `"*"` → 10, `"#"` → 11, `"A"` → 12). */
export function dtmfEventCode(key: string): number | undefined {
  const i = DTMF_KEY_CHARS.indexOf(key);
  return key.length === 1 && i >= 0 ? i : undefined;
}

/** The DTMF key of an event code, or undefined for codes that are not keys (16+). */
export function dtmfKeyOfEvent(code: number): string | undefined {
  return Number.isInteger(code) && code >= 0 && code < 16 ? DTMF_KEY_CHARS[code] : undefined;
}

/** One packet of a planned key press. */
export interface PlannedEventPacket {
  /** When to send it, in ms from the press's start. */
  atMs: number;
  /** Marker bit: set on the first packet only. */
  marker: boolean;
  /** The payload, the same timestamp for every packet of the press. */
  payload: Uint8Array;
}

/** How one key press is sent. */
export interface EventPlan {
  /** How long the key is held, ms (default 100). */
  durationMs?: number;
  /** Packet interval, ms (default 20). */
  intervalMs?: number;
  /** -dBm0 (default 10). */
  volume?: number;
  /** Media clock, Hz (default 8000). */
  clockRate?: number;
}

/**
 * The packets of one key press (RFC 4733 section 2.5): updates every interval with the
 * duration so far (the first with the marker bit), then the end packet three times.
 * They all carry the press's start timestamp; the caller gives each its own sequence.
 */
export function telephoneEventPackets(key: string, plan: EventPlan = {}): PlannedEventPacket[] {
  const code = dtmfEventCode(key);
  if (code === undefined) return [];
  const durationMs = plan.durationMs ?? 100;
  const intervalMs = plan.intervalMs ?? 20;
  const volume = plan.volume ?? 10;
  const perMs = (plan.clockRate ?? 8000) / 1000;
  const out: PlannedEventPacket[] = [];
  for (let t = 0; t < durationMs; t += intervalMs) {
    out.push({
      atMs: t,
      marker: t === 0,
      payload: buildTelephoneEvent({
        event: code,
        end: false,
        volume,
        duration: Math.min(t + intervalMs, durationMs) * perMs,
      }),
    });
  }
  const endPayload = buildTelephoneEvent({
    event: code,
    end: true,
    volume,
    duration: durationMs * perMs,
  });
  for (let k = 0; k < 3; k++) {
    out.push({ atMs: durationMs + k * intervalMs, marker: false, payload: endPayload });
  }
  return out;
}

/**
 * Hears key presses from telephone-event packets: a press counts once, at its first
 * packet (the end packet's three copies and the updates share the event's timestamp).
 */
export class TelephoneEventReceiver {
  #last: { timestamp: number; event: number } | undefined;

  /** Feeds one packet; returns the key when this packet starts a new press. */
  push(timestamp: number, payload: Uint8Array): string | undefined {
    const read = parseTelephoneEvent(payload);
    if (!read.ok) return undefined;
    const { event } = read.event;
    if (this.#last && this.#last.timestamp === timestamp && this.#last.event === event) {
      return undefined;
    }
    this.#last = { timestamp, event };
    return dtmfKeyOfEvent(event);
  }
}

/**
 * STOPGAP, to be replaced by the wire modules of `src/protocol/sip.ts`, `sdp.ts`,
 * `rtp.ts` and `src/audio/alaw.ts` once they are merged: the least of SIP, SDP, RTP,
 * RFC 4733 and A-law that `serve --sip` needs to answer a call, so its server can be
 * built and tested before they land. Nothing else imports it.
 *
 * @module
 */

/** A parsed SIP message. */
export type SipMessage =
  | { kind: "request"; method: string; uri: string; headers: [string, string][]; body: string }
  | { kind: "response"; status: number; reason: string; headers: [string, string][]; body: string };

/** A parse, or why not (with the headers read so far, when the start line was one). */
export type ParsedSip =
  | { ok: true; message: SipMessage }
  | { ok: false; error: string; partial?: { headers: [string, string][]; request: boolean } };

const MAX_MESSAGE = 65_535;
const MAX_HEADERS = 128;

export function parseSipMessage(data: Uint8Array): ParsedSip {
  if (data.length > MAX_MESSAGE) return { ok: false, error: "message too large" };
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(data);
  } catch {
    return { ok: false, error: "not UTF-8" };
  }
  const end = text.indexOf("\r\n\r\n");
  const head = end < 0 ? text : text.slice(0, end);
  const lines = head.split("\r\n");
  const start = lines.shift() ?? "";
  const request = /^([A-Z][A-Z-]{0,31}) (\S{1,2048}) SIP\/2\.0$/.exec(start);
  const response = /^SIP\/2\.0 ([1-6]\d\d) ([^\r\n]{0,256})$/.exec(start);
  if (!request && !response) return { ok: false, error: "no SIP start line" };
  const headers: [string, string][] = [];
  for (const line of lines) {
    if (/^[ \t]/.test(line) && headers.length > 0) {
      headers[headers.length - 1]![1] += " " + line.trim();
      continue;
    }
    const m = /^([A-Za-z0-9!%'*+.^_`|~-]{1,64})[ \t]*:[ \t]*(.*)$/.exec(line);
    if (!m) {
      return {
        ok: false,
        error: `bad header line`,
        partial: { headers, request: request !== null },
      };
    }
    headers.push([m[1]!, m[2]!.trim()]);
    if (headers.length > MAX_HEADERS) return { ok: false, error: "too many headers" };
  }
  if (end < 0) {
    return {
      ok: false,
      error: "no end of headers",
      partial: { headers, request: request !== null },
    };
  }
  const lengthText = headers.find(([n]) => /^(content-length|l)$/i.test(n))?.[1];
  const body = text.slice(end + 4);
  let bodyText = body;
  if (lengthText !== undefined) {
    if (!/^\d{1,5}$/.test(lengthText)) {
      return {
        ok: false,
        error: "bad Content-Length",
        partial: { headers, request: request !== null },
      };
    }
    const length = Number(lengthText);
    const bytes = new TextEncoder().encode(body);
    if (bytes.length < length) {
      return {
        ok: false,
        error: "body shorter than Content-Length",
        partial: { headers, request: request !== null },
      };
    }
    bodyText = new TextDecoder().decode(bytes.slice(0, length));
  }
  if (request) {
    return {
      ok: true,
      message: { kind: "request", method: request[1]!, uri: request[2]!, headers, body: bodyText },
    };
  }
  return {
    ok: true,
    message: {
      kind: "response",
      status: Number(response![1]),
      reason: response![2]!,
      headers,
      body: bodyText,
    },
  };
}

// ---- SDP ------------------------------------------------------------------------------

/** The answer to an offer, formatted once our address and port are known. */
export interface SdpAnswer {
  format(host: string, port: number): string;
}

export function negotiateAnswer(sdp: string): {
  ok: true;
  media: {
    codec: "PCMU" | "PCMA";
    payloadType: number;
    eventPayloadType?: number;
    remote: { address: string; port: number };
    answer: SdpAnswer;
  };
} | { ok: false; error: string } {
  const lines = sdp.split(/\r?\n/);
  const c = lines.map((l) => /^c=IN IP4 (\S+)/.exec(l)?.[1]).find(Boolean);
  const m = lines.map((l) => /^m=audio (\d+) RTP\/AVP ((?:\d+ ?)+)$/.exec(l.trim())).find(Boolean);
  if (!c || !m) return { ok: false, error: "the offer has no audio stream over RTP/AVP" };
  const formats = m[2]!.trim().split(" ").map(Number);
  const rtpmap = new Map<number, string>();
  for (const l of lines) {
    const r = /^a=rtpmap:(\d+) ([^/\s]+)\/(\d+)/.exec(l);
    if (r) rtpmap.set(Number(r[1]), `${r[2]!.toUpperCase()}/${r[3]}`);
  }
  const nameOf = (pt: number) =>
    rtpmap.get(pt) ?? (pt === 0 ? "PCMU/8000" : pt === 8 ? "PCMA/8000" : "");
  const pick = formats.find((pt) => nameOf(pt) === "PCMU/8000" || nameOf(pt) === "PCMA/8000");
  if (pick === undefined) return { ok: false, error: "no common codec (PCMU or PCMA at 8000 Hz)" };
  const codec = nameOf(pick).startsWith("PCMU") ? "PCMU" : "PCMA";
  const event = formats.find((pt) => nameOf(pt) === "TELEPHONE-EVENT/8000");
  const session = crypto.getRandomValues(new Uint32Array(1))[0]!;
  return {
    ok: true,
    media: {
      codec,
      payloadType: pick,
      ...(event !== undefined ? { eventPayloadType: event } : {}),
      remote: { address: c, port: Number(m[1]) },
      answer: {
        format: (host, port) =>
          [
            "v=0",
            `o=callbench ${session} ${session} IN IP4 ${host}`,
            "s=callbench",
            `c=IN IP4 ${host}`,
            "t=0 0",
            `m=audio ${port} RTP/AVP ${pick}${event !== undefined ? ` ${event}` : ""}`,
            `a=rtpmap:${pick} ${codec}/8000`,
            ...(event !== undefined
              ? [`a=rtpmap:${event} telephone-event/8000`, `a=fmtp:${event} 0-15`]
              : []),
            "a=ptime:20",
            "a=sendrecv",
            "",
          ].join("\r\n"),
      },
    },
  };
}

// ---- RTP ------------------------------------------------------------------------------

export function buildRtpPacket(p: {
  payloadType: number;
  marker: boolean;
  sequenceNumber: number;
  timestamp: number;
  ssrc: number;
  payload: Uint8Array;
}): Uint8Array {
  const out = new Uint8Array(12 + p.payload.length);
  const v = new DataView(out.buffer);
  out[0] = 0x80;
  out[1] = (p.marker ? 0x80 : 0) | (p.payloadType & 0x7f);
  v.setUint16(2, p.sequenceNumber & 0xffff);
  v.setUint32(4, p.timestamp >>> 0);
  v.setUint32(8, p.ssrc >>> 0);
  out.set(p.payload, 12);
  return out;
}

export function parseRtpPacket(data: Uint8Array): {
  ok: true;
  packet: { payloadType: number; sequenceNumber: number; timestamp: number; payload: Uint8Array };
} | { ok: false } {
  if (data.length < 12 || data[0]! >> 6 !== 2) return { ok: false };
  const v = new DataView(data.buffer, data.byteOffset, data.byteLength);
  let at = 12 + (data[0]! & 0x0f) * 4;
  if (data[0]! & 0x10) {
    if (data.length < at + 4) return { ok: false };
    at += 4 + v.getUint16(at + 2) * 4;
  }
  let end = data.length;
  if (data[0]! & 0x20) end -= data[data.length - 1]!;
  if (at > end) return { ok: false };
  return {
    ok: true,
    packet: {
      payloadType: data[1]! & 0x7f,
      sequenceNumber: v.getUint16(2),
      timestamp: v.getUint32(4),
      payload: data.subarray(at, end),
    },
  };
}

export function buildTelephoneEvent(
  e: { event: number; end: boolean; volume: number; duration: number },
): Uint8Array {
  return Uint8Array.of(
    e.event,
    (e.end ? 0x80 : 0) | (e.volume & 0x3f),
    (e.duration >> 8) & 0xff,
    e.duration & 0xff,
  );
}

export function parseTelephoneEvent(
  payload: Uint8Array,
): { ok: true; value: { event: number; end: boolean } } | { ok: false } {
  if (payload.length < 4) return { ok: false };
  return { ok: true, value: { event: payload[0]!, end: (payload[1]! & 0x80) !== 0 } };
}

// ---- A-law (G.711) -------------------------------------------------------------------

const ALAW_SEG_END = [0x1f, 0x3f, 0x7f, 0xff, 0x1ff, 0x3ff, 0x7ff, 0xfff];

export function alawEncode(samples: Int16Array): Uint8Array {
  const out = new Uint8Array(samples.length);
  for (let i = 0; i < samples.length; i++) {
    let pcm = samples[i]! >> 3;
    let mask = 0xd5;
    if (pcm < 0) {
      mask = 0x55;
      pcm = -pcm - 1;
    }
    let seg = 0;
    while (seg < 8 && pcm > ALAW_SEG_END[seg]!) seg++;
    if (seg >= 8) {
      out[i] = 0x7f ^ mask;
      continue;
    }
    const aval = (seg << 4) | ((seg < 2 ? pcm >> 1 : pcm >> seg) & 0x0f);
    out[i] = aval ^ mask;
  }
  return out;
}

export function alawDecode(bytes: Uint8Array): Int16Array {
  const out = new Int16Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) {
    const a = bytes[i]! ^ 0x55;
    const e = (a >> 4) & 0x07;
    const m = a & 0x0f;
    let s = e === 0 ? (m << 4) + 8 : ((m << 4) + 0x108) << (e - 1);
    if ((a & 0x80) === 0) s = -s;
    out[i] = s;
  }
  return out;
}

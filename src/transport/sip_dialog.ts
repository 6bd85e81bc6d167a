/**
 * What both of callbench's SIP user agents (the dialling one, `./sip.ts`, and the
 * answering one, `src/server/sip_server.ts`) do alike to live among real phones and
 * proxies, over src/protocol/sip.ts:
 *
 * - CRLF keep-alives (RFC 5626 §3.5.1): a datagram of nothing but CR and LF is no
 *   message; a double CRLF ("ping") is answered with one CRLF ("pong").
 * - `rport` and `received` (RFC 3581): the top Via of a request is stamped with the
 *   address and port it really came from, so every response copies them, and goes there.
 * - Route sets (RFC 3261 §12.1): the `Record-Route` of the request or response that made
 *   the dialog, in order for the answering side and reversed for the calling side; every
 *   later request in the dialog carries them as `Route` and goes to the first one (loose
 *   routing, `;lr`), else straight to the far end's Contact.
 * - SIP INFO keys: `application/dtmf-relay` (`Signal=5`) and `application/dtmf` (`5`).
 * - Whether an SDP's address can be the source of the call's RTP at all (else the first
 *   packet is latched, wherever it comes from).
 *
 * @module
 */
import {
  headerValue,
  headerValues,
  parseNameAddr,
  parseSipUri,
  parseVia,
  type SipHeader,
  type SipMessage,
} from "../protocol/sip.ts";

/** The answer to a CRLF ping: one CRLF. */
export const KEEPALIVE_PONG = new Uint8Array([0x0d, 0x0a]);

/** What a datagram of only CR and LF is: a ping (a double CRLF), a pong, or neither. */
export function keepAliveOf(bytes: Uint8Array): "ping" | "pong" | undefined {
  if (bytes.length === 0 || bytes.length > 64) return undefined;
  for (const b of bytes) if (b !== 0x0d && b !== 0x0a) return undefined;
  return bytes.length >= 4 ? "ping" : "pong";
}

/** Where a datagram came from. */
export interface SipSource {
  address: string;
  port: number;
}

/**
 * The request with its top Via stamped as RFC 3581 says: `received` when the address
 * differs from the Via's (or the Via asks for `rport`), and `rport=PORT` when asked.
 */
export function stampVia<M extends SipMessage>(message: M, from: SipSource): M {
  const i = message.headers.findIndex(([n]) => n === "Via");
  if (i < 0) return message;
  const value = message.headers[i]![1];
  // The top Via is the first of a comma-separated list.
  const comma = topViaEnd(value);
  const top = value.slice(0, comma);
  const via = parseVia(top);
  if (!via) return message;
  const asked = "rport" in via.params;
  if (!asked && via.host === from.address) return message;
  let stamped = top.replace(/;\s*(received|rport)(=[^;]*)?/gi, "");
  stamped += `;received=${from.address}`;
  if (asked) stamped += `;rport=${from.port}`;
  const headers = [...message.headers];
  headers[i] = ["Via", stamped + value.slice(comma)];
  return { ...message, headers };
}

function topViaEnd(value: string): number {
  let quoted = false;
  for (let i = 0; i < value.length; i++) {
    if (value[i] === '"') quoted = !quoted;
    else if (!quoted && value[i] === ",") return i;
  }
  return value.length;
}

/**
 * The dialog's route set from the message that made it: its Record-Route values, in
 * order for the side that answered the INVITE (`uas`), reversed for the caller (`uac`).
 */
export function routeSetOf(message: SipMessage, side: "uac" | "uas"): string[] {
  const set = headerValues(message, "Record-Route");
  return side === "uac" ? set.reverse() : set;
}

/** The Route headers a request in the dialog carries. */
export function routeHeaders(routeSet: readonly string[]): SipHeader[] {
  return routeSet.map((r) => ["Route", r] as const);
}

/** The Record-Route headers a 2xx to the dialog's INVITE copies (RFC 3261 §12.1.1). */
export function recordRouteHeaders(message: SipMessage): SipHeader[] {
  return message.headers.filter(([n]) => n === "Record-Route");
}

/**
 * Where a request in the dialog goes: the first route's address (loose routing), else
 * `fallback` (the far end's Contact or the source it spoke from). Undefined when the
 * first route names no host this side can send to.
 */
export function nextHop(
  routeSet: readonly string[],
  fallback: SipSource,
): SipSource | undefined {
  const first = routeSet[0];
  if (first === undefined) return fallback;
  const uri = parseSipUri(parseNameAddr(first)?.uri ?? "");
  if (!uri) return undefined;
  const host = uri.host === "localhost" ? "127.0.0.1" : uri.host;
  return { address: host, port: uri.port ?? 5060 };
}

/** The key a SIP INFO carries (`application/dtmf-relay` or `application/dtmf`), if any. */
export function infoKeyOf(message: SipMessage): string | undefined {
  const type = (headerValue(message, "Content-Type") ?? "").split(";")[0]!.trim().toLowerCase();
  const body = message.body.trim();
  let value: string | undefined;
  if (type === "application/dtmf-relay") value = /(?:^|\n)\s*signal\s*=\s*(\S+)/i.exec(body)?.[1];
  else if (type === "application/dtmf") value = /^(\S+)/.exec(body)?.[1];
  else return undefined;
  // RFC 4733's event codes 10 and 11 are * and #; some phones send the numbers.
  const key = value === "10" ? "*" : value === "11" ? "#" : value?.toUpperCase();
  return key !== undefined && /^[0-9*#A-D]$/.test(key) ? key : undefined;
}

/** Whether a request's Content-Type is one of the INFO key types. */
export function isInfoKeyType(message: SipMessage): boolean {
  const type = (headerValue(message, "Content-Type") ?? "").split(";")[0]!.trim().toLowerCase();
  return type === "application/dtmf-relay" || type === "application/dtmf";
}

/** The body of an INFO that presses `key` for `durationMs` (`application/dtmf-relay`). */
export function infoKeyBody(key: string, durationMs: number): string {
  return `Signal=${key}\r\nDuration=${durationMs}\r\n`;
}

/** Whether `address` is an IPv4 literal. */
export function isIpv4(address: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(address);
}

/**
 * Whether an SDP's address can be where a call's RTP comes from, for a socket bound on
 * `local`: an IPv4 address, and a loopback one when the socket is on loopback (only this
 * machine reaches it). When it cannot (a phone that advertises its IPv6 or outward
 * address while talking over loopback), the first packet from anywhere is latched.
 */
export function sdpAddressUsable(sdpAddress: string, local: string): boolean {
  if (!isIpv4(sdpAddress)) return false;
  return !local.startsWith("127.") || sdpAddress.startsWith("127.");
}

/**
 * What `serve --sip` reads and writes of SIP messages (RFC 3261), as the answering side
 * sees them: a request's method, Request-URI, the dialog's headers (Via, From, To,
 * Call-ID, CSeq, Contact) and body; a response's status; and responses and in-dialog
 * requests built from them. Reading never throws: a message that is not one is a
 * refusal, with the headers when there are enough to answer it (`400`).
 *
 * @module
 */
import { type ParsedSip, parseSipMessage, type SipMessage } from "./_sip_stopgap.ts";

/** The headers a dialog needs, and any other by name. */
export interface SipHeaders {
  via: string[];
  from: string;
  to: string;
  callId: string;
  cseq: string;
  contact?: string;
  /** Any header's first value (by its full or compact name, case-insensitive). */
  get(name: string): string | undefined;
}

/** A request received. */
export interface SipRequest {
  ok: true;
  kind: "request";
  method: string;
  uri: string;
  headers: SipHeaders;
  body: string;
}

/** A response received. */
export interface SipResponse {
  ok: true;
  kind: "response";
  status: number;
  headers: SipHeaders;
}

/** A datagram that is no SIP message; `headers` when a 400 can still be addressed. */
export interface SipRefused {
  ok: false;
  error: string;
  headers?: SipHeaders;
}

/** Reads one datagram. */
export function readSip(data: Uint8Array): SipRequest | SipResponse | SipRefused {
  const parsed: ParsedSip = parseSipMessage(data);
  if (!parsed.ok) {
    // Only a request is answered; a bad response is dropped.
    const headers = parsed.partial?.request ? dialogHeaders(parsed.partial) : undefined;
    return { ok: false, error: parsed.error, ...(headers ? { headers } : {}) };
  }
  const headers = dialogHeaders(parsed.message);
  if (!headers) return { ok: false, error: "missing Via, From, To, Call-ID or CSeq" };
  const m = parsed.message;
  if (m.kind === "response") return { ok: true, kind: "response", status: m.status, headers };
  const cseqMethod = /^\d+\s+(\S+)$/.exec(headers.cseq)?.[1];
  if (cseqMethod !== m.method) {
    return { ok: false, error: "CSeq names another method", headers };
  }
  return { ok: true, kind: "request", method: m.method, uri: m.uri, headers, body: m.body };
}

/** The dialog headers of a message, when it has them all. */
function dialogHeaders(m: Pick<SipMessage, "headers">): SipHeaders | undefined {
  const get = (name: string) => m.headers.find(([n]) => sameHeader(n, name))?.[1];
  const via = m.headers.filter(([n]) => sameHeader(n, "via")).flatMap(([, v]) => splitCommas(v));
  const from = get("from");
  const to = get("to");
  const callId = get("call-id");
  const cseq = get("cseq");
  if (via.length === 0 || !from || !to || !callId || !cseq || !/^\d+\s+\S+$/.test(cseq)) {
    return undefined;
  }
  const contact = get("contact");
  return {
    via,
    from,
    to,
    callId,
    cseq,
    ...(contact ? { contact: /<([^>]*)>/.exec(contact)?.[1] ?? contact.split(";")[0]! } : {}),
    get,
  };
}

const COMPACT: Record<string, string> = {
  v: "via",
  f: "from",
  t: "to",
  i: "call-id",
  m: "contact",
  l: "content-length",
  c: "content-type",
};

function sameHeader(a: string, b: string): boolean {
  const norm = (s: string) => {
    const l = s.toLowerCase();
    return COMPACT[l] ?? l;
  };
  return norm(a) === norm(b);
}

/** A header value's comma-separated parts (outside quotes and angle brackets). */
function splitCommas(value: string): string[] {
  const parts: string[] = [];
  let depth = 0, quoted = false, start = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (c === '"') quoted = !quoted;
    else if (!quoted && c === "<") depth++;
    else if (!quoted && c === ">") depth--;
    else if (!quoted && depth === 0 && c === ",") {
      parts.push(value.slice(start, i).trim());
      start = i + 1;
    }
  }
  parts.push(value.slice(start).trim());
  return parts.filter(Boolean);
}

/** How a response is built. */
export interface ResponseOptions {
  /** Our tag, added to To when it has none. */
  toTag?: string;
  /** More headers, in order. */
  extra?: Record<string, string>;
  body?: { type: string; text: string };
}

/** A response to the request whose headers are given (RFC 3261 §8.2.6). */
export function formatSipResponse(
  request: SipHeaders,
  status: number,
  reason: string,
  options: ResponseOptions = {},
): string {
  const to = options.toTag && !/;\s*tag=/i.test(request.to)
    ? `${request.to};tag=${options.toTag}`
    : request.to;
  const lines = [
    `SIP/2.0 ${status} ${reason}`,
    ...request.via.map((v) => `Via: ${v}`),
    `From: ${request.from}`,
    `To: ${to}`,
    `Call-ID: ${request.callId}`,
    `CSeq: ${request.cseq}`,
    "Server: callbench",
  ];
  return finish(lines, options.extra, options.body);
}

/** A request in a dialog of ours (our BYE). */
export function formatSipRequest(
  method: string,
  uri: string,
  h: { via: string; from: string; to: string; callId: string; cseq: string },
): string {
  const lines = [
    `${method} ${uri} SIP/2.0`,
    `Via: ${h.via}`,
    "Max-Forwards: 70",
    `From: ${h.from}`,
    `To: ${h.to}`,
    `Call-ID: ${h.callId}`,
    `CSeq: ${h.cseq}`,
    "User-Agent: callbench",
  ];
  return finish(lines, undefined, undefined);
}

function finish(
  lines: string[],
  extra: Record<string, string> | undefined,
  body: { type: string; text: string } | undefined,
): string {
  for (const [name, value] of Object.entries(extra ?? {})) lines.push(`${name}: ${value}`);
  const text = body?.text ?? "";
  if (body) lines.push(`Content-Type: ${body.type}`);
  lines.push(`Content-Length: ${new TextEncoder().encode(text).length}`, "", text);
  return lines.join("\r\n");
}

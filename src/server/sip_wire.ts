/**
 * What `serve --sip` reads and writes of SIP messages (RFC 3261), as the answering side
 * sees them: a request's method, Request-URI, the dialog's headers (Via, From, To,
 * Call-ID, CSeq, Contact) and body; a response's status; and responses and in-dialog
 * requests built from them, over src/protocol/sip.ts. Reading never throws: a message that is not one is a
 * refusal, with the headers when there are enough to answer it (`400`).
 *
 * @module
 */
import { type SipSource, stampVia } from "../transport/sip_dialog.ts";
import {
  headerValue,
  headerValues,
  parseNameAddr,
  parseSip,
  responseTo,
  serializeSip,
  type SipHeader,
  type SipMessage,
  type SipRequest as WireRequest,
  tagOf,
} from "../protocol/sip.ts";

/** The headers a dialog needs, and any other by name. */
export interface SipHeaders {
  via: string[];
  from: string;
  to: string;
  callId: string;
  cseq: string;
  /** The Contact's URI. */
  contact?: string;
  /** The From and To tags (the To tag is ours in a request of our dialog). */
  fromTag?: string;
  toTag?: string;
  /** Any header's first value (by its full or compact name, case-insensitive). */
  get(name: string): string | undefined;
  /** The message as read (src/protocol/sip.ts), which a response copies from. */
  readonly message: SipMessage;
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

/**
 * Reads one datagram (src/protocol/sip.ts: bounded, never throws). A request's top Via is
 * stamped with `from` (RFC 3581), so every response built from it copies `received` and
 * `rport`.
 */
export function readSip(
  data: Uint8Array,
  from?: SipSource,
): SipRequest | SipResponse | SipRefused {
  const parsed = parseSip(data);
  if (!parsed.ok) {
    const headers = answerableHead(data, from);
    return { ok: false, error: parsed.error.message, ...(headers ? { headers } : {}) };
  }
  const m = parsed.message.kind === "request" && from
    ? stampVia(parsed.message, from)
    : parsed.message;
  const headers = dialogHeaders(m);
  if (m.kind === "response") return { ok: true, kind: "response", status: m.status, headers };
  return { ok: true, kind: "request", method: m.method, uri: m.uri, headers, body: m.body };
}

/**
 * The headers of a request that did not parse as a whole, when its head alone does: its
 * text up to the blank line (or to its last whole line), with no body. A 400 can then be
 * addressed to it; a response, or a head that does not parse either, is not answered.
 */
function answerableHead(data: Uint8Array, from?: SipSource): SipHeaders | undefined {
  const text = new TextDecoder().decode(data.subarray(0, 65_507));
  const end = text.indexOf("\r\n\r\n");
  const head = end >= 0 ? text.slice(0, end) : text.slice(0, Math.max(0, text.lastIndexOf("\r\n")));
  if (head.startsWith("SIP/")) return undefined;
  const method = /^(\S+) /.exec(head)?.[1] ?? "";
  // A CSeq that is out of range or names another method is answered as it came: it is
  // read as `1 METHOD` to parse the rest, and copied back as it was.
  let cseq: string | undefined;
  const lines = head.split("\r\n").filter((l) => !/^(content-length|l)\s*:/i.test(l)).map(
    (l) => {
      const m = /^cseq\s*:\s*(.*)$/i.exec(l);
      if (!m) return l;
      cseq = m[1]!.trim();
      return `CSeq: 1 ${method}`;
    },
  );
  const again = parseSip(`${lines.join("\r\n")}\r\nContent-Length: 0\r\n\r\n`);
  if (!again.ok || again.message.kind !== "request") return undefined;
  let m: WireRequest = again.message;
  if (cseq !== undefined) {
    const original = cseq;
    m = {
      ...m,
      headers: m.headers.map(([n, v]) => n === "CSeq" ? [n, original] as const : [n, v]),
    };
  }
  return dialogHeaders(from ? stampVia(m, from) : m);
}

/** The dialog headers of a parsed message (it has them all: the parser requires them). */
function dialogHeaders(m: SipMessage): SipHeaders {
  const contact = headerValue(m, "Contact");
  const contactUri = contact === undefined ? undefined : parseNameAddr(contact)?.uri;
  return {
    via: headerValues(m, "Via"),
    from: headerValue(m, "From") ?? "",
    to: headerValue(m, "To") ?? "",
    callId: headerValue(m, "Call-ID") ?? "",
    cseq: headerValue(m, "CSeq") ?? "",
    ...(contactUri ? { contact: contactUri } : {}),
    ...(tagOf(headerValue(m, "From")) ? { fromTag: tagOf(headerValue(m, "From"))! } : {}),
    ...(tagOf(headerValue(m, "To")) ? { toTag: tagOf(headerValue(m, "To"))! } : {}),
    get: (name) => headerValue(m, name),
    message: m,
  };
}

/** How a response is built. */
export interface ResponseOptions {
  /** Our tag, added to To when it has none. */
  toTag?: string;
  /** More headers, in order. */
  extra?: Record<string, string>;
  /** Headers that may repeat (Record-Route), after the copied ones. */
  headers?: SipHeader[];
  body?: { type: string; text: string };
}

/** A response to the request whose headers are given (RFC 3261 §8.2.6). */
export function formatSipResponse(
  request: SipHeaders,
  status: number,
  reason: string,
  options: ResponseOptions = {},
): string {
  const extra: SipHeader[] = [
    ...(options.headers ?? []),
    ["Server", "callbench"],
    ...Object.entries(options.extra ?? {}),
    ...(options.body ? [["Content-Type", options.body.type] as const] : []),
  ];
  return serializeSip(
    responseTo(request.message as WireRequest, status, reason, {
      ...(options.toTag ? { toTag: options.toTag } : {}),
      headers: extra,
      ...(options.body ? { body: options.body.text } : {}),
    }),
  );
}

/** A request in a dialog of ours (our BYE). */
export function formatSipRequest(
  method: string,
  uri: string,
  h: {
    via: string;
    from: string;
    to: string;
    callId: string;
    cseq: string;
    /** More headers after these (Route, Content-Type...). */
    extra?: SipHeader[];
  },
  body = "",
): string {
  return serializeSip({
    kind: "request",
    method,
    uri,
    headers: [
      ["Via", h.via],
      ["Max-Forwards", "70"],
      ["From", h.from],
      ["To", h.to],
      ["Call-ID", h.callId],
      ["CSeq", h.cseq],
      ["User-Agent", "callbench"],
      ...(h.extra ?? []),
    ],
    body,
  });
}

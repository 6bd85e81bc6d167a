/**
 * SIP messages (RFC 3261) as pure functions over a datagram: {@link parseSip} reads a
 * request or a response (header folding, compact header names, Content-Length, bounds
 * on sizes) and never throws: a bad message is a {@link SipError} with a code and a
 * message naming what is wrong. {@link serializeSip} writes one, with Content-Length
 * computed. Helpers read and write the headers a call needs: Via and its branch,
 * From/To and their tags, Call-ID, CSeq, Contact, and SIP URIs;
 * {@link responseTo} builds a response that copies what RFC 3261 section 8.2.6.2 says
 * it must. Digest authentication is not here.
 *
 * @example
 * ```ts
 * const read = parseSip(new TextEncoder().encode("OPTIONS sip:a@127.0.0.1 SIP/2.0\r\nv: SIP/2.0/UDP 127.0.0.1;branch=z9hG4bK1\r\nf: <sip:b@127.0.0.1>;tag=1\r\nt: <sip:a@127.0.0.1>\r\ni: x\r\nCSeq: 1 OPTIONS\r\nl: 0\r\n\r\n"));
 * if (read.ok && read.message.kind === "request") console.log(headerValue(read.message, "Call-ID")); // "x"
 * ```
 *
 * @module
 */

/** Largest message accepted, bytes (a UDP datagram's payload). */
export const MAX_SIP_BYTES = 65_507;
/** Most header lines accepted. */
export const MAX_SIP_HEADERS = 128;
/** Longest start line or header line accepted (after unfolding), characters. */
export const MAX_SIP_LINE = 8192;
/** The magic cookie an RFC 3261 branch starts with. */
export const BRANCH_COOKIE = "z9hG4bK";

/** Why a message was refused. */
export type SipErrorCode =
  | "sip_too_large"
  | "sip_no_header_end"
  | "sip_start_line"
  | "sip_header"
  | "sip_too_many_headers"
  | "sip_missing_header"
  | "sip_content_length"
  | "sip_cseq";

/** A refused message: its code and what is wrong. */
export interface SipError {
  code: SipErrorCode;
  message: string;
}

/** One header as it appeared, its name in canonical (long, usual-case) form. */
export type SipHeader = readonly [name: string, value: string];

/** A SIP request. */
export interface SipRequest {
  kind: "request";
  method: string;
  uri: string;
  headers: SipHeader[];
  body: string;
}

/** A SIP response. */
export interface SipResponse {
  kind: "response";
  status: number;
  reason: string;
  headers: SipHeader[];
  body: string;
}

/** A request or a response. */
export type SipMessage = SipRequest | SipResponse;

/** What {@link parseSip} returns. */
export type SipParse = { ok: true; message: SipMessage } | { ok: false; error: SipError };

const COMPACT: Record<string, string> = {
  i: "Call-ID",
  m: "Contact",
  e: "Content-Encoding",
  l: "Content-Length",
  c: "Content-Type",
  f: "From",
  s: "Subject",
  k: "Supported",
  t: "To",
  v: "Via",
};

const CANONICAL = new Map(
  [
    "Via",
    "From",
    "To",
    "Call-ID",
    "CSeq",
    "Contact",
    "Max-Forwards",
    "Content-Length",
    "Content-Type",
    "Content-Encoding",
    "User-Agent",
    "Server",
    "Allow",
    "Supported",
    "Subject",
    "Route",
    "Record-Route",
    "Expires",
    "WWW-Authenticate",
    "Authorization",
    "Reason",
  ].map((n) => [n.toLowerCase(), n]),
);

/** The canonical form of a header name: compact forms expanded, known names cased. */
export function canonicalHeaderName(name: string): string {
  const lower = name.toLowerCase();
  return COMPACT[lower] ?? CANONICAL.get(lower) ?? name;
}

const TOKEN = /^[A-Za-z0-9\-.!%*_+`'~]+$/;
const REQUIRED = ["Via", "From", "To", "Call-ID", "CSeq"];

function fail(code: SipErrorCode, message: string): { ok: false; error: SipError } {
  return { ok: false, error: { code, message } };
}

function snippet(text: string): string {
  return JSON.stringify(text.length > 60 ? text.slice(0, 60) + "…" : text);
}

function findHeaderEnd(bytes: Uint8Array): { end: number; sep: number } | undefined {
  for (let i = 0; i + 1 < bytes.length; i++) {
    if (bytes[i] !== 0x0a) continue;
    if (bytes[i + 1] === 0x0a) return { end: i, sep: 2 };
    if (bytes[i + 1] === 0x0d && bytes[i + 2] === 0x0a) return { end: i, sep: 3 };
  }
  return undefined;
}

/** Reads one SIP message from a datagram (or text); never throws. */
export function parseSip(input: Uint8Array | string): SipParse {
  const bytes = typeof input === "string" ? new TextEncoder().encode(input) : input;
  if (bytes.length > MAX_SIP_BYTES) {
    return fail("sip_too_large", `SIP message of ${bytes.length} bytes is over ${MAX_SIP_BYTES}`);
  }
  // Leading CRLFs are keep-alives (RFC 5626) and ignored before a start line.
  let start = 0;
  while (start < bytes.length && (bytes[start] === 0x0d || bytes[start] === 0x0a)) start++;
  const rest = bytes.subarray(start);
  const found = findHeaderEnd(rest);
  if (!found) return fail("sip_no_header_end", "SIP message has no blank line after its headers");
  const head = new TextDecoder("utf-8", { fatal: false }).decode(rest.subarray(0, found.end));
  const bodyBytes = rest.subarray(found.end + found.sep);
  const rawLines = head.split(/\r?\n/);
  // Unfold: a line starting with a space or a tab continues the previous one.
  const lines: string[] = [];
  for (const line of rawLines) {
    if ((line.startsWith(" ") || line.startsWith("\t")) && lines.length > 1) {
      lines[lines.length - 1] += " " + line.trim();
    } else {
      lines.push(line);
    }
    if ((lines[lines.length - 1]?.length ?? 0) > MAX_SIP_LINE) {
      return fail("sip_header", `SIP line longer than ${MAX_SIP_LINE} characters`);
    }
  }
  const startLine = lines[0] ?? "";
  if (lines.length - 1 > MAX_SIP_HEADERS) {
    return fail("sip_too_many_headers", `SIP message has more than ${MAX_SIP_HEADERS} headers`);
  }
  const headers: SipHeader[] = [];
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(":");
    const name = colon < 0 ? "" : line.slice(0, colon).trim();
    if (!TOKEN.test(name)) {
      return fail("sip_header", `SIP header line not understood: ${snippet(line)}`);
    }
    headers.push([canonicalHeaderName(name), line.slice(colon + 1).trim()]);
  }
  let message: SipMessage;
  const response = /^SIP\/2\.0 ([1-6]\d\d) ?(.*)$/.exec(startLine);
  const request = /^([A-Za-z0-9\-.!%*_+`'~]+) (\S+) SIP\/2\.0$/.exec(startLine);
  if (response) {
    message = {
      kind: "response",
      status: Number(response[1]),
      reason: response[2]!,
      headers,
      body: "",
    };
  } else if (request) {
    message = { kind: "request", method: request[1]!, uri: request[2]!, headers, body: "" };
  } else {
    return fail("sip_start_line", `SIP start line not understood: ${snippet(startLine)}`);
  }
  for (const name of REQUIRED) {
    if (!headers.some(([n]) => n === name)) {
      return fail("sip_missing_header", `SIP message has no ${name} header`);
    }
  }
  const cseq = parseCSeq(headerValue(message, "CSeq") ?? "");
  if (!cseq) {
    return fail(
      "sip_cseq",
      `SIP CSeq not understood: ${snippet(headerValue(message, "CSeq") ?? "")}`,
    );
  }
  if (message.kind === "request" && cseq.method !== message.method) {
    return fail(
      "sip_cseq",
      `SIP CSeq method ${cseq.method} differs from the request's ${message.method}`,
    );
  }
  const lengthText = headerValue(message, "Content-Length");
  let bodyLength = bodyBytes.length;
  if (lengthText !== undefined) {
    if (!/^\d{1,9}$/.test(lengthText)) {
      return fail("sip_content_length", `SIP Content-Length not a number: ${snippet(lengthText)}`);
    }
    const declared = Number(lengthText);
    if (declared > bodyBytes.length) {
      return fail(
        "sip_content_length",
        `SIP Content-Length ${declared} is more than the ${bodyBytes.length} body bytes received`,
      );
    }
    // Bytes past Content-Length in a datagram are discarded (RFC 3261 section 18.3).
    bodyLength = declared;
  }
  message.body = new TextDecoder().decode(bodyBytes.subarray(0, bodyLength));
  return { ok: true, message };
}

/** Writes a message; Content-Length is set from the body (any given one is replaced). */
export function serializeSip(message: SipMessage): string {
  const startLine = message.kind === "request"
    ? `${message.method} ${message.uri} SIP/2.0`
    : `SIP/2.0 ${message.status} ${message.reason}`;
  const length = new TextEncoder().encode(message.body).length;
  const lines = [
    startLine,
    ...message.headers.filter(([n]) => n !== "Content-Length").map(([n, v]) => `${n}: ${v}`),
    `Content-Length: ${length}`,
  ];
  return lines.join("\r\n") + "\r\n\r\n" + message.body;
}

/**
 * The first value of a header, or undefined. Names match without regard to case, as
 * RFC 3261 section 7.3.1 says (`X-Foo` is `x-foo`), and compact names match too.
 */
export function headerValue(message: SipMessage, name: string): string | undefined {
  const want = canonicalHeaderName(name).toLowerCase();
  return message.headers.find(([n]) => n.toLowerCase() === want)?.[1];
}

/**
 * Every value of a header in order, comma-separated values split (outside quotes and
 * angle brackets), as RFC 3261 section 7.3.1 allows for Via, Contact, Route.
 */
export function headerValues(message: SipMessage, name: string): string[] {
  const want = canonicalHeaderName(name).toLowerCase();
  const out: string[] = [];
  for (const [n, v] of message.headers) if (n.toLowerCase() === want) out.push(...splitCommas(v));
  return out;
}

function splitCommas(value: string): string[] {
  const out: string[] = [];
  let quoted = false;
  let angle = false;
  let from = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (c === '"' && value[i - 1] !== "\\") quoted = !quoted;
    else if (!quoted && c === "<") angle = true;
    else if (!quoted && c === ">") angle = false;
    else if (!quoted && !angle && c === ",") {
      out.push(value.slice(from, i).trim());
      from = i + 1;
    }
  }
  out.push(value.slice(from).trim());
  return out.filter(Boolean);
}

/** `;name=value` parameters (names lower-cased; a flag without value is ""). */
export function parseParams(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of text.split(";")) {
    const p = part.trim();
    if (!p) continue;
    const eq = p.indexOf("=");
    if (eq < 0) out[p.toLowerCase()] = "";
    else out[p.slice(0, eq).trim().toLowerCase()] = p.slice(eq + 1).trim();
  }
  return out;
}

/** A Via value: `SIP/2.0/UDP host:port;branch=...;rport`. */
export interface Via {
  transport: string;
  host: string;
  port?: number;
  params: Record<string, string>;
}

/** Reads a Via value, or undefined when it is not one. */
export function parseVia(value: string): Via | undefined {
  const m = /^SIP\s*\/\s*2\.0\s*\/\s*(\w+)\s+(\[[^\]]+\]|[^;:\s]+)(?::(\d{1,5}))?\s*(;.*)?$/i
    .exec(value.trim());
  if (!m) return undefined;
  return {
    transport: m[1]!.toUpperCase(),
    host: m[2]!,
    ...(m[3] ? { port: Number(m[3]) } : {}),
    params: parseParams(m[4] ?? ""),
  };
}

/** Writes a Via value. */
export function formatVia(v: Via): string {
  const params = Object.entries(v.params).map(([k, x]) => (x === "" ? `;${k}` : `;${k}=${x}`));
  return `SIP/2.0/${v.transport} ${v.host}${v.port ? `:${v.port}` : ""}${params.join("")}`;
}

/** A name-addr or addr-spec (From, To, Contact): display name, URI, header params. */
export interface NameAddr {
  display?: string;
  uri: string;
  params: Record<string, string>;
}

/** Reads a From/To/Contact value, or undefined when it is not one. */
export function parseNameAddr(value: string): NameAddr | undefined {
  const v = value.trim();
  const angled = /^(?:"((?:[^"\\]|\\.)*)"|([^<"]*?))\s*<([^>]*)>\s*(;.*)?$/.exec(v);
  if (angled) {
    const display = (angled[1] ?? angled[2] ?? "").trim();
    return {
      ...(display ? { display } : {}),
      uri: angled[3]!.trim(),
      params: parseParams(angled[4] ?? ""),
    };
  }
  // addr-spec without brackets: parameters after the URI belong to the header.
  const bare = /^([a-zA-Z][\w+.-]*:[^;\s]+)\s*(;.*)?$/.exec(v);
  if (!bare) return undefined;
  return { uri: bare[1]!, params: parseParams(bare[2] ?? "") };
}

/** Writes a name-addr. */
export function formatNameAddr(a: NameAddr): string {
  const params = Object.entries(a.params).map(([k, x]) => (x === "" ? `;${k}` : `;${k}=${x}`));
  const display = a.display ? `"${a.display.replace(/["\\]/g, "\\$&")}" ` : "";
  return `${display}<${a.uri}>${params.join("")}`;
}

/** The tag parameter of a From or To value. */
export function tagOf(value: string | undefined): string | undefined {
  return value === undefined ? undefined : parseNameAddr(value)?.params.tag;
}

/** A CSeq value. */
export interface CSeq {
  seq: number;
  method: string;
}

/** Reads a CSeq value (`1 INVITE`), or undefined. */
export function parseCSeq(value: string): CSeq | undefined {
  const m = /^(\d{1,10})\s+([A-Za-z0-9\-.!%*_+`'~]+)$/.exec(value.trim());
  if (!m || Number(m[1]) > 0x7fffffff) return undefined;
  return { seq: Number(m[1]), method: m[2]! };
}

/** A SIP URI: `sip:user@host:port;params`. */
export interface SipUri {
  scheme: "sip" | "sips";
  user?: string;
  host: string;
  port?: number;
  params: Record<string, string>;
}

/** Reads a SIP URI, or undefined when it is not one. */
export function parseSipUri(text: string): SipUri | undefined {
  const m = /^(sips?):(?:([^@;?]+)@)?(\[[^\]]+\]|[^:;?@]+)(?::(\d{1,5}))?(;[^?]*)?(\?.*)?$/i
    .exec(text.trim());
  if (!m) return undefined;
  const port = m[4] ? Number(m[4]) : undefined;
  if (port !== undefined && (port < 1 || port > 65535)) return undefined;
  return {
    scheme: m[1]!.toLowerCase() as "sip" | "sips",
    ...(m[2] ? { user: m[2] } : {}),
    host: m[3]!,
    ...(port ? { port } : {}),
    params: parseParams(m[5] ?? ""),
  };
}

/** Writes a SIP URI. */
export function formatSipUri(u: SipUri): string {
  const params = Object.entries(u.params).map(([k, x]) => (x === "" ? `;${k}` : `;${k}=${x}`));
  return `${u.scheme}:${u.user ? `${u.user}@` : ""}${u.host}${u.port ? `:${u.port}` : ""}${
    params.join("")
  }`;
}

function randomHex(bytes: number): string {
  const b = crypto.getRandomValues(new Uint8Array(bytes));
  return [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
}

/** A fresh RFC 3261 branch (`z9hG4bK` + random). */
export function newBranch(): string {
  return BRANCH_COOKIE + randomHex(8);
}

/** A fresh From/To tag. */
export function newTag(): string {
  return randomHex(6);
}

/** A fresh Call-ID at a host. */
export function newCallId(host: string): string {
  return `${randomHex(12)}@${host}`;
}

/** Options for {@link responseTo}. */
export interface ResponseOptions {
  /** Our tag, added to To when the request's To has none. */
  toTag?: string;
  /** Extra headers (Contact, Content-Type, ...). */
  headers?: SipHeader[];
  body?: string;
}

/**
 * A response to a request: Via (all, in order), From, To (with our tag), Call-ID and
 * CSeq copied, as RFC 3261 section 8.2.6.2 asks.
 */
export function responseTo(
  request: SipRequest,
  status: number,
  reason: string,
  o: ResponseOptions = {},
): SipResponse {
  const copied: SipHeader[] = [];
  for (const [n, v] of request.headers) {
    if (n === "Via" || n === "From" || n === "Call-ID" || n === "CSeq") copied.push([n, v]);
    if (n === "To") {
      copied.push([n, o.toTag && tagOf(v) === undefined ? `${v};tag=${o.toTag}` : v]);
    }
  }
  return {
    kind: "response",
    status,
    reason,
    headers: [...copied, ...(o.headers ?? [])],
    body: o.body ?? "",
  };
}

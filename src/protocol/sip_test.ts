import assert from "node:assert/strict";
import {
  formatNameAddr,
  formatSipUri,
  formatVia,
  headerValue,
  headerValues,
  MAX_SIP_BYTES,
  newBranch,
  parseCSeq,
  parseNameAddr,
  parseSip,
  parseSipUri,
  parseVia,
  responseTo,
  serializeSip,
  type SipRequest,
  tagOf,
} from "./sip.ts";

const INVITE = [
  "INVITE sip:agent@127.0.0.1:5070 SIP/2.0",
  "Via: SIP/2.0/UDP 127.0.0.1:5062;branch=z9hG4bKabc;rport",
  "Max-Forwards: 70",
  'From: "callbench" <sip:callbench@127.0.0.1:5062>;tag=f1',
  "To: <sip:agent@127.0.0.1:5070>",
  "Call-ID: c1@127.0.0.1",
  "CSeq: 1 INVITE",
  "Contact: <sip:callbench@127.0.0.1:5062>",
  "Content-Type: application/sdp",
  "Content-Length: 4",
  "",
  "v=0\r\n",
].join("\r\n");

Deno.test("parseSip() reads a request, its headers and a body cut at Content-Length", () => {
  const read = parseSip(INVITE);
  assert.ok(read.ok, JSON.stringify(read));
  const m = read.message;
  assert.equal(m.kind, "request");
  if (m.kind !== "request") return;
  assert.equal(m.method, "INVITE");
  assert.equal(m.uri, "sip:agent@127.0.0.1:5070");
  assert.equal(headerValue(m, "call-id"), "c1@127.0.0.1");
  assert.equal(headerValue(m, "i"), "c1@127.0.0.1");
  assert.equal(m.body, "v=0\r");
});

Deno.test("headerValue() and headerValues() match a header the parser does not know without regard to case", () => {
  const text = INVITE.replace("\r\n\r\n", "\r\nX-Callbench-Scenario: s1\r\nx-tag: a, b\r\n\r\n");
  const read = parseSip(text);
  assert.ok(read.ok, JSON.stringify(read));
  for (const name of ["X-Callbench-Scenario", "x-callbench-scenario", "X-CALLBENCH-SCENARIO"]) {
    assert.equal(headerValue(read.message, name), "s1", name);
  }
  assert.deepEqual(headerValues(read.message, "X-Tag"), ["a", "b"]);
  assert.equal(headerValue(read.message, "X-Other"), undefined);
});

Deno.test("parseSip() expands compact names, unfolds continuation lines, splits Via lists", () => {
  const text = [
    "SIP/2.0 200 OK",
    "v: SIP/2.0/UDP 10.0.0.1;branch=z9hG4bK1, SIP/2.0/UDP 10.0.0.2:5080;branch=z9hG4bK2",
    "f: <sip:a@x>;tag=1",
    "t: <sip:b@x>",
    "  ;tag=2",
    "i: abc",
    "CSeq: 7",
    "\tINVITE",
    "l: 0",
    "",
    "",
  ].join("\r\n");
  const read = parseSip(text);
  assert.ok(read.ok, JSON.stringify(read));
  const m = read.message;
  assert.equal(m.kind, "response");
  if (m.kind !== "response") return;
  assert.equal(m.status, 200);
  assert.equal(m.reason, "OK");
  assert.equal(tagOf(headerValue(m, "To")), "2");
  assert.deepEqual(parseCSeq(headerValue(m, "CSeq")!), { seq: 7, method: "INVITE" });
  const vias = headerValues(m, "Via").map(parseVia);
  assert.equal(vias.length, 2);
  assert.equal(vias[1]!.port, 5080);
  assert.equal(vias[1]!.params.branch, "z9hG4bK2");
});

Deno.test("parseSip() names what is wrong with a bad message, never throws", () => {
  const cases: [string, string][] = [
    ["", "sip_no_header_end"],
    ["INVITE sip:a@b SIP/2.0\r\nVia: x\r\n", "sip_no_header_end"],
    ["HELLO\r\n\r\n", "sip_start_line"],
    ["SIP/2.0 99 Low\r\n\r\n", "sip_start_line"],
    [INVITE.replace("Call-ID: c1@127.0.0.1\r\n", ""), "sip_missing_header"],
    [INVITE.replace("CSeq: 1 INVITE", "CSeq: one INVITE"), "sip_cseq"],
    [INVITE.replace("CSeq: 1 INVITE", "CSeq: 1 BYE"), "sip_cseq"],
    [INVITE.replace("Content-Length: 4", "Content-Length: 400"), "sip_content_length"],
    [INVITE.replace("Content-Length: 4", "Content-Length: -1"), "sip_content_length"],
    [INVITE.replace("Max-Forwards: 70", "no colon here"), "sip_header"],
    ["INVITE sip:a SIP/2.0\r\n" + "X-A: 1\r\n".repeat(200) + "\r\n", "sip_too_many_headers"],
    ["x".repeat(MAX_SIP_BYTES + 1), "sip_too_large"],
  ];
  for (const [text, code] of cases) {
    const read = parseSip(text);
    assert.equal(read.ok, false, text.slice(0, 40));
    if (!read.ok) {
      assert.equal(read.error.code, code, `${read.error.message} for ${text.slice(0, 40)}`);
      assert.ok(read.error.message.length > 0);
    }
  }
});

Deno.test("serializeSip() writes a message parseSip() reads back, Content-Length from bytes", () => {
  const read = parseSip(INVITE);
  assert.ok(read.ok);
  const m = { ...read.message, body: "é\r\n" } as SipRequest;
  const text = serializeSip(m);
  assert.match(text, /\r\nContent-Length: 4\r\n\r\né\r\n$/);
  const back = parseSip(text);
  assert.ok(back.ok);
  assert.equal(back.message.body, "é\r\n");
  assert.deepEqual(back.message.headers, [...m.headers.filter(([n]) => n !== "Content-Length"), [
    "Content-Length",
    "4",
  ]]);
});

Deno.test("responseTo() copies Via, From, Call-ID, CSeq and tags To once", () => {
  const read = parseSip(INVITE);
  assert.ok(read.ok && read.message.kind === "request");
  const req = read.message as SipRequest;
  const res = responseTo(req, 200, "OK", { toTag: "t9", headers: [["Contact", "<sip:a@b>"]] });
  assert.equal(tagOf(headerValue(res, "To")), "t9");
  assert.equal(headerValue(res, "Via"), headerValue(req, "Via"));
  assert.equal(headerValue(res, "CSeq"), "1 INVITE");
  const again = responseTo({ ...req, headers: res.headers } as SipRequest, 200, "OK", {
    toTag: "x",
  });
  assert.equal(tagOf(headerValue(again, "To")), "t9");
  assert.ok(parseSip(serializeSip(res)).ok);
});

Deno.test("SIP URIs, name-addrs and Vias read and write back", () => {
  const u = parseSipUri("sip:agent@127.0.0.1:5070;transport=udp");
  assert.deepEqual(u, {
    scheme: "sip",
    user: "agent",
    host: "127.0.0.1",
    port: 5070,
    params: { transport: "udp" },
  });
  assert.equal(formatSipUri(u!), "sip:agent@127.0.0.1:5070;transport=udp");
  assert.equal(parseSipUri("sip:127.0.0.1")?.host, "127.0.0.1");
  assert.equal(parseSipUri("http://x"), undefined);
  assert.equal(parseSipUri("sip:a@b:99999"), undefined);
  const a = parseNameAddr('"The \\"Agent\\"" <sip:a@b>;tag=9');
  assert.equal(a?.display, 'The \\"Agent\\"');
  assert.equal(a?.params.tag, "9");
  assert.equal(parseNameAddr("sip:a@b;tag=3")?.params.tag, "3");
  assert.equal(formatNameAddr({ uri: "sip:a@b", params: { tag: "1" } }), "<sip:a@b>;tag=1");
  const branch = newBranch();
  assert.match(branch, /^z9hG4bK[0-9a-f]{16}$/);
  const via = { transport: "UDP", host: "127.0.0.1", port: 5062, params: { branch, rport: "" } };
  assert.deepEqual(parseVia(formatVia(via)), via);
});

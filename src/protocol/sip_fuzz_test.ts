/**
 * Fuzz: random and truncated input to the SIP, SDP, RTP and telephone-event parsers.
 * Nothing throws; every refusal is a typed error with a code and a message.
 */
import assert from "node:assert/strict";
import { mulberry32 } from "../random/mulberry32.ts";
import { buildRtp, buildTelephoneEvent, parseRtp, parseTelephoneEvent } from "./rtp.ts";
import { answerOffer, buildSdp, parseSdp } from "./sdp.ts";
import { parseSip, serializeSip } from "./sip.ts";

const SDP = buildSdp({
  address: "127.0.0.1",
  port: 40000,
  codecs: ["PCMU", "PCMA"],
  telephoneEvent: 101,
  sessionId: 1,
});
const INVITE = serializeSip({
  kind: "request",
  method: "INVITE",
  uri: "sip:agent@127.0.0.1:5070",
  headers: [
    ["Via", "SIP/2.0/UDP 127.0.0.1:5062;branch=z9hG4bK1;rport"],
    ["From", "<sip:callbench@127.0.0.1>;tag=1"],
    ["To", "<sip:agent@127.0.0.1>"],
    ["Call-ID", "c@127.0.0.1"],
    ["CSeq", "1 INVITE"],
    ["Content-Type", "application/sdp"],
  ],
  body: SDP,
});

function mutations(text: string, rng: () => number, n: number): string[] {
  const out: string[] = [];
  for (let k = 0; k < text.length; k++) out.push(text.slice(0, k));
  for (let k = 0; k < n; k++) {
    const chars = [...text];
    const flips = 1 + Math.floor(rng() * 4);
    for (let f = 0; f < flips; f++) {
      chars[Math.floor(rng() * chars.length)] = String.fromCharCode(Math.floor(rng() * 256));
    }
    out.push(chars.join(""));
  }
  for (let k = 0; k < n; k++) {
    out.push(
      Array.from({ length: Math.floor(rng() * 300) }, () => String.fromCharCode(rng() * 0xffff))
        .join(""),
    );
  }
  return out;
}

function randomBytes(rng: () => number, n: number): Uint8Array {
  return Uint8Array.from({ length: n }, () => Math.floor(rng() * 256));
}

Deno.test("fuzz: the SIP parser never throws; every refusal has a code and a message", () => {
  const rng = mulberry32(3261);
  const inputs = mutations(INVITE, rng, 2000);
  let refused = 0;
  for (const text of inputs) {
    const read = parseSip(text);
    if (!read.ok) {
      refused++;
      assert.match(read.error.code, /^sip_/);
      assert.ok(read.error.message.length > 0);
    } else {
      // What was accepted writes back to something that parses again.
      assert.ok(parseSip(serializeSip(read.message)).ok, JSON.stringify(text));
    }
  }
  for (let k = 0; k < 1000; k++) {
    const read = parseSip(randomBytes(rng, Math.floor(rng() * 600)));
    if (!read.ok) refused++;
  }
  assert.ok(refused > 0);
});

Deno.test("fuzz: the SDP parser and answerer never throw; refusals are typed", () => {
  const rng = mulberry32(4566);
  for (const text of mutations(SDP, rng, 2000)) {
    const read = parseSdp(text);
    if (!read.ok) assert.match(read.error.code, /^(sdp_|no_common_codec)/);
    const a = answerOffer(text, { address: "127.0.0.1", port: 1, sessionId: 1 });
    if (!a.ok) assert.ok(a.error.message.length > 0);
  }
});

Deno.test("fuzz: the RTP and telephone-event parsers never throw; refusals are typed", () => {
  const rng = mulberry32(3550);
  const good = buildRtp({
    payloadType: 0,
    sequence: 9,
    timestamp: 99,
    ssrc: 1,
    payload: randomBytes(rng, 160),
  });
  const inputs: Uint8Array[] = [];
  for (let n = 0; n <= good.length; n++) inputs.push(good.subarray(0, n));
  for (let k = 0; k < 3000; k++) {
    const b = good.slice();
    for (let f = 0; f < 3; f++) b[Math.floor(rng() * 16)] = Math.floor(rng() * 256);
    inputs.push(b);
    inputs.push(randomBytes(rng, Math.floor(rng() * 64)));
  }
  for (const bytes of inputs) {
    const read = parseRtp(bytes);
    if (!read.ok) assert.match(read.error.code, /^rtp_/);
    else {
      assert.ok(read.packet.payload.length <= bytes.length - 12);
      parseTelephoneEvent(read.packet.payload);
    }
  }
  const ev = buildTelephoneEvent({ event: 1, end: false, volume: 10, duration: 160 });
  for (let n = 0; n < 4; n++) assert.equal(parseTelephoneEvent(ev.subarray(0, n)).ok, false);
});

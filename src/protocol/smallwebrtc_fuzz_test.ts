/**
 * Fuzz: random and truncated input to the SmallWebRTC signalling readers and the
 * data-channel sorting (what a bot's HTTP answer and its channel can hand callbench).
 * Nothing throws; every answer is either taken or refused with a message.
 */
import assert from "node:assert/strict";
import { mulberry32 } from "../random/mulberry32.ts";
import { answerProblem, readAnswer, readChannelText, sdpSections } from "./smallwebrtc.ts";

const ANSWER = [
  "v=0",
  "m=audio 40000 UDP/TLS/RTP/SAVPF 111",
  "a=sendrecv",
  "a=rtpmap:111 opus/48000/2",
  "m=application 40000 UDP/DTLS/SCTP webrtc-datachannel",
  "",
].join("\r\n");
const BODY = JSON.stringify({ sdp: ANSWER, type: "answer", pc_id: "pc-1" });
const CHANNEL = [
  '{"type":"signalling","message":{"type":"renegotiate"}}',
  '{"label":"rtvi-ai","type":"llm-function-call-in-progress","data":{"tool_call_id":"1"}}',
  "ping: 1",
];

function mutations(text: string, rng: () => number, n: number): string[] {
  const out: string[] = [];
  for (let k = 0; k < text.length; k += 3) out.push(text.slice(0, k));
  for (let k = 0; k < n; k++) {
    const chars = [...text];
    const flips = 1 + Math.floor(rng() * 4);
    for (let f = 0; f < flips; f++) {
      chars[Math.floor(rng() * chars.length)] = String.fromCharCode(Math.floor(rng() * 256));
    }
    out.push(chars.join(""));
  }
  return out;
}

Deno.test("fuzz: answers, SDPs and channel texts, truncated and flipped, never throw", () => {
  const rng = mulberry32(34);
  let refused = 0;
  for (const text of mutations(BODY, rng, 2000)) {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      continue; // the mapping refuses non-JSON before reading
    }
    const read = readAnswer(json);
    if (!read.ok) {
      assert.ok(read.message.length > 0);
      refused++;
    } else {
      // A taken answer's SDP is checked next: a message or nothing, never a throw.
      const problem = answerProblem(read.answer.sdp, { dataChannel: true });
      assert.ok(problem === undefined || problem.length > 0);
    }
  }
  assert.ok(refused > 0);
  for (const sdp of mutations(ANSWER, rng, 2000)) {
    sdpSections(sdp);
    const problem = answerProblem(sdp, { dataChannel: true });
    assert.ok(problem === undefined || typeof problem === "string");
  }
  for (const base of CHANNEL) {
    for (const text of mutations(base, rng, 500)) {
      const read = readChannelText(text);
      assert.ok(["ping", "signalling", "app"].includes(read.kind));
    }
  }
  // Random bytes as text, and values of every JSON type.
  for (let k = 0; k < 500; k++) {
    const bytes = Array.from({ length: Math.floor(rng() * 64) }, () => Math.floor(rng() * 256));
    readChannelText(String.fromCharCode(...bytes));
  }
  for (const v of [null, 1, "x", [], {}, { sdp: 1 }, { sdp: "x", type: "answer", pc_id: "" }]) {
    assert.ok(!readAnswer(v).ok);
  }
});

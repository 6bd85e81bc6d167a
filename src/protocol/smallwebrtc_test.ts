import assert from "node:assert/strict";
import {
  answerProblem,
  OfferRequestSchema,
  PatchRequestSchema,
  readAnswer,
  readChannelText,
  renegotiateMessage,
  sdpSections,
} from "./smallwebrtc.ts";

/** An answer as libwebrtc writes one (trimmed to the lines the checks read). */
const ANSWER = [
  "v=0",
  "o=- 1 2 IN IP4 127.0.0.1",
  "s=-",
  "t=0 0",
  "a=group:BUNDLE 0 1",
  "m=audio 40000 UDP/TLS/RTP/SAVPF 111",
  "c=IN IP4 127.0.0.1",
  "a=mid:0",
  "a=sendrecv",
  "a=rtpmap:111 opus/48000/2",
  "a=fmtp:111 minptime=10;useinbandfec=1",
  "m=application 40000 UDP/DTLS/SCTP webrtc-datachannel",
  "a=mid:1",
  "a=sctp-port:5000",
  "",
].join("\r\n");

Deno.test("answerProblem: a libwebrtc-style answer with Opus both ways and a data channel passes", () => {
  assert.equal(answerProblem(ANSWER, { dataChannel: true }), undefined);
  const [audio, app] = sdpSections(ANSWER);
  assert.equal(audio!.codecs.get(111), "opus/48000/2");
  assert.equal(app!.media, "application");
});

Deno.test("answerProblem names what an answer lacks: audio, both ways, Opus, a data channel", () => {
  assert.match(answerProblem(ANSWER.replace(/m=audio[\s\S]*?(?=m=application)/, ""))!, /no audio/);
  assert.match(answerProblem(ANSWER.replace("m=audio 40000", "m=audio 0"))!, /refused the audio/);
  assert.match(answerProblem(ANSWER.replace("a=sendrecv", "a=recvonly"))!, /recvonly, not both/);
  const pcmu = ANSWER.replace("a=rtpmap:111 opus/48000/2", "a=rtpmap:0 PCMU/8000");
  assert.match(answerProblem(pcmu)!, /no common codec: the answer's audio offers pcmu\/8000/);
  const noData = ANSWER.slice(0, ANSWER.indexOf("m=application"));
  assert.equal(answerProblem(noData), undefined, "a data channel is asked for only when wanted");
  assert.match(answerProblem(noData, { dataChannel: true })!, /no data channel/);
});

Deno.test("readAnswer takes pipecat's {sdp, type, pc_id} and says what else is wrong", () => {
  const ok = readAnswer({ sdp: ANSWER, type: "answer", pc_id: "SmallWebRTCConnection#0-1" });
  assert.ok(ok.ok);
  assert.equal(ok.answer.pc_id, "SmallWebRTCConnection#0-1");
  const noId = readAnswer({ sdp: ANSWER, type: "answer" });
  assert.ok(!noId.ok);
  assert.match(noId.message, /pc_id/);
  const offer = readAnswer({ sdp: ANSWER, type: "offer", pc_id: "x" });
  assert.ok(!offer.ok);
  assert.match(offer.message, /type/);
  assert.ok(!readAnswer("<html>").ok);
});

Deno.test("readChannelText sorts keep-alives, signalling and RTVI apart", () => {
  assert.deepEqual(readChannelText("ping: 1733240000000"), { kind: "ping" });
  const renegotiate = readChannelText(renegotiateMessage());
  assert.equal(renegotiate.kind, "signalling");
  assert.equal(renegotiate.kind === "signalling" && renegotiate.type, "renegotiate");
  const left = readChannelText('{"type":"signalling","message":{"type":"peerLeft"}}');
  assert.equal(left.kind === "signalling" && left.type, "peerLeft");
  const rtvi = '{"label":"rtvi-ai","type":"bot-ready","data":{"version":"2.1.0"}}';
  assert.deepEqual(readChannelText(rtvi), { kind: "app", text: rtvi });
  // A signalling-looking text that is not one goes to RTVI's parser, which refuses it.
  assert.equal(readChannelText('{"type":"signalling"').kind, "app");
  assert.equal(readChannelText('{"type":"signalling","message":{}}').kind, "app");
});

Deno.test("the offer and patch schemas read pipecat's request bodies", () => {
  assert.ok(OfferRequestSchema.safeParse({ sdp: "v=0", type: "offer", pc_id: null }).success);
  assert.ok(!OfferRequestSchema.safeParse({ sdp: "", type: "offer" }).success);
  assert.ok(
    PatchRequestSchema.safeParse({
      pc_id: "a",
      candidates: [{
        candidate: "candidate:1 1 udp 1 127.0.0.1 9 typ host",
        sdp_mid: "0",
        sdp_mline_index: 0,
      }],
    }).success,
  );
  assert.ok(!PatchRequestSchema.safeParse({ pc_id: "a", candidates: "x" }).success);
});

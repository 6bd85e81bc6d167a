import assert from "node:assert/strict";
import { answerOffer, buildSdp, negotiatedFromAnswer, parseSdp } from "./sdp.ts";

const OFFER = buildSdp({
  address: "127.0.0.1",
  port: 40000,
  codecs: ["PCMU", "PCMA"],
  telephoneEvent: 101,
  sessionId: 42,
});

Deno.test("buildSdp() writes an offer parseSdp() reads: codecs in order, telephone-event, ptime", () => {
  const read = parseSdp(OFFER);
  assert.ok(read.ok, JSON.stringify(read));
  assert.equal(read.sdp.sessionId, "42");
  assert.equal(read.sdp.audio.address, "127.0.0.1");
  assert.equal(read.sdp.audio.port, 40000);
  assert.equal(read.sdp.audio.ptime, 20);
  assert.deepEqual(read.sdp.audio.formats.map((f) => [f.payloadType, f.encoding]), [
    [0, "PCMU"],
    [8, "PCMA"],
    [101, "TELEPHONE-EVENT"],
  ]);
});

Deno.test("answerOffer() takes the offerer's first common codec and its event type", () => {
  const pcmaFirst = OFFER.replace("RTP/AVP 0 8 101", "RTP/AVP 8 0 96").replaceAll(
    "101",
    "96",
  );
  const a = answerOffer(pcmaFirst, { address: "127.0.0.1", port: 40002, sessionId: 7 });
  assert.ok(a.ok, JSON.stringify(a));
  assert.deepEqual(a.media, {
    codec: "PCMA",
    payloadType: 8,
    telephoneEvent: 96,
    remoteAddress: "127.0.0.1",
    remotePort: 40000,
  });
  const back = negotiatedFromAnswer(a.sdp);
  assert.ok(back.ok);
  assert.equal(back.media.codec, "PCMA");
  assert.equal(back.media.remotePort, 40002);
  assert.equal(back.media.telephoneEvent, 96);
});

Deno.test("answerOffer() with no common codec is a no_common_codec error naming both sides", () => {
  const g722 = [
    "v=0",
    "o=- 1 1 IN IP4 127.0.0.1",
    "s=-",
    "c=IN IP4 127.0.0.1",
    "t=0 0",
    "m=audio 4000 RTP/AVP 9 96",
    "a=rtpmap:9 G722/8000",
    "a=rtpmap:96 opus/48000/2",
    "",
  ].join("\r\n");
  const a = answerOffer(g722, { address: "127.0.0.1", port: 1, sessionId: 1 });
  assert.equal(a.ok, false);
  if (!a.ok) {
    assert.equal(a.error.code, "no_common_codec");
    assert.match(a.error.message, /G722, OPUS.*PCMU, PCMA/);
  }
  // A static type renamed by rtpmap is what rtpmap says.
  const renamed = OFFER.replace("a=rtpmap:0 PCMU/8000", "a=rtpmap:0 L16/8000")
    .replace("RTP/AVP 0 8 101", "RTP/AVP 0 101");
  const r = answerOffer(renamed, { address: "x", port: 1, sessionId: 1 });
  assert.equal(r.ok ? "ok" : r.error.code, "no_common_codec");
});

Deno.test("an audio stream on port 0 (turned down) is sdp_no_audio, in an answer and in an offer", () => {
  const down = OFFER.replace(/m=audio \d+/, "m=audio 0");
  const back = negotiatedFromAnswer(down);
  assert.equal(back.ok ? "ok" : back.error.code, "sdp_no_audio");
  assert.match(back.ok ? "" : back.error.message, /port 0/);
  const a = answerOffer(down, { address: "127.0.0.1", port: 1, sessionId: 1 });
  assert.equal(a.ok ? "ok" : a.error.code, "sdp_no_audio");
});

Deno.test("parseSdp() names what is wrong, media-level c= wins, other media skipped", () => {
  for (
    const [text, code] of [
      ["", "sdp_malformed"],
      ["v=1\r\n", "sdp_malformed"],
      ["v=0\r\nnot a line\r\n", "sdp_malformed"],
      ["v=0\r\nc=IN IP4 1.2.3.4\r\nm=video 5 RTP/AVP 96\r\n", "sdp_no_audio"],
      ["v=0\r\nm=audio 5 RTP/AVP 0\r\n", "sdp_malformed"],
      ["v=0\r\nc=IN IP4 1.2.3.4\r\nm=audio 70000 RTP/AVP 0\r\n", "sdp_malformed"],
      ["v=0\r\nc=IN IP4 1.2.3.4\r\nm=audio 5 RTP/AVP 0 300\r\n", "sdp_malformed"],
      ["v=0\r\nc=XX\r\n", "sdp_malformed"],
      ["v=0\r\n" + "a=x\r\n".repeat(5000), "sdp_too_large"],
    ] as const
  ) {
    const read = parseSdp(text);
    assert.equal(read.ok ? "ok" : read.error.code, code, text.slice(0, 40));
  }
  const read = parseSdp(
    "v=0\nc=IN IP4 1.1.1.1\nm=video 9 RTP/AVP 96\nc=IN IP4 3.3.3.3\nm=audio 7 RTP/AVP 8\nc=IN IP4 2.2.2.2\na=sendonly\n",
  );
  assert.ok(read.ok, JSON.stringify(read));
  assert.equal(read.sdp.audio.address, "2.2.2.2");
  assert.equal(read.sdp.audio.direction, "sendonly");
  assert.equal(read.sdp.audio.formats[0]!.encoding, "PCMA");
});

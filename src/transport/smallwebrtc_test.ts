import assert from "node:assert/strict";
import { SimClock } from "../clock/clock.ts";
import { ChannelSocket, HOLD_MAX_MS, offerUrl } from "./smallwebrtc.ts";
import {
  type ChannelEvents,
  SpeechGate,
  WEBRTC_FRAME_SAMPLES,
  type WebRtcPeer,
} from "./webrtc_peer.ts";

/** A peer's data channel, as the socket sees it: what it is handed, what it sent. */
function fakePeer() {
  const sent: string[] = [];
  let events: ChannelEvents | undefined;
  const peer = {
    channel: (e: ChannelEvents) => void (events = e),
    sendText: (text: string) => (sent.push(text), true),
  } as unknown as WebRtcPeer;
  return {
    peer,
    sent,
    deliver: (text: string) => events!.message(text),
    close: () => events!.closed("gone"),
  };
}

const rtvi = (type: string) => JSON.stringify({ label: "rtvi-ai", type });

async function opened(socket: ChannelSocket): Promise<string[]> {
  const got: string[] = [];
  socket.onmessage = (e) => got.push(JSON.parse(String(e.data)).type);
  await new Promise<void>((resolve) => (socket.onopen = () => resolve()));
  return got;
}

Deno.test("ChannelSocket: RTVI passes; keep-alives and signalling are taken out", async () => {
  const { peer, sent, deliver } = fakePeer();
  const signals: string[] = [];
  const socket = new ChannelSocket(peer, (t) => signals.push(t));
  const got = await opened(socket);
  deliver("ping: 1");
  deliver('{"type":"signalling","message":{"type":"renegotiate"}}');
  deliver(rtvi("bot-ready"));
  assert.deepEqual(got, ["bot-ready"]);
  assert.deepEqual(signals, ["renegotiate"]);
  socket.send(rtvi("client-ready"));
  assert.deepEqual(sent.map((t) => JSON.parse(t).type), ["client-ready"]);
});

Deno.test("ChannelSocket: bot-stopped-speaking waits, with what follows, while the bot's audio still plays", async () => {
  const clock = new SimClock();
  let playing = true;
  const { peer, deliver } = fakePeer();
  const socket = new ChannelSocket(peer, () => {}, { clock, audioPlaying: () => playing });
  const got = await opened(socket);
  deliver(rtvi("bot-started-speaking"));
  deliver(rtvi("bot-stopped-speaking"));
  deliver(rtvi("bot-tts-text"));
  assert.deepEqual(got, ["bot-started-speaking"], "held while the audio plays");
  playing = false;
  socket.audioStopped();
  assert.deepEqual(got, ["bot-started-speaking", "bot-stopped-speaking", "bot-tts-text"]);
  // Audio that never stops: the hold ends after HOLD_MAX_MS all the same.
  playing = true;
  deliver(rtvi("bot-stopped-speaking"));
  await clock.advance(HOLD_MAX_MS - 1);
  assert.equal(got.length, 3);
  await clock.advance(1);
  assert.equal(got.length, 4);
  // A close hands over what was held first.
  deliver(rtvi("bot-stopped-speaking"));
  deliver(rtvi("server-message"));
  let closedAfter = -1;
  socket.onclose = () => (closedAfter = got.length);
  socket.lost("the peer connection failed");
  assert.equal(closedAfter, 6);
});

Deno.test("SpeechGate passes the bot's sound and what comes 300 ms after, not its long silences", () => {
  const gate = new SpeechGate();
  const quiet = new Int16Array(WEBRTC_FRAME_SAMPLES).fill(3);
  const loud = new Int16Array(WEBRTC_FRAME_SAMPLES).fill(2000);
  let at = 0;
  const push = (f: Int16Array) => gate.push(f, at += 20);
  for (let i = 0; i < 50; i++) assert.deepEqual(push(quiet), []);
  // Sound opens it, with the frames just before, each at its own arrival.
  const first = push(loud);
  assert.deepEqual(first.map((f) => f.at), [980, 1000, 1020]);
  assert.ok(gate.open);
  for (let i = 0; i < 14; i++) assert.equal(push(quiet).length, 1);
  assert.equal(push(quiet).length, 1, "the 300th ms of quiet still passes");
  assert.ok(!gate.open);
  assert.deepEqual(push(quiet), []);
});

Deno.test("offerUrl posts to /api/offer on a bare host and keeps a given path", () => {
  assert.equal(offerUrl("http://127.0.0.1:7860"), "http://127.0.0.1:7860/api/offer");
  assert.equal(offerUrl("http://h:1/offer?framing=smallwebrtc&x=1"), "http://h:1/offer?x=1");
});

import assert from "node:assert/strict";
import { SimClock } from "../clock/clock.ts";
import { voicedSignal } from "../audio/_test_signals.ts";
import { alawDecode, alawEncode } from "../audio/alaw.ts";
import { mulawEncode } from "../audio/mulaw.ts";
import { Vad } from "../audio/vad.ts";
import { buildRtp, parseRtp, parseTelephoneEvent, telephoneEventPackets } from "../protocol/rtp.ts";
import type { NegotiatedMedia } from "../protocol/sdp.ts";
import { MAX_IGNORED_PACKETS, SipCall, type SipHeardTurn } from "./sip_call.ts";

const AGENT = { address: "127.0.0.1", port: 40002 };
const MEDIA: NegotiatedMedia = {
  codec: "PCMU",
  payloadType: 0,
  telephoneEvent: 101,
  remoteAddress: AGENT.address,
  remotePort: AGENT.port,
};

async function setup(media: NegotiatedMedia = MEDIA) {
  const clock = new SimClock();
  const sent: Uint8Array[] = [];
  /** When each packet went out. */
  const sentAt: number[] = [];
  const turns: SipHeardTurn[] = [];
  const keys: string[] = [];
  const bounds: string[] = [];
  const vad = await Vad.create({ sampleRate: 8000, frameMs: 20 });
  const call = new SipCall({
    clock,
    media,
    ssrc: 0x1234,
    sequence: 65530,
    timestamp: 1000,
    send: (p) => {
      sent.push(p);
      sentAt.push(clock.now());
    },
    vad,
    onTurn: (t) => turns.push(t),
    onKey: (k) => keys.push(k),
    onBound: (w) => bounds.push(w),
  });
  const packets = () =>
    sent.map((b) => {
      const r = parseRtp(b);
      assert.ok(r.ok);
      return r.packet;
    });
  return { clock, sent, sentAt, turns, keys, bounds, vad, call, packets };
}

/** The agent's packets: 20 ms of PCMU each, from `seq`, arriving every 20 ms. */
function agentPackets(samples: Int16Array, seq: number, pt = 0): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < samples.length; i += 160) {
    out.push(buildRtp({
      payloadType: pt,
      sequence: seq++,
      timestamp: i,
      ssrc: 9,
      payload: mulawEncode(samples.subarray(i, i + 160)),
    }));
  }
  return out;
}

Deno.test("SipCall streams 20 ms RTP packets: one SSRC, sequence wraps, timestamp +160", async () => {
  const { clock, call, packets, vad } = await setup();
  call.begin();
  await clock.advance(100);
  const p = packets();
  assert.equal(p.length, 6);
  assert.deepEqual(p.map((x) => x.sequence), [65530, 65531, 65532, 65533, 65534, 65535]);
  assert.deepEqual(p.map((x) => x.timestamp), [1000, 1160, 1320, 1480, 1640, 1800]);
  assert.ok(p.every((x) => x.ssrc === 0x1234 && x.payloadType === 0 && x.payload.length === 160));
  assert.deepEqual(p.map((x) => x.marker), [true, false, false, false, false, false]);
  await clock.advance(20);
  assert.equal(packets()[6]!.sequence, 0);
  call.end();
  assert.equal(call.stats.sentPackets, 7);
  vad.free();
});

Deno.test("SipCall sends PCMA when the answer chose it", async () => {
  const { clock, call, packets, vad } = await setup({ ...MEDIA, codec: "PCMA", payloadType: 8 });
  call.begin();
  const speech = voicedSignal(8000, 100, 2);
  void call.speak(speech);
  await clock.advance(100);
  const voiced = packets().find((p) =>
    p.payloadType === 8 && alawDecode(p.payload).some((s) => Math.abs(s) > 100)
  );
  assert.ok(voiced, "an A-law packet with the speech in it");
  assert.deepEqual(voiced.payload, alawEncode(speech.subarray(0, 160)));
  call.end();
  vad.free();
});

Deno.test("SipCall sends keys as RFC 4733 events: marker first, end packet three times, one press after the other", async () => {
  const { clock, call, packets, sentAt, vad } = await setup();
  call.begin();
  call.press("1#");
  await clock.advance(1000);
  call.end();
  const events = packets().filter((p) => p.payloadType === 101);
  assert.equal(events.length, 16);
  const decoded = events.map((p) => {
    const r = parseTelephoneEvent(p.payload);
    assert.ok(r.ok);
    return { ...r.event, marker: p.marker, ts: p.timestamp };
  });
  const first = decoded.slice(0, 8);
  assert.ok(first.every((e) => e.event === 1 && e.ts === first[0]!.ts));
  assert.deepEqual(first.map((e) => e.marker), [
    true,
    false,
    false,
    false,
    false,
    false,
    false,
    false,
  ]);
  assert.deepEqual(first.map((e) => e.end), [false, false, false, false, false, true, true, true]);
  assert.ok(decoded.slice(8).every((e) => e.event === 11 && e.ts > first[0]!.ts));
  // Presses 200 ms apart as PROTOCOL.md says (100 ms held, 100 ms between): the gap counts
  // from the press's end, not from the last of its three end packets (140 ms).
  const starts = packets().flatMap((p, i) => p.payloadType === 101 && p.marker ? [sentAt[i]] : []);
  assert.deepEqual(starts, [0, 200]);
  // Sequence numbers are one stream with the audio: no repeats.
  const seqs = packets().map((p) => p.sequence);
  assert.equal(new Set(seqs).size, seqs.length);
  assert.equal(call.stats.keysSent, 2);
  vad.free();
});

Deno.test("SipCall puts reordered packets back in line and hears the agent's turn at its arrival", async () => {
  const { clock, call, turns, vad } = await setup();
  call.begin();
  await clock.advance(200);
  const speech = voicedSignal(8000, 600, 3);
  const packets = agentPackets(speech, 100);
  // Swap pairs: 1 0 3 2 5 4 ...
  for (let i = 0; i < packets.length; i += 2) {
    const a = packets[i]!;
    const b = packets[i + 1];
    if (b) call.receive(b, AGENT);
    call.receive(a, AGENT);
    await clock.advance(40);
  }
  await clock.advance(2000);
  call.end();
  assert.equal(turns.length, 1);
  assert.ok(Math.abs(turns[0]!.audioStartMs - 200) <= 1, `arrived at ${turns[0]!.audioStartMs}`);
  const s = call.stats;
  assert.equal(s.receivedPackets, packets.length);
  assert.equal(s.reordered, packets.length / 2);
  assert.equal(s.lost, 0);
  assert.equal(s.tooLate, 0);
  // The turn's audio is the speech in order (µ-law of it), not swapped.
  const heard = turns[0]!.samples;
  let corr = 0;
  for (let i = 0; i < Math.min(heard.length, speech.length); i++) corr += heard[i]! * speech[i]!;
  assert.ok(corr > 0, "in order");
  vad.free();
});

Deno.test("SipCall: a turn of a continuous stream (silence packets from the call's start) starts at its speech; one after a hole in the stream keeps its lead-in", async () => {
  for (const continuous of [true, false]) {
    const { clock, call, turns, vad } = await setup();
    call.begin();
    // 1.5 s of digital silence then 600 ms of speech, one packet every 20 ms from 0 (the
    // continuous stream); or nothing for 1 s, then 500 ms of silence and the speech.
    const lead = continuous ? 1500 : 500;
    const audio = new Int16Array(((lead + 600) * 8000) / 1000);
    audio.set(voicedSignal(8000, 600, 3), (lead * 8000) / 1000);
    const start = continuous ? 0 : 1000;
    await clock.advance(start);
    for (const packet of agentPackets(audio, 100)) {
      call.receive(packet, AGENT);
      await clock.advance(20);
    }
    await clock.advance(2000);
    call.end();
    assert.equal(turns.length, 1, `continuous: ${continuous}`);
    // The speech's first packet arrived at start + lead; the lead-in's at start.
    const expected = continuous ? start + lead : start;
    const at = turns[0]!.audioStartMs;
    assert.ok(
      Math.abs(at - expected) <= 1,
      `continuous ${continuous}: turn at ${at}, not ${expected}`,
    );
    vad.free();
  }
});

Deno.test("SipCall hears each agent key once; ignores and counts other sources and payload types, then bounds", async () => {
  const { clock, call, keys, bounds, vad } = await setup();
  call.begin();
  for (const p of telephoneEventPackets("5")) {
    call.receive(
      buildRtp({
        payloadType: 101,
        marker: p.marker,
        sequence: 1,
        timestamp: 500,
        ssrc: 9,
        payload: p.payload,
      }),
      AGENT,
    );
  }
  assert.deepEqual(keys, ["5"]);
  const audio = agentPackets(new Int16Array(160), 1)[0]!;
  call.receive(audio, { address: "127.0.0.1", port: 9999 });
  call.receive(audio, { address: "127.0.0.2", port: AGENT.port });
  call.receive(agentPackets(new Int16Array(160), 2, 18)[0]!, AGENT);
  call.receive(Uint8Array.of(1, 2, 3), AGENT);
  let s = call.stats;
  assert.equal(s.ignoredSource, 2);
  assert.equal(s.ignoredPayloadType, 1);
  assert.equal(s.malformed, 1);
  assert.equal(s.receivedPackets, 0);
  assert.deepEqual(bounds, []);
  for (let i = 0; i < MAX_IGNORED_PACKETS; i++) {
    call.receive(audio, { address: "10.0.0.1", port: 1 });
  }
  assert.equal(bounds.length, 1);
  assert.match(bounds[0]!, /RTP packets callbench ignores/);
  // Nothing more is taken.
  call.receive(audio, AGENT);
  s = call.stats;
  assert.equal(s.receivedPackets, 0);
  await clock.advance(100);
  call.end();
  vad.free();
});

Deno.test("SipCall drops a packet later than its turn and counts the gap it left", async () => {
  const { clock, call, vad } = await setup();
  call.begin();
  const packets = agentPackets(voicedSignal(8000, 200, 4), 10);
  for (const [i, p] of packets.entries()) {
    if (i !== 3) call.receive(p, AGENT);
    await clock.advance(20);
  }
  await clock.advance(200);
  call.receive(packets[3]!, AGENT);
  call.end();
  assert.equal(call.stats.lost, 1);
  assert.equal(call.stats.tooLate, 1);
  vad.free();
});

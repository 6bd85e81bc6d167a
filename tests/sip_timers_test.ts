/**
 * The SIP participant's INVITE timers on a simulated clock (real UDP on loopback, the
 * clock injected): retransmits at T1, 2×T1, 4×T1... capped at T2 until a response,
 * `agent_unreachable` after 64 × T1 without one; a provisional response stops the
 * retransmits, and a ring that never turns into an answer times out.
 */
import assert from "node:assert/strict";
import dgram from "node:dgram";
import { SimClock } from "../src/clock/clock.ts";
import type { CallSetup } from "../src/bridge/call.ts";
import { parseSip, responseTo, serializeSip, type SipRequest } from "../src/protocol/sip.ts";
import { SipParticipant } from "../src/transport/sip.ts";
import { RecordingLine } from "./_wire.ts";

const SETUP: CallSetup = {
  side: "agent",
  scenario: "sip__timers",
  domain: "test_counter",
  prompt: "",
  tools: [],
  seed: "1",
};

/** A UDP peer that only listens (and answers provisionally when asked). */
async function silentPeer(ring = false) {
  const s = dgram.createSocket("udp4");
  await new Promise<void>((r) => s.bind(0, "127.0.0.1", () => r()));
  const invites: number[] = [];
  let clock: SimClock | undefined;
  s.on("message", (msg, rinfo) => {
    const read = parseSip(new Uint8Array(msg));
    if (!read.ok || read.message.kind !== "request" || read.message.method !== "INVITE") return;
    invites.push(clock!.now());
    if (ring) {
      const res = serializeSip(
        responseTo(read.message as SipRequest, 180, "Ringing", { toTag: "r1" }),
      );
      s.send(new TextEncoder().encode(res), rinfo.port, rinfo.address);
    }
  });
  return {
    uri: `sip:agent@127.0.0.1:${s.address().port}`,
    invites,
    setClock: (c: SimClock) => (clock = c),
    close: () => new Promise<void>((r) => s.close(() => r())),
  };
}

const settle = () => new Promise((r) => setTimeout(r, 30));

Deno.test("SIP INVITE: retransmitted at 0.5, 1.5, 3.5 s then every 4 s; agent_unreachable after 32 s without an answer", async () => {
  const peer = await silentPeer();
  const clock = new SimClock();
  peer.setClock(clock);
  const line = new RecordingLine("agent", clock);
  const participant = new SipParticipant({ uri: peer.uri });
  try {
    let error: { kind: string; message: string } | undefined;
    const started = participant.start(line, SETUP).catch((e) => (error = e));
    while (peer.invites.length === 0) await settle();
    for (let t = 0; t < 32_000; t += 250) {
      await clock.advance(250);
      await settle();
    }
    await started;
    assert.deepEqual(peer.invites, [
      0,
      500,
      1500,
      3500,
      7500,
      11500,
      15500,
      19500,
      23500,
      27500,
      31500,
    ]);
    assert.equal(error?.kind, "agent_unreachable");
    assert.match(error!.message, /did not answer the INVITE in 32 s/);
  } finally {
    await participant.close();
    await peer.close();
  }
});

Deno.test("SIP INVITE: a 180 stops the retransmits; a ring with no answer is agent_unreachable after the ring timeout", async () => {
  const peer = await silentPeer(true);
  const clock = new SimClock();
  peer.setClock(clock);
  const line = new RecordingLine("agent", clock);
  const participant = new SipParticipant({ uri: peer.uri, ringTimeoutMs: 10_000 });
  try {
    let error: { kind: string; message: string } | undefined;
    const started = participant.start(line, SETUP).catch((e) => (error = e));
    while (peer.invites.length === 0) await settle();
    await settle();
    for (let t = 0; t < 11_000; t += 500) {
      await clock.advance(500);
      await settle();
    }
    await started;
    assert.deepEqual(peer.invites, [0]);
    assert.equal(error?.kind, "agent_unreachable");
    assert.match(error!.message, /rang but did not answer in 10 s/);
  } finally {
    await participant.close();
    await peer.close();
  }
});

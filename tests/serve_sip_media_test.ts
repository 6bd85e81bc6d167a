/**
 * The RTP side of a `serve --sip` call (src/server/sip_media.ts) over a real UDP socket:
 * keys go out as RFC 4733 telephone events (one timestamp per key, growing durations, the
 * end packet three times), audio and silence as 20 ms PCMA packets when PCMA was
 * negotiated; and the `--sip` flags are checked before anything listens.
 */
import assert from "node:assert/strict";
import { createSocket } from "node:dgram";
import { RealClock } from "../src/clock/clock.ts";
import { answerOffer, SipMedia } from "../src/server/sip_media.ts";
import { cli } from "./_cli.ts";

async function receiver() {
  const socket = createSocket("udp4");
  await new Promise<void>((r) => socket.bind(0, "127.0.0.1", () => r()));
  const packets: Uint8Array[] = [];
  socket.on("message", (d) => packets.push(new Uint8Array(d)));
  return { socket, packets, port: socket.address().port };
}

function offer(port: number, formats: string, maps: string[]): string {
  return [
    "v=0",
    "o=- 1 1 IN IP4 127.0.0.1",
    "s=-",
    "c=IN IP4 127.0.0.1",
    "t=0 0",
    `m=audio ${port} RTP/AVP ${formats}`,
    ...maps,
    "",
  ].join("\r\n");
}

Deno.test("serve --sip media: keys are RFC 4733 events, the end sent three times; PCMA audio when offered first", async () => {
  const far = await receiver();
  const answered = answerOffer(
    offer(far.port, "8 0 97", ["a=rtpmap:8 PCMA/8000", "a=rtpmap:97 telephone-event/8000"]),
    "127.0.0.1",
  );
  assert.ok(answered.ok);
  assert.equal(answered.media.codec, "PCMA");
  assert.equal(answered.media.telephoneEvent, 97);
  const media = await SipMedia.open({
    hostname: "127.0.0.1",
    negotiated: answered.media,
    clock: new RealClock(),
    log: () => {},
  });
  try {
    const sdp = media.answerSdp("127.0.0.1");
    assert.match(sdp, new RegExp(`\\r\\nm=audio ${media.port} RTP/AVP 8 97\\r\\n`));
    assert.match(sdp, /\r\na=rtpmap:8 PCMA\/8000\r\n/);
    await media.sendKeys("5#");
    await new Promise((r) => setTimeout(r, 50));
    const events = far.packets.filter((p) => (p[1]! & 0x7f) === 97);
    const byKey = new Map<number, Uint8Array[]>();
    for (const p of events) {
      const ts = new DataView(p.buffer).getUint32(4);
      byKey.set(ts, [...(byKey.get(ts) ?? []), p.subarray(12)]);
    }
    assert.deepEqual([...byKey.values()].map((e) => e[0]![0]), [5, 11]);
    for (const payloads of byKey.values()) {
      const ends = payloads.filter((e) => (e[1]! & 0x80) !== 0);
      assert.equal(ends.length, 3, "the end packet, three times");
      const durations = payloads.map((e) => (e[2]! << 8) | e[3]!);
      assert.deepEqual(durations.slice(0, 5), [160, 320, 480, 640, 800]);
    }
    media.sendAudio(new Int16Array(160).fill(1000));
    await new Promise((r) => setTimeout(r, 20));
    const audio = far.packets.filter((p) => (p[1]! & 0x7f) === 8);
    assert.equal(audio.length, 1);
    assert.equal(audio[0]!.length, 12 + 160);
  } finally {
    media.close();
    far.socket.close();
  }
});

Deno.test("serve --sip media: an offer with neither PCMU nor PCMA is refused", () => {
  const r = answerOffer(
    offer(4000, "9 111", ["a=rtpmap:9 G722/8000", "a=rtpmap:111 opus/48000/2"]),
    "127.0.0.1",
  );
  assert.equal(r.ok, false);
});

Deno.test("serve --sip flags: --sip-host needs --sip; off loopback, a token", async () => {
  const a = await cli(["serve", "--port", "0", "--sip-host", "127.0.0.1"]);
  assert.equal(a.code, 2, a.stderr);
  assert.match(a.stderr, /--sip-host.*needs --sip/);
  const b = await cli(["serve", "--port", "0", "--sip", "0", "--sip-host", "0.0.0.0"]);
  assert.equal(b.code, 2, b.stderr);
  assert.match(b.stderr, /not loopback.*needs a token/);
});

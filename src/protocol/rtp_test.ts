import assert from "node:assert/strict";
import {
  buildRtp,
  buildTelephoneEvent,
  dtmfEventCode,
  dtmfKeyOfEvent,
  parseRtp,
  parseTelephoneEvent,
  sequenceDelta,
  telephoneEventPackets,
  TelephoneEventReceiver,
} from "./rtp.ts";

Deno.test("buildRtp() writes the RFC 3550 header parseRtp() reads back", () => {
  const payload = Uint8Array.from({ length: 160 }, (_, i) => i);
  const bytes = buildRtp({
    payloadType: 8,
    marker: true,
    sequence: 0x1_0005,
    timestamp: 2 ** 32 + 160,
    ssrc: 0xdeadbeef,
    payload,
  });
  assert.equal(bytes.length, 172);
  assert.deepEqual([...bytes.subarray(0, 12)], [
    0x80,
    0x88,
    0x00,
    0x05,
    0,
    0,
    0,
    160,
    0xde,
    0xad,
    0xbe,
    0xef,
  ]);
  const read = parseRtp(bytes);
  assert.ok(read.ok);
  assert.equal(read.packet.payloadType, 8);
  assert.equal(read.packet.marker, true);
  assert.equal(read.packet.sequence, 5);
  assert.equal(read.packet.timestamp, 160);
  assert.equal(read.packet.ssrc, 0xdeadbeef);
  assert.deepEqual(read.packet.payload, payload);
});

Deno.test("parseRtp() skips CSRCs and the header extension and removes padding", () => {
  const bytes = Uint8Array.of(
    0xb2, // V=2, P=1, X=1, CC=2
    0x00,
    0,
    1,
    0,
    0,
    0,
    1,
    0,
    0,
    0,
    9,
    0,
    0,
    0,
    0xa, // CSRC 1
    0,
    0,
    0,
    0xb, // CSRC 2
    0xbe,
    0xde,
    0,
    1, // extension, 1 word
    1,
    2,
    3,
    4,
    0x55,
    0x66, // payload
    0,
    0,
    3, // 3 bytes of padding
  );
  const read = parseRtp(bytes);
  assert.ok(read.ok, JSON.stringify(read));
  assert.deepEqual(read.packet.csrc, [10, 11]);
  assert.deepEqual([...read.packet.payload], [0x55, 0x66]);
});

Deno.test("parseRtp() refuses short, wrong-version and inconsistent packets with a code", () => {
  const good = buildRtp({
    payloadType: 0,
    sequence: 1,
    timestamp: 1,
    ssrc: 1,
    payload: new Uint8Array(4),
  });
  const cases: [Uint8Array, string][] = [
    [good.subarray(0, 11), "rtp_short"],
    [Uint8Array.from([0x40, ...good.subarray(1)]), "rtp_version"],
    [Uint8Array.from([0x8f, ...good.subarray(1)]), "rtp_csrc"],
    [Uint8Array.from([0x90, ...good.subarray(1, 12), 0, 0, 0, 9]), "rtp_extension"],
    [Uint8Array.from([0x90, ...good.subarray(1, 12), 0]), "rtp_extension"],
    [Uint8Array.from([0xa0, ...good.subarray(1, 12), 0, 0, 0, 99]), "rtp_padding"],
    [Uint8Array.from([0xa0, ...good.subarray(1, 12), 0, 0, 0, 0]), "rtp_padding"],
    [new Uint8Array(70_000), "rtp_too_large"],
  ];
  for (const [bytes, code] of cases) {
    const read = parseRtp(bytes);
    assert.equal(read.ok ? "ok" : read.error.code, code);
  }
});

Deno.test("sequenceDelta() follows 16-bit wrap-around", () => {
  assert.equal(sequenceDelta(1, 0xffff), 2);
  assert.equal(sequenceDelta(0xffff, 1), -2);
  assert.equal(sequenceDelta(100, 90), 10);
});

Deno.test("telephone-event payloads carry event, end bit, volume and duration (RFC 4733)", () => {
  const bytes = buildTelephoneEvent({ event: 11, end: true, volume: 10, duration: 800 });
  assert.deepEqual([...bytes], [11, 0x8a, 0x03, 0x20]);
  const read = parseTelephoneEvent(bytes);
  assert.ok(read.ok);
  assert.deepEqual(read.event, { event: 11, end: true, volume: 10, duration: 800 });
  assert.equal(parseTelephoneEvent(bytes.subarray(0, 3)).ok, false);
  assert.equal(dtmfEventCode("#"), 11);
  assert.equal(dtmfEventCode("*"), 10);
  assert.equal(dtmfEventCode("D"), 15);
  assert.equal(dtmfEventCode("x"), undefined);
  assert.equal(dtmfKeyOfEvent(1), "1");
  assert.equal(dtmfKeyOfEvent(16), undefined);
});

Deno.test("telephoneEventPackets() marks the first packet and sends the end packet three times", () => {
  const packets = telephoneEventPackets("5", { durationMs: 100 });
  assert.equal(packets.length, 5 + 3);
  assert.deepEqual(packets.map((p) => p.marker), [
    true,
    false,
    false,
    false,
    false,
    false,
    false,
    false,
  ]);
  assert.deepEqual(packets.map((p) => p.atMs), [0, 20, 40, 60, 80, 100, 120, 140]);
  const events = packets.map((p) => {
    const r = parseTelephoneEvent(p.payload);
    assert.ok(r.ok);
    return r.event;
  });
  assert.deepEqual(events.map((e) => e.duration), [160, 320, 480, 640, 800, 800, 800, 800]);
  assert.deepEqual(events.map((e) => e.end), [false, false, false, false, false, true, true, true]);
  assert.ok(events.every((e) => e.event === 5));
  assert.deepEqual(telephoneEventPackets("?"), []);
});

Deno.test("TelephoneEventReceiver hears each press once across updates and end copies", () => {
  const rx = new TelephoneEventReceiver();
  const heard: string[] = [];
  for (const [ts, key] of [[1000, "1"], [2000, "#"], [3000, "1"]] as const) {
    for (const p of telephoneEventPackets(key)) {
      const k = rx.push(ts, p.payload);
      if (k) heard.push(k);
    }
  }
  assert.deepEqual(heard, ["1", "#", "1"]);
});

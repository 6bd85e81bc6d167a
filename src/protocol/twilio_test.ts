import assert from "node:assert/strict";
import { encodeBase64, MAX_AUDIO_PAYLOAD_BYTES } from "./audio_payload.ts";
import {
  FromTwilioMessageSchema,
  MULAW_SILENCE,
  parseAgentMessage,
  parseTwilioMessage,
  StartMessageSchema,
  TWILIO_FRAME_BYTES,
  type TwilioResult,
  TwilioStream,
} from "./twilio.ts";

const init = { streamSid: "MZ01", accountSid: "AC01", callSid: "CA01" };
const codeOf = (r: TwilioResult<unknown>) => (r.ok ? undefined : r.problem.code);
const mulaw = (n: number, value = 0x55) => new Uint8Array(n).fill(value);

Deno.test("a stream numbers its messages as Twilio does, from start = 1", () => {
  const s = new TwilioStream({ ...init, customParameters: { scenario: "s1" } });
  assert.deepEqual(s.connected(), { event: "connected", protocol: "Call", version: "1.0.0" });
  assert.equal(s.sequenceNumber, 0);
  assert.deepEqual(s.start(), {
    event: "start",
    sequenceNumber: "1",
    start: {
      accountSid: "AC01",
      streamSid: "MZ01",
      callSid: "CA01",
      tracks: ["inbound"],
      mediaFormat: { encoding: "audio/x-mulaw", sampleRate: 8000, channels: 1 },
      customParameters: { scenario: "s1" },
    },
    streamSid: "MZ01",
  });
  const media = [s.media(mulaw(160)), s.media(mulaw(160)), s.media(mulaw(160))];
  assert.deepEqual(
    media.map((m) => [m.sequenceNumber, m.media.chunk, m.media.timestamp, m.media.track]),
    [["2", "1", "0", "inbound"], ["3", "2", "20", "inbound"], ["4", "3", "40", "inbound"]],
  );
  assert.equal(media[0]!.media.payload, encodeBase64(mulaw(160)));
  assert.deepEqual(s.dtmf("#"), {
    event: "dtmf",
    streamSid: "MZ01",
    sequenceNumber: "5",
    dtmf: { track: "inbound_track", digit: "#" },
  });
  assert.deepEqual(s.mark("utt-1"), {
    event: "mark",
    sequenceNumber: "6",
    streamSid: "MZ01",
    mark: { name: "utt-1" },
  });
  assert.deepEqual(s.stop(), {
    event: "stop",
    sequenceNumber: "7",
    stop: { accountSid: "AC01", callSid: "CA01" },
    streamSid: "MZ01",
  });
});

Deno.test("every message a stream builds parses back with the from-Twilio schemas", () => {
  const s = new TwilioStream({ ...init, tracks: ["inbound", "outbound"] });
  const all = [
    s.connected(),
    s.start(),
    ...s.frames(mulaw(400)),
    s.media(mulaw(160), "outbound"),
    s.dtmf("7"),
    s.mark("m"),
    s.stop(),
  ];
  for (const m of all) {
    const r = parseTwilioMessage(JSON.stringify(m));
    assert.ok(r.ok, JSON.stringify(r));
    assert.deepEqual(r.value, m);
  }
});

Deno.test("frames() cuts 20 ms frames of 160 bytes and pads the last with µ-law silence", () => {
  const s = new TwilioStream(init);
  s.start();
  const audio = Uint8Array.from({ length: 400 }, (_, i) => i % 256);
  const frames = s.frames(audio);
  assert.equal(frames.length, 3);
  assert.deepEqual(frames.map((f) => f.media.timestamp), ["0", "20", "40"]);
  const last = Uint8Array.fromBase64(frames[2]!.media.payload);
  assert.equal(last.length, TWILIO_FRAME_BYTES);
  assert.deepEqual(last.subarray(0, 80), audio.subarray(320));
  assert.ok(last.subarray(80).every((b) => b === MULAW_SILENCE));
  // The next frame starts after the padded one: 60 ms.
  assert.equal(s.media(mulaw(160)).media.timestamp, "60");
});

Deno.test("chunks and timestamps are kept per track; a timestamp can follow real time", () => {
  const s = new TwilioStream({ ...init, tracks: ["inbound", "outbound"] });
  s.start();
  s.media(mulaw(160));
  s.media(mulaw(160));
  const out = s.media(mulaw(80), "outbound");
  assert.deepEqual([out.media.chunk, out.media.timestamp], ["1", "0"]);
  assert.equal(s.media(mulaw(160), "outbound").media.timestamp, "10");
  const late = s.media(mulaw(160), "inbound", 1234);
  assert.deepEqual([late.media.chunk, late.media.timestamp, late.sequenceNumber], [
    "3",
    "1234",
    "6",
  ]);
});

Deno.test("a stream refuses misuse: media before start, after stop, other tracks, bad keys", () => {
  const s = new TwilioStream(init);
  assert.throws(() => s.media(mulaw(160)), /start first/);
  s.start();
  assert.throws(() => s.start(), /already/);
  assert.throws(() => s.media(mulaw(160), "outbound"), /not one of the stream's tracks/);
  assert.throws(() => s.media(new Uint8Array()), RangeError);
  assert.throws(() => s.media(mulaw(MAX_AUDIO_PAYLOAD_BYTES + 1)), RangeError);
  assert.throws(() => s.dtmf("12"), /DTMF/);
  s.stop();
  assert.throws(() => s.mark("x"), /stopped/);
});

Deno.test("parseAgentMessage reads media as µ-law bytes, mark and clear", () => {
  const bytes = Uint8Array.of(0xff, 0x7f, 0x00, 0x80, 0x55);
  const media = { event: "media", streamSid: "MZ01", media: { payload: encodeBase64(bytes) } };
  assert.deepEqual(parseAgentMessage(JSON.stringify(media), "MZ01"), {
    ok: true,
    value: { event: "media", streamSid: "MZ01", mulaw: bytes },
  });
  assert.deepEqual(
    parseAgentMessage('{"event":"mark","streamSid":"MZ01","mark":{"name":"turn-3"}}'),
    { ok: true, value: { event: "mark", streamSid: "MZ01", name: "turn-3" } },
  );
  assert.deepEqual(parseAgentMessage('{"event":"clear","streamSid":"MZ01"}', "MZ01"), {
    ok: true,
    value: { event: "clear", streamSid: "MZ01" },
  });
});

Deno.test("bad agent messages are typed problems, never exceptions", () => {
  const media = (payload: unknown, streamSid: unknown = "MZ01") =>
    JSON.stringify({ event: "media", streamSid, media: { payload } });
  const cases: [string, string][] = [
    ["{nope", "invalid_json"],
    ["[1]", "malformed"],
    ['{"event":"start","streamSid":"MZ01"}', "unknown_event"],
    ['{"streamSid":"MZ01"}', "unknown_event"],
    ['{"event":"clear"}', "malformed"],
    ['{"event":"mark","streamSid":"MZ01","mark":{}}', "malformed"],
    ['{"event":"media","media":{"payload":"AAAA"}}', "malformed"], // no streamSid
    [media(7), "malformed"],
    [media("AA=A"), "bad_base64"],
    [media("not base64!"), "bad_base64"],
    [media("A".repeat(Math.ceil(MAX_AUDIO_PAYLOAD_BYTES / 3) * 4 + 4)), "oversized"],
    [media("AAAA", "MZ99"), "wrong_stream"],
  ];
  for (const [text, code] of cases) {
    assert.equal(codeOf(parseAgentMessage(text, "MZ01")), code, text.slice(0, 60));
  }
});

Deno.test("the from-Twilio schemas hold Twilio's fixed media format and string counters", () => {
  const s = new TwilioStream(init);
  const start = s.start();
  const wrongRate = {
    ...start,
    start: { ...start.start, mediaFormat: { ...start.start.mediaFormat, sampleRate: 16000 } },
  };
  assert.equal(StartMessageSchema.safeParse(wrongRate).success, false);
  assert.equal(StartMessageSchema.safeParse({ ...start, sequenceNumber: 1 }).success, false);
  const m = s.media(mulaw(160));
  assert.equal(
    FromTwilioMessageSchema.safeParse({ ...m, media: { ...m.media, chunk: "0" } }).success,
    false,
  );
  assert.equal(
    codeOf(parseTwilioMessage(JSON.stringify({ ...m, media: { ...m.media, payload: "%%" } }))),
    "bad_base64",
  );
  assert.equal(codeOf(parseTwilioMessage('{"event":"clear","streamSid":"MZ01"}')), "unknown_event");
});

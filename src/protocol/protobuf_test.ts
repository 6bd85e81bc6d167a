import assert from "node:assert/strict";
// deno-lint-ignore no-import-prefix -- test-only: kept out of the import map so a first run does not download it
import { ProtobufFrameSerializer } from "npm:@pipecat-ai/websocket-transport@1.7.1";
import { AudioPayloadError, MAX_AUDIO_PAYLOAD_BYTES } from "./audio_payload.ts";
import {
  decodeFrame,
  decodePipecatFrame,
  encodeAudioFrame,
  encodeMessageFrame,
  encodeTextFrame,
  encodeTranscriptionFrame,
  encodeVarint,
  encodeVarintBigInt,
  ProtobufError,
  readVarint,
  readVarintBigInt,
} from "./protobuf.ts";

const assertThrowsProtobuf = (fn: () => unknown, pattern: RegExp) =>
  assert.throws(fn, (e: unknown) => e instanceof ProtobufError && pattern.test(e.message));

Deno.test("varints round-trip across byte boundaries", () => {
  for (const n of [0, 1, 127, 128, 300, 16_383, 16_384, 2 ** 31, 2 ** 53 - 1]) {
    const bytes = encodeVarint(n);
    assert.deepEqual(readVarint(bytes, 0), { value: n, next: bytes.length });
  }
  assert.deepEqual([...encodeVarint(300)], [0xac, 0x02]);
});

Deno.test("readVarint refuses truncated and over-long varints", () => {
  assertThrowsProtobuf(() => readVarint(Uint8Array.of(0x80, 0x80), 0), /truncated/);
  assertThrowsProtobuf(() => readVarint(new Uint8Array(11).fill(0xff), 0), /10 bytes|too large/);
});

Deno.test("a message frame round-trips its JSON, including non-ASCII text", () => {
  const json = JSON.stringify({
    label: "rtvi-ai",
    type: "send-text",
    data: { content: "héllo ☎" },
  });
  assert.deepEqual(decodeFrame(encodeMessageFrame(json)), { kind: "message", data: json });
});

Deno.test("our message frames are byte-identical to the official transport's serializer", () => {
  const msg = {
    label: "rtvi-ai",
    type: "client-ready",
    id: "abc12345",
    data: { version: "2.1.0" },
  };
  const theirs = new ProtobufFrameSerializer().serializeMessage(msg as never);
  assert.deepEqual([...encodeMessageFrame(JSON.stringify(msg))], [...theirs]);
  assert.deepEqual(decodeFrame(theirs), { kind: "message", data: JSON.stringify(msg) });
});

Deno.test("an audio frame from the official transport is recognised as audio", () => {
  const pcm = new Int16Array([1, -1, 300, -300]).buffer;
  const frame = new ProtobufFrameSerializer().serializeAudio(pcm, 16000, 1);
  assert.deepEqual(decodeFrame(frame), { kind: "audio" });
});

Deno.test("decodeFrame skips unknown fields and refuses frames with no known kind", () => {
  const json = '{"label":"rtvi-ai","type":"x"}';
  const unknownVarint = Uint8Array.of((9 << 3) | 0, 0x96, 0x01);
  const known = encodeMessageFrame(json);
  const both = new Uint8Array([...unknownVarint, ...known]);
  assert.deepEqual(decodeFrame(both), { kind: "message", data: json });
  assertThrowsProtobuf(() => decodeFrame(unknownVarint), /no known kind/);
  assertThrowsProtobuf(() => decodeFrame(new Uint8Array()), /no known kind/);
});

Deno.test("in a frame with two kinds the last one wins, for both decoders", () => {
  const json = '{"label":"rtvi-ai","type":"x"}';
  const audio = encodeAudioFrame({ pcm: new Uint8Array(4), sampleRate: 16000, numChannels: 1 });
  const message = encodeMessageFrame(json);
  const audioLast = new Uint8Array([...message, ...audio]);
  const messageLast = new Uint8Array([...audio, ...message]);
  assert.deepEqual(decodeFrame(audioLast), { kind: "audio" });
  assert.deepEqual(decodeFrame(messageLast), { kind: "message", data: json });
  const a = decodePipecatFrame(audioLast);
  assert.ok(a.ok && a.frame.kind === "audio");
  assert.deepEqual(decodePipecatFrame(messageLast), {
    ok: true,
    frame: { kind: "message", data: json },
  });
});

Deno.test("decodeFrame refuses malformed frames with a reason", () => {
  assertThrowsProtobuf(() => decodeFrame(Uint8Array.of(0x22, 0x05, 0x0a)), /truncated/);
  assertThrowsProtobuf(() => decodeFrame(Uint8Array.of(0x20, 0x01)), /wire type 0/);
  assertThrowsProtobuf(() => decodeFrame(Uint8Array.of(0x0f)), /wire type 7/);
  assertThrowsProtobuf(() => decodeFrame(Uint8Array.of(0x00)), /field number 0/);
  const badUtf8 = Uint8Array.of(0x22, 0x03, 0x0a, 0x01, 0xff);
  assertThrowsProtobuf(() => decodeFrame(badUtf8), /UTF-8/);
});

// ---- audio, text and transcription frames -------------------------------------------

/** `count` samples of a deterministic signal as PCM16 LE bytes. */
function pcm16(count: number, seed = 1): Uint8Array<ArrayBuffer> {
  const samples = new Int16Array(count);
  let x = seed;
  for (let i = 0; i < count; i++) {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    samples[i] = (x % 65536) - 32768;
  }
  return new Uint8Array(samples.buffer);
}

/** Hand-built protobuf: a tag and its value (a number varint or length-delimited bytes). */
function field(no: number, value: number | Uint8Array, wire?: number): Uint8Array {
  if (typeof value === "number") {
    return join(encodeVarint(no * 8 + (wire ?? 0)), encodeVarint(value));
  }
  return join(encodeVarint(no * 8 + 2), encodeVarint(value.length), value);
}

function join(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function audioFrameOf(...fields: Uint8Array[]): Uint8Array {
  return field(2, join(...fields));
}

function problemOf(bytes: Uint8Array, maxAudioBytes?: number): string {
  const r = decodePipecatFrame(bytes, maxAudioBytes);
  assert.equal(r.ok, false, "expected a problem");
  return (r as { problem: { code: string } }).problem.code;
}

Deno.test("our audio frames are byte-identical to the official transport's serializer", () => {
  const official = new ProtobufFrameSerializer();
  const cases = [
    { samples: 256, sampleRate: 16000, numChannels: 1 }, // the reference's 512-byte chunk
    { samples: 480, sampleRate: 24000, numChannels: 1 }, // 20 ms at 24 kHz
    { samples: 160, sampleRate: 8000, numChannels: 1 },
    { samples: 1764, sampleRate: 44100, numChannels: 2 },
    { samples: 96_000, sampleRate: 48000, numChannels: 2 }, // 1 s stereo: multi-byte lengths
    { samples: 0, sampleRate: 16000, numChannels: 1 }, // empty audio: the field is left out
  ];
  for (const c of cases) {
    const pcm = pcm16(c.samples * c.numChannels, c.samples + 7);
    const theirs = official.serializeAudio(pcm.buffer, c.sampleRate, c.numChannels);
    const ours = encodeAudioFrame({ pcm, sampleRate: c.sampleRate, numChannels: c.numChannels });
    assert.deepEqual(ours, theirs, `${c.samples} samples at ${c.sampleRate} Hz`);
    // Default options take a one-buffer path; naming the defaults takes the general one.
    const general = encodeAudioFrame(
      { pcm, sampleRate: c.sampleRate, numChannels: c.numChannels },
      { name: "audio" },
    );
    assert.deepEqual(ours, general, `${c.samples} samples, general path`);
  }
});

Deno.test("the official deserializer reads our audio frames as the same samples", async () => {
  const pcm = pcm16(480, 3);
  const ours = encodeAudioFrame({ pcm, sampleRate: 24000, numChannels: 1 }, { id: 42n });
  const read = await new ProtobufFrameSerializer().deserialize(new Blob([ours]));
  assert.equal(read.type, "audio");
  assert.deepEqual((read as { audio: Int16Array }).audio, new Int16Array(pcm.buffer));
});

Deno.test("decodePipecatFrame reads an official audio frame's PCM, rate and channels", () => {
  const pcm = pcm16(512, 5);
  const theirs = new ProtobufFrameSerializer().serializeAudio(pcm.buffer, 16000, 2);
  const r = decodePipecatFrame(theirs);
  assert.ok(r.ok);
  assert.deepEqual(r.frame, {
    kind: "audio",
    id: 0n,
    name: "audio",
    pcm,
    sampleRate: 16000,
    numChannels: 2,
  });
  // The PCM is a copy that starts on an aligned offset, so it can back an Int16Array.
  const frame = r.frame as { pcm: Uint8Array };
  assert.notEqual(frame.pcm.buffer, theirs.buffer);
  assert.equal(new Int16Array(frame.pcm.buffer).length, 512);
  // Asked not to copy, it is a view of the frame's own bytes: the same samples.
  const view = decodePipecatFrame(theirs, undefined, { copyAudio: false });
  assert.ok(view.ok && view.frame.kind === "audio");
  assert.equal(view.frame.pcm.buffer, theirs.buffer);
  assert.deepEqual(view.frame.pcm, pcm);
});

Deno.test("audio frames round-trip id, name and a pts beyond 2^53", () => {
  const pcm = pcm16(160);
  const pts = 1_760_000_000_123_456_789n; // epoch nanoseconds
  const bytes = encodeAudioFrame(
    { pcm, sampleRate: 8000, numChannels: 1 },
    { id: 2n ** 64n - 1n, name: "tts", pts },
  );
  const r = decodePipecatFrame(bytes);
  assert.ok(r.ok);
  assert.deepEqual(r.frame, {
    kind: "audio",
    id: 2n ** 64n - 1n,
    name: "tts",
    pcm,
    sampleRate: 8000,
    numChannels: 1,
    pts,
  });
  // pts = 0 is set (optional field), so it is written and read back.
  const zero = decodePipecatFrame(
    encodeAudioFrame({ pcm, sampleRate: 8000, numChannels: 1 }, { pts: 0n }),
  );
  assert.ok(zero.ok);
  assert.equal((zero.frame as { pts?: bigint }).pts, 0n);
  assert.equal(decodeFrame(bytes).kind, "audio");
});

Deno.test("text and transcription frames decode with their fields", () => {
  // Frame{text: TextFrame{text: "hi"}} by hand: 0a 04 | 1a 02 'h' 'i'
  const hand = Uint8Array.of(0x0a, 0x04, 0x1a, 0x02, 0x68, 0x69);
  assert.deepEqual(encodeTextFrame({ text: "hi" }), hand);
  assert.deepEqual(decodePipecatFrame(hand), {
    ok: true,
    frame: { kind: "text", id: 0n, name: "", text: "hi" },
  });
  const transcription = {
    id: 7n,
    name: "stt",
    text: "my code is Z-9 ☎",
    userId: "caller",
    timestamp: "2026-01-01T00:00:00Z",
  };
  assert.deepEqual(decodePipecatFrame(encodeTranscriptionFrame(transcription)), {
    ok: true,
    frame: { kind: "transcription", ...transcription },
  });
  assert.deepEqual(decodePipecatFrame(Uint8Array.of(0x2a, 0x02, 0x08, 0x03)), {
    ok: true,
    frame: { kind: "interruption", id: 3n, name: "" },
  });
  const json = '{"label":"rtvi-ai","type":"client-ready"}';
  assert.deepEqual(decodePipecatFrame(encodeMessageFrame(json)), {
    ok: true,
    frame: { kind: "message", data: json },
  });
});

Deno.test("audio with odd byte counts, unknown rates or channel counts is a typed problem", () => {
  const pcm = pcm16(4);
  const rate = field(4, 16000);
  const mono = field(5, 1);
  assert.equal(problemOf(audioFrameOf(field(3, pcm.subarray(0, 7)), rate, mono)), "odd_length");
  // Stereo needs 4-byte sample frames.
  assert.equal(
    problemOf(audioFrameOf(field(3, pcm.subarray(0, 6)), rate, field(5, 2))),
    "odd_length",
  );
  assert.equal(problemOf(audioFrameOf(field(3, pcm), mono)), "bad_sample_rate"); // unset: 0
  assert.equal(problemOf(audioFrameOf(field(3, pcm), field(4, 12345), mono)), "bad_sample_rate");
  assert.equal(
    problemOf(audioFrameOf(field(3, pcm), field(4, 4_000_000), mono)),
    "bad_sample_rate",
  );
  assert.equal(problemOf(audioFrameOf(field(3, pcm), rate)), "bad_channels"); // unset: 0
  assert.equal(problemOf(audioFrameOf(field(3, pcm), rate, field(5, 3))), "bad_channels");
  const r = decodePipecatFrame(audioFrameOf(field(3, pcm), field(4, 12345), mono));
  assert.match((r as { problem: { message: string } }).problem.message, /12345 Hz/);
});

Deno.test("oversized audio is refused before it is copied", () => {
  const big = pcm16(MAX_AUDIO_PAYLOAD_BYTES / 2 + 1);
  const frame = audioFrameOf(field(3, big), field(4, 48000), field(5, 1));
  assert.equal(problemOf(frame), "oversized");
  assert.equal(
    problemOf(encodeAudioFrame({ pcm: pcm16(256), sampleRate: 16000, numChannels: 1 }), 511),
    "oversized",
  );
  const max = pcm16(MAX_AUDIO_PAYLOAD_BYTES / 2);
  assert.ok(
    decodePipecatFrame(encodeAudioFrame({ pcm: max, sampleRate: 48000, numChannels: 1 })).ok,
  );
});

Deno.test("malformed and truncated audio frames are problems, never exceptions", () => {
  const pcm = pcm16(64);
  // sample_rate sent length-delimited, and a sample rate beyond uint32.
  assert.equal(
    problemOf(audioFrameOf(field(3, pcm), field(4, Uint8Array.of(1)), field(5, 1))),
    "malformed",
  );
  assert.equal(
    problemOf(audioFrameOf(field(3, pcm), field(4, 2 ** 32 + 16000), field(5, 1))),
    "malformed",
  );
  // audio sent as a varint.
  assert.equal(problemOf(audioFrameOf(field(3, 5), field(4, 16000), field(5, 1))), "malformed");
  assert.equal(problemOf(new Uint8Array()), "malformed");
  assert.equal(problemOf(Uint8Array.of(0x12, 0x03, 0x1a, 0x05, 0x00)), "truncated");
  const whole = encodeAudioFrame({ pcm, sampleRate: 16000, numChannels: 1 }, { pts: 99n });
  for (let n = 0; n < whole.length; n++) {
    const r = decodePipecatFrame(whole.subarray(0, n));
    assert.equal(r.ok, false, `prefix of ${n} bytes`);
  }
  // Seeded random bytes, and random corruptions of a good frame: each one is data.
  let x = 12345;
  const next = () => (x = (x * 1103515245 + 12345) % 2 ** 31) % 256;
  for (let i = 0; i < 2000; i++) {
    const noise = Uint8Array.from({ length: 1 + (i % 40) }, next);
    const corrupt = whole.slice();
    corrupt[next() % corrupt.length] = next();
    for (const bytes of [noise, corrupt]) {
      const r = decodePipecatFrame(bytes);
      if (!r.ok) assert.ok(r.problem.message.length > 0);
    }
  }
});

Deno.test("encodeAudioFrame refuses audio the guard refuses", () => {
  assert.throws(
    () => encodeAudioFrame({ pcm: new Uint8Array(3), sampleRate: 16000, numChannels: 1 }),
    (e: unknown) => e instanceof AudioPayloadError && e.problem.code === "odd_length",
  );
  assert.throws(
    () => encodeAudioFrame({ pcm: new Uint8Array(4), sampleRate: 16001, numChannels: 1 }),
    (e: unknown) => e instanceof AudioPayloadError && e.problem.code === "bad_sample_rate",
  );
});

Deno.test("uint64 varints read back exactly on both sides of each byte-length step", () => {
  const values = [0n, 1n, 127n, 128n, 16383n, 16384n, (1n << 21n) - 1n, 1n << 21n];
  values.push((1n << 28n) - 1n, 1n << 28n, (1n << 32n) - 1n, 1n << 53n, (1n << 64n) - 1n);
  for (const v of values) {
    const bytes = encodeVarintBigInt(v);
    assert.deepEqual(readVarintBigInt(bytes, 0), { value: v, next: bytes.length }, `${v}`);
    // Cut short anywhere: truncated, never a smaller value.
    for (let cut = 0; cut < bytes.length; cut++) {
      assert.throws(
        () => readVarintBigInt(bytes.subarray(0, cut), 0),
        /truncated/,
        `${v} cut ${cut}`,
      );
    }
  }
  assert.throws(() => readVarintBigInt(new Uint8Array(10).fill(0xff), 0), /longer than 10/);
});

import assert from "node:assert/strict";
import {
  AudioPayloadError,
  type AudioResult,
  encodeBase64,
  MAX_AUDIO_PAYLOAD_BYTES,
} from "./audio_payload.ts";
import {
  botTtsAudioMessage,
  decodeBotTtsAudio,
  decodeRawAudio,
  decodeRawAudioBatch,
  DtmfDataSchema,
  parseMessage,
  rawAudioBatchMessage,
  rawAudioMessage,
  rtvi,
  SendTextDataSchema,
} from "./messages.ts";

Deno.test("rtvi() leaves out undefined id and data, as pipecat's exclude_none", () => {
  assert.equal(
    JSON.stringify(rtvi("bot-started-speaking")),
    '{"label":"rtvi-ai","type":"bot-started-speaking"}',
  );
  assert.deepEqual(rtvi("bot-ready", { version: "2.1.0" }, "x"), {
    label: "rtvi-ai",
    type: "bot-ready",
    id: "x",
    data: { version: "2.1.0" },
  });
});

Deno.test("parseMessage ignores other labels and keeps a readable id on bad envelopes", () => {
  assert.deepEqual(parseMessage('{"label":"other","type":"x"}'), { ok: true, message: undefined });
  const bad = parseMessage('{"label":"rtvi-ai","id":"r1","type":7}');
  assert.equal(bad.ok, false);
  assert.equal((bad as { id?: string }).id, "r1");
  assert.match((bad as { error: string }).error, /type/);
});

Deno.test("parseMessage names invalid JSON and non-objects", () => {
  assert.match((parseMessage("{nope") as { error: string }).error, /^invalid JSON/);
  assert.match((parseMessage("[1]") as { error: string }).error, /JSON object/);
  assert.match((parseMessage("null") as { error: string }).error, /JSON object/);
});

Deno.test("dtmf data accepts 2.1 buttons and 2.0 single buttons, and refuses other keys", () => {
  assert.equal(DtmfDataSchema.safeParse({ buttons: ["1", "#", "*"] }).success, true);
  assert.equal(DtmfDataSchema.safeParse({ button: "9" }).success, true);
  assert.equal(DtmfDataSchema.safeParse({ buttons: [] }).success, false);
  assert.equal(DtmfDataSchema.safeParse({ buttons: ["12"] }).success, false);
  assert.equal(DtmfDataSchema.safeParse({ buttons: ["x"] }).success, false);
});

Deno.test("send-text data keeps pipecat's options and our voice extension", () => {
  const parsed = SendTextDataSchema.parse({
    content: "hi",
    options: { run_immediately: false, audio_response: true },
    voice: "MACHINE",
  });
  assert.equal(parsed.voice, "MACHINE");
  assert.equal(SendTextDataSchema.safeParse({ content: 3 }).success, false);
});

// ---- audio messages ----------------------------------------------------------------

const pcmOf = (...samples: number[]) => new Uint8Array(new Int16Array(samples).buffer);
const codeOf = (r: AudioResult<unknown>) => (r.ok ? undefined : r.problem.code);

Deno.test("raw-audio carries base64 PCM16 with sampleRate and numChannels, as pipecat reads it", () => {
  const pcm = pcmOf(1, -1, 32767, -32768);
  const msg = rawAudioMessage({ pcm, sampleRate: 16000, numChannels: 1 }, "a1");
  // pipecat's RTVIProcessor reads data.base64Audio, data.sampleRate, data.numChannels.
  assert.deepEqual(msg, {
    label: "rtvi-ai",
    type: "raw-audio",
    id: "a1",
    data: { base64Audio: "AQD///9/AIA=", sampleRate: 16000, numChannels: 1 },
  });
  assert.deepEqual(decodeRawAudio(msg.data), {
    ok: true,
    value: { pcm, sampleRate: 16000, numChannels: 1 },
  });
});

Deno.test("raw-audio-batch decodes its chunks in order as one run of PCM", () => {
  const a = pcmOf(1, 2);
  const b = pcmOf(3, 4, 5, 6);
  const msg = rawAudioBatchMessage([a, b], 24000, 2);
  assert.deepEqual(Object.keys(msg.data as object), [
    "base64AudioBatch",
    "sampleRate",
    "numChannels",
  ]);
  const r = decodeRawAudioBatch(msg.data);
  assert.ok(r.ok);
  assert.deepEqual(r.value, { pcm: pcmOf(1, 2, 3, 4, 5, 6), sampleRate: 24000, numChannels: 2 });
  assert.equal(
    codeOf(decodeRawAudioBatch({ ...msg.data as object, base64AudioBatch: [] })),
    "malformed",
  );
  // A stereo chunk of one sample (2 bytes) is not a whole sample frame.
  const bad = { base64AudioBatch: ["AQACAA==", "AQA="], sampleRate: 24000, numChannels: 2 };
  const r2 = decodeRawAudioBatch(bad);
  assert.equal(codeOf(r2), "odd_length");
  assert.match((r2 as { problem: { message: string } }).problem.message, /^base64AudioBatch\.1: /);
});

Deno.test("bot-tts-audio uses snake_case audio, sample_rate, num_channels", () => {
  const pcm = pcmOf(100, -100);
  const msg = botTtsAudioMessage({ pcm, sampleRate: 24000, numChannels: 1 });
  assert.deepEqual(msg.data, { audio: "ZACc/w==", sample_rate: 24000, num_channels: 1 });
  assert.deepEqual(decodeBotTtsAudio(msg.data), {
    ok: true,
    value: { pcm, sampleRate: 24000, numChannels: 1 },
  });
  // The client's camelCase names are not bot-tts-audio's.
  assert.equal(
    codeOf(decodeBotTtsAudio({ audio: "ZACc/w==", sampleRate: 24000, numChannels: 1 })),
    "malformed",
  );
});

Deno.test("bad audio messages are typed problems: shape, base64, rate, channels, odd bytes, size", () => {
  const ok = { base64Audio: "AQACAA==", sampleRate: 16000, numChannels: 1 };
  const cases: [unknown, string][] = [
    [undefined, "malformed"],
    [{ ...ok, base64Audio: 7 }, "malformed"],
    [{ ...ok, sampleRate: "16000" }, "malformed"],
    [{ ...ok, sampleRate: 16000.5 }, "malformed"],
    [{ ...ok, base64Audio: "AQACAA" }, "bad_base64"], // unpadded
    [{ ...ok, base64Audio: "AQ AC AA==" }, "bad_base64"],
    [{ ...ok, base64Audio: "AQ-_AA==" }, "bad_base64"], // URL-safe alphabet
    [{ ...ok, base64Audio: "AQB=" }, "bad_base64"], // non-zero padding bits
    [{ ...ok, base64Audio: "AQAC" }, "odd_length"], // 3 bytes
    [{ ...ok, sampleRate: 0 }, "bad_sample_rate"],
    [{ ...ok, sampleRate: 96000 }, "bad_sample_rate"],
    [{ ...ok, numChannels: 0 }, "bad_channels"],
    [{ ...ok, numChannels: 6 }, "bad_channels"],
    [
      { ...ok, base64Audio: "A".repeat(Math.ceil(MAX_AUDIO_PAYLOAD_BYTES / 3) * 4 + 4) },
      "oversized",
    ],
  ];
  for (const [data, code] of cases) {
    assert.equal(codeOf(decodeRawAudio(data)), code, JSON.stringify(data)?.slice(0, 80));
  }
  assert.equal(decodeRawAudio({ ...ok, base64Audio: "" }).ok, true); // empty audio is no harm
});

Deno.test("a raw-audio-batch over the size cap is refused as a whole", () => {
  const chunk = encodeBase64(new Uint8Array(MAX_AUDIO_PAYLOAD_BYTES / 2));
  const data = { base64AudioBatch: [chunk, chunk, "AAAA"], sampleRate: 16000, numChannels: 1 };
  const r = decodeRawAudioBatch(data);
  assert.equal(codeOf(r), "oversized");
  assert.match((r as { problem: { message: string } }).problem.message, /^base64AudioBatch\.2: /);
  assert.throws(
    () =>
      rawAudioBatchMessage([new Uint8Array(MAX_AUDIO_PAYLOAD_BYTES), new Uint8Array(2)], 16000, 1),
    (e: unknown) => e instanceof AudioPayloadError && e.problem.code === "oversized",
  );
});

Deno.test("audio builders refuse audio the guard refuses", () => {
  assert.throws(
    () => rawAudioMessage({ pcm: new Uint8Array(3), sampleRate: 16000, numChannels: 1 }),
    (e: unknown) => e instanceof AudioPayloadError && e.problem.code === "odd_length",
  );
  assert.throws(
    () => botTtsAudioMessage({ pcm: new Uint8Array(2), sampleRate: 1, numChannels: 1 }),
    (e: unknown) => e instanceof AudioPayloadError && e.problem.code === "bad_sample_rate",
  );
  assert.throws(() => rawAudioBatchMessage([], 16000, 1), RangeError);
});

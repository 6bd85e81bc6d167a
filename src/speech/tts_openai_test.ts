import assert from "node:assert/strict";
import { pcm16, pcm16ToBytes, sine } from "../audio/pcm.ts";
import { encodeWav } from "../audio/wav.ts";
import { startFakeSpeechServer } from "./_fake_speech_server.ts";
import { OpenAiTts } from "./tts_openai.ts";

const tone = sine(24000, 440, 100);

Deno.test("OpenAiTts posts model, voice and text and reads 24 kHz PCM", async () => {
  await using fake = startFakeSpeechServer(() => new Response(pcm16ToBytes(tone)));
  const tts = new OpenAiTts({ baseUrl: fake.baseUrl, apiKey: "k", model: "m1", voice: "nova" });
  const r = await tts.synthesize({ text: " Hello there. " });
  assert.ok(r.ok, r.ok ? "" : r.error.message);
  assert.equal(r.audio.sampleRate, 24000);
  assert.deepEqual(r.audio.samples, tone);
  const req = fake.requests[0]!;
  assert.equal(req.path, "/v1/audio/speech");
  assert.equal(req.headers.get("authorization"), "Bearer k");
  assert.deepEqual(req.json, {
    model: "m1",
    voice: "nova",
    input: "Hello there.",
    response_format: "pcm",
  });
  assert.deepEqual(tts.info, { provider: "openai", model: "m1", voice: "nova" });
});

Deno.test("OpenAiTts reads WAV answers and resamples to the rate asked for", async () => {
  await using fake = startFakeSpeechServer(() =>
    new Response(encodeWav(pcm16(sine(22050, 440, 200), 22050)))
  );
  const tts = new OpenAiTts({ baseUrl: fake.baseUrl, responseFormat: "wav", sampleRate: 16000 });
  const r = await tts.synthesize({ text: "Hi", voice: "echo" });
  assert.ok(r.ok, r.ok ? "" : r.error.message);
  assert.equal(r.audio.sampleRate, 16000);
  assert.equal(r.audio.samples.length, Math.ceil((4410 * 16000) / 22050));
  assert.equal(fake.requests[0]!.json!.response_format, "wav");
  assert.equal(fake.requests[0]!.json!.voice, "echo");
});

Deno.test("OpenAiTts asks the server once for repeated text", async () => {
  await using fake = startFakeSpeechServer(() => new Response(pcm16ToBytes(tone)));
  const tts = new OpenAiTts({ baseUrl: fake.baseUrl });
  const a = await tts.synthesize({ text: "Same words." });
  const b = await tts.synthesize({ text: "Same words." });
  const c = await tts.synthesize({ text: "Same words.", voice: "onyx" });
  assert.ok(a.ok && b.ok && c.ok);
  assert.equal(b.cached, true);
  assert.equal(fake.requests.length, 2);
});

Deno.test("OpenAiTts turns HTTP errors, odd bytes, bad WAV and no audio into tts_errors", async () => {
  const answers = [
    () => Response.json({ error: { message: "quota exceeded" } }, { status: 429 }),
    () => new Response(new Uint8Array(3)),
    () => new Response(new Uint8Array(0)),
  ];
  await using fake = startFakeSpeechServer(() =>
    answers[(fake.requests.length - 1) % answers.length]!()
  );
  const tts = new OpenAiTts({ baseUrl: fake.baseUrl });
  const quota = await tts.synthesize({ text: "one" });
  assert.deepEqual(quota, {
    ok: false,
    error: {
      kind: "tts_error",
      provider: "openai",
      message: "HTTP 429: quota exceeded",
      status: 429,
    },
  });
  const odd = await tts.synthesize({ text: "two" });
  assert.ok(!odd.ok && odd.error.kind === "tts_error" && odd.error.message.includes("odd byte"));
  const none = await tts.synthesize({ text: "three" });
  assert.ok(!none.ok && none.error.message.includes("no audio"));
  // Failures are not cached: asking again asks the server again.
  const again = await tts.synthesize({ text: "one" });
  assert.ok(!again.ok && again.error.status === 429);
  assert.equal(fake.requests.length, 4);

  await using wavFake = startFakeSpeechServer(() => new Response("not a wav"));
  const wavTts = new OpenAiTts({ baseUrl: wavFake.baseUrl, responseFormat: "wav" });
  const bad = await wavTts.synthesize({ text: "x" });
  assert.ok(!bad.ok && bad.error.kind === "tts_error" && bad.error.message.includes("WAV"));
});

Deno.test("OpenAiTts reports an unreachable server and an aborted request as tts_errors", async () => {
  const closed = startFakeSpeechServer(() => new Response(""));
  const baseUrl = closed.baseUrl;
  await closed[Symbol.asyncDispose]();
  const tts = new OpenAiTts({ baseUrl });
  const r = await tts.synthesize({ text: "anyone?" });
  assert.ok(!r.ok && r.error.kind === "tts_error" && r.error.message.startsWith("Cannot reach"));
  await using fake = startFakeSpeechServer(() => new Response(pcm16ToBytes(tone)));
  const aborted = await new OpenAiTts({ baseUrl: fake.baseUrl }).synthesize({
    text: "stop",
    signal: AbortSignal.abort(),
  });
  assert.ok(!aborted.ok && aborted.error.message.includes("aborted"), JSON.stringify(aborted));
});

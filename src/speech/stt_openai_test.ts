import assert from "node:assert/strict";
import { interleave, pcm16, sine } from "../audio/pcm.ts";
import { decodeWav } from "../audio/wav.ts";
import { startFakeSpeechServer } from "./_fake_speech_server.ts";
import { OpenAiStt } from "./stt_openai.ts";

const turn = pcm16(sine(16000, 300, 250), 16000);

Deno.test("OpenAiStt posts the turn as a mono WAV with model and hints, and returns the text", async () => {
  await using fake = startFakeSpeechServer(() => Response.json({ text: " Your code is K7Q2. " }));
  const stt = new OpenAiStt({ baseUrl: fake.baseUrl, apiKey: "secret", model: "whisper-x" });
  const r = await stt.transcribe({ audio: turn, language: "en-GB", prompt: "K7Q2" });
  assert.deepEqual(r, { ok: true, text: "Your code is K7Q2." });
  const req = fake.requests[0]!;
  assert.equal(req.path, "/v1/audio/transcriptions");
  assert.equal(req.headers.get("authorization"), "Bearer secret");
  const form = req.form!;
  assert.equal(form.get("model"), "whisper-x");
  assert.equal(form.get("response_format"), "json");
  assert.equal(form.get("language"), "en", "ISO 639-1, from the call's BCP 47 en-GB");
  assert.equal(form.get("prompt"), "K7Q2");
  const file = form.get("file") as File;
  assert.equal(file.name, "audio.wav");
  const wav = decodeWav(new Uint8Array(await file.arrayBuffer()));
  assert.ok(wav.ok);
  assert.deepEqual(wav.audio, turn);
});

Deno.test("OpenAiStt sends stereo audio as mono", async () => {
  await using fake = startFakeSpeechServer(() => Response.json({ text: "ok" }));
  const stereo = pcm16(interleave(turn.samples, turn.samples), 16000, 2);
  await new OpenAiStt({ baseUrl: fake.baseUrl }).transcribe({ audio: stereo });
  const file = fake.requests[0]!.form!.get("file") as File;
  const wav = decodeWav(new Uint8Array(await file.arrayBuffer()));
  assert.ok(wav.ok && wav.audio.channels === 1);
  assert.equal(fake.requests[0]!.form!.get("language"), null);
});

Deno.test("OpenAiStt turns HTTP errors and malformed answers into stt_errors", async () => {
  const answers = [
    () => Response.json({ error: { message: "bad key" } }, { status: 401 }),
    () => new Response("<html>oops</html>"),
    () => Response.json({ transcript: "wrong field" }),
    () => new Response("Service Unavailable", { status: 503 }),
  ];
  await using fake = startFakeSpeechServer(() => answers[fake.requests.length - 1]!());
  const stt = new OpenAiStt({ baseUrl: fake.baseUrl });
  const results = [];
  for (let i = 0; i < answers.length; i++) results.push(await stt.transcribe({ audio: turn }));
  for (const r of results) {
    assert.ok(!r.ok && r.error.kind === "stt_error" && r.error.provider === "openai");
  }
  assert.deepEqual(results.map((r) => (r.ok ? undefined : r.error.status)), [
    401,
    undefined,
    undefined,
    503,
  ]);
  assert.deepEqual(results.map((r) => (r.ok ? "" : r.error.message)), [
    "HTTP 401: bad key",
    "The transcription is not JSON: <html>oops</html>",
    "The transcription has no text field",
    "HTTP 503: Service Unavailable",
  ]);
});

Deno.test("OpenAiStt reports an unreachable server as an stt_error", async () => {
  const closed = startFakeSpeechServer(() => new Response(""));
  const baseUrl = closed.baseUrl;
  await closed[Symbol.asyncDispose]();
  const r = await new OpenAiStt({ baseUrl }).transcribe({ audio: turn });
  assert.ok(!r.ok && r.error.kind === "stt_error" && r.error.message.startsWith("Cannot reach"));
});

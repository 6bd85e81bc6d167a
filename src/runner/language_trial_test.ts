import assert from "node:assert/strict";
import { registerDomain } from "../domains/registry.ts";
import { counterDomain, counterScenario } from "../testing/counter_domain.ts";
import { DataRoot } from "../scenario/data_root.ts";
import { runTrial } from "./run_trial.ts";
import { participantFactory } from "../participants/registry.ts";
import { trialKey } from "./trial_key.ts";
import { closeSpeech, defaultSpeechOptions, type SpeechOptions } from "../speech/speech_options.ts";
import { pcm16ToBytes } from "../audio/pcm.ts";
import { voicedSignal } from "../audio/_test_signals.ts";
import { startFakeSpeechServer } from "../speech/_fake_speech_server.ts";

registerDomain(counterDomain);
const root = new DataRoot(Deno.cwd());
const oracle = participantFactory({
  agent: "oracle",
  user: "scripted",
  agentModel: {},
  userModel: {},
});

async function trial(language: string, speech: SpeechOptions) {
  const s = counterScenario();
  s.user.language = language;
  return await runTrial({
    scenario: s,
    key: trialKey(s.name, 0, "c"),
    root,
    participants: oracle,
    limits: { silenceMs: 30_000, maxTurns: 200 },
    speech,
  });
}

Deno.test("audio trial in es-MX over OpenAI-compatible TTS and STT: every transcription request says language es", async () => {
  // The fake speaks every text as 24 kHz speech-like audio and hears every turn as its words.
  await using fake = startFakeSpeechServer((req) =>
    req.path.endsWith("/audio/speech")
      ? new Response(pcm16ToBytes(voicedSignal(24000, 600, 1)))
      : Response.json({ text: "Hola." })
  );
  const speech: SpeechOptions = {
    ...defaultSpeechOptions(),
    tts: { provider: "openai", base_url: fake.baseUrl },
    voices: { agent: "nova", user: "alloy" },
    stt: { provider: "openai", base_url: fake.baseUrl },
  };
  const r = await trial("es-MX", speech);
  await closeSpeech();
  assert.ok(r.status === "completed", r.error?.message);
  const stt = fake.requests.filter((q) => q.path.endsWith("/audio/transcriptions"));
  assert.ok(stt.length > 0, "the agent's audio was transcribed");
  for (const q of stt) assert.equal(q.form!.get("language"), "es");
  // Two providers, two voices, one language: nothing was spoken in another.
  assert.ok(fake.requests.some((q) => q.path.endsWith("/audio/speech")));
});

Deno.test("audio trial in es with flite: a tts_error that names the language, not English speech", async () => {
  const r = await trial("es", defaultSpeechOptions());
  await closeSpeech();
  assert.equal(r.status, "error");
  assert.match(r.error!.message, /flite speaks English only.*"es"/);
  const en = await trial("en-GB", defaultSpeechOptions());
  await closeSpeech();
  assert.equal(en.status, "completed", en.error?.message);
});

Deno.test({
  name: "audio trial in fr with the offline TTS: espeak-ng speaks it (where installed)",
  ignore: await (async () => {
    try {
      return (await new Deno.Command("espeak-ng", { args: ["--version"] }).output()).code !== 0;
    } catch {
      return true;
    }
  })(),
  async fn() {
    const r = await trial("fr", { ...defaultSpeechOptions(), tts: { provider: "offline" } });
    await closeSpeech();
    assert.equal(r.status, "completed", r.error?.message);
    assert.equal(r.audio?.tts.provider, "offline");
  },
});

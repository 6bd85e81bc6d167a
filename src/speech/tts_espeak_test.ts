import assert from "node:assert/strict";
import { EspeakTts, readWav, voiceFor } from "./tts_espeak.ts";
import { isEnglish, TtsByLanguage } from "./tts_by_language.ts";
import type { TtsProvider, TtsRequest } from "./speech.ts";
import { pcm16 } from "../audio/pcm.ts";

/** Whether espeak-ng runs here (the Debian package is optional). */
async function espeakInstalled(): Promise<boolean> {
  try {
    return (await new Deno.Command("espeak-ng", { args: ["--version"] }).output()).code === 0;
  } catch {
    return false;
  }
}
const installed = await espeakInstalled();

Deno.test({
  name:
    "espeak-ng speaks French as 16 kHz PCM, trimmed; fr-CA gets the French voice; a language it lacks is a tts_error",
  ignore: !installed,
  async fn() {
    const tts = new EspeakTts({ sampleRate: 16000 });
    const fr = await tts.synthesize({
      text: "Bonjour, je suis bloqué hors de mon compte.",
      language: "fr-CA",
    });
    assert.ok(fr.ok, fr.ok ? "" : fr.error.message);
    assert.equal(fr.audio.sampleRate, 16000);
    // About two seconds of speech: neither empty nor padded with silence.
    const seconds = fr.audio.samples.length / 16000;
    assert.ok(seconds > 1 && seconds < 6, `${seconds} s`);
    assert.ok(Math.abs(fr.audio.samples[0]!) < 2000);
    const xx = await tts.synthesize({ text: "hello", language: "xx-YY" });
    assert.equal(xx.ok, false);
    assert.match(xx.ok ? "" : xx.error.message, /no voice for the call's language "xx-YY"/);
    await tts.close();
  },
});

Deno.test("without espeak-ng a call in its language is a tts_error that says so", async () => {
  const tts = new EspeakTts({ binary: "/nonexistent/espeak-ng" });
  const r = await tts.synthesize({ text: "Hallo", language: "de" });
  assert.equal(r.ok, false);
  assert.equal(r.ok ? "" : r.error.kind, "tts_error");
  assert.match(r.ok ? "" : r.error.message, /espeak-ng is not installed.*no engine speaks "de"/);
});

Deno.test("espeak voices: the exact tag, then xx-xx, then the primary language", () => {
  const voices = new Set(["fr-fr", "fr-be", "es", "es-419", "hi", "en-us"]);
  assert.equal(voiceFor("fr-CA", voices), "fr-fr");
  assert.equal(voiceFor("fr-BE", voices), "fr-be");
  assert.equal(voiceFor("es-419", voices), "es-419");
  assert.equal(voiceFor("es-MX", voices), "es");
  assert.equal(voiceFor("ko", voices), undefined);
});

Deno.test("a WAV as espeak-ng writes it to a pipe (data size unknown) reads to the end", () => {
  const samples = [0, 1000, -1000, 32767, -32768];
  const bytes = new Uint8Array(44 + samples.length * 2);
  const v = new DataView(bytes.buffer);
  const put = (at: number, s: string) =>
    [...s].forEach((c, i) => (bytes[at + i] = c.charCodeAt(0)));
  put(0, "RIFF");
  v.setUint32(4, 0x7ffff024, true);
  put(8, "WAVE");
  put(12, "fmt ");
  v.setUint32(16, 16, true);
  v.setUint16(20, 1, true);
  v.setUint16(22, 1, true);
  v.setUint32(24, 22050, true);
  v.setUint32(28, 44100, true);
  v.setUint16(32, 2, true);
  v.setUint16(34, 16, true);
  put(36, "data");
  v.setUint32(40, 0x7ffff000, true);
  samples.forEach((s, i) => v.setInt16(44 + 2 * i, s, true));
  const wav = readWav(bytes);
  assert.ok(typeof wav !== "string", String(wav));
  assert.equal(wav.sampleRate, 22050);
  assert.deepEqual([...wav.samples], samples);
  assert.match(String(readWav(new Uint8Array(4))), /no WAV/);
});

Deno.test("the offline TTS sends English to flite and every other language to espeak-ng", async () => {
  const asked: string[] = [];
  const fake = (name: string): TtsProvider => ({
    info: { provider: name, voice: "v", sampleRate: 16000 },
    synthesize: (r: TtsRequest) => {
      asked.push(`${name}:${r.language ?? "-"}`);
      return Promise.resolve({ ok: true, audio: pcm16(new Int16Array(1), 16000) });
    },
    close: () => Promise.resolve(),
  });
  const tts = new TtsByLanguage([
    { speaks: isEnglish, provider: fake("flite") },
    { speaks: () => true, provider: fake("espeak") },
  ], { provider: "offline", voice: "v", sampleRate: 16000 });
  for (const language of [undefined, "en-GB", "fr", "hi", "ko"]) {
    await tts.synthesize({ text: "x", ...(language ? { language } : {}) });
  }
  assert.deepEqual(asked, ["flite:-", "flite:en-GB", "espeak:fr", "espeak:hi", "espeak:ko"]);
});

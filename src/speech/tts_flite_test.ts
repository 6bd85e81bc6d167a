import assert from "node:assert/strict";
import { durationMs } from "../audio/pcm.ts";
import { FLITE_VOICES, FliteTts } from "./tts_flite.ts";
import { TtsCache } from "./tts_cache.ts";

const TEXT = "Your confirmation code is K 7 Q 2. Is there anything else I can help with?";

Deno.test("FliteTts speaks every voice at its rate in a Worker", async () => {
  const tts = new FliteTts();
  try {
    for (const voice of Object.keys(FLITE_VOICES) as (keyof typeof FLITE_VOICES)[]) {
      const r = await tts.synthesize({ text: TEXT, voice });
      assert.ok(r.ok, r.ok ? "" : r.error.message);
      assert.equal(r.audio.sampleRate, FLITE_VOICES[voice]);
      const ms = durationMs(r.audio);
      assert.ok(ms > 2500 && ms < 9000, `${voice}: ${ms} ms`);
      // Not silence: speech has energy.
      assert.ok(r.audio.samples.some((s) => Math.abs(s) > 3000), voice);
    }
    const s = tts.stats;
    assert.equal(s.synthesized, 5);
    console.log(
      `flite RTF ${(s.synthMs / s.audioMs).toFixed(4)} (${s.synthMs.toFixed(0)} ms for ${
        (s.audioMs / 1000).toFixed(1)
      } s of audio)`,
    );
  } finally {
    await tts.close();
  }
});

Deno.test("FliteTts synthesizes repeated text once, concurrent requests included", async () => {
  const cache = new TtsCache();
  const tts = new FliteTts({ cache });
  try {
    const [a, b] = await Promise.all([
      tts.synthesize({ text: "Hello there." }),
      tts.synthesize({ text: "  Hello there. " }),
    ]);
    const c = await tts.synthesize({ text: "Hello there." });
    const d = await tts.synthesize({ text: "Hello there.", voice: "kal" });
    assert.ok(a.ok && b.ok && c.ok && d.ok);
    assert.equal(c.cached, true);
    assert.deepEqual(c.audio.samples, a.audio.samples);
    assert.equal(tts.stats.synthesized, 2);
    assert.deepEqual(cache.stats.misses, 2);
    assert.deepEqual(cache.stats.hits, 2);
  } finally {
    await tts.close();
  }
});

Deno.test("FliteTts resamples to the rate it was asked for", async () => {
  const tts = new FliteTts({ voice: "kal", sampleRate: 24000 });
  try {
    const r = await tts.synthesize({ text: "One two three." });
    assert.ok(r.ok);
    assert.equal(r.audio.sampleRate, 24000);
    assert.equal(tts.info.sampleRate, 24000);
  } finally {
    await tts.close();
  }
});

Deno.test("FliteTts answers an unknown voice or an aborted request with a tts_error", async () => {
  const tts = new FliteTts();
  try {
    const r = await tts.synthesize({ text: "Hi", voice: "nobody" });
    assert.ok(!r.ok);
    assert.equal(r.error.kind, "tts_error");
    assert.equal(r.error.provider, "flite");
    const aborted = await tts.synthesize({ text: "Hi", signal: AbortSignal.abort() });
    assert.ok(!aborted.ok && aborted.error.kind === "tts_error");
    const empty = await tts.synthesize({ text: "   " });
    assert.ok(empty.ok && empty.audio.samples.length === 0);
  } finally {
    await tts.close();
  }
});

Deno.test("FliteTts speaks English (en, en-GB) and answers another language with a tts_error naming it, never English speech", async () => {
  const tts = new FliteTts();
  try {
    for (const language of ["en", "en-GB", "EN-us"]) {
      const r = await tts.synthesize({ text: "Hi there.", language });
      assert.ok(r.ok && r.audio.samples.length > 0, language);
    }
    for (const language of ["es", "es-MX", "fr-CA"]) {
      const r = await tts.synthesize({ text: "Hola.", language });
      assert.ok(!r.ok, language);
      assert.equal(r.error.kind, "tts_error");
      assert.match(r.error.message, new RegExp(`English only.*"${language}"`));
    }
    assert.equal(
      tts.stats.synthesized,
      1,
      "one English text, synthesized once; none of the others",
    );
  } finally {
    await tts.close();
  }
});

Deno.test("FliteTts answers a temp dir it cannot write with a tts_error", async () => {
  const tts = new FliteTts({ tempDir: "./definitely/not/here" });
  const r = await tts.synthesize({ text: "Hello." });
  await tts.close();
  assert.ok(!r.ok && r.error.kind === "tts_error", r.ok ? "" : r.error.message);
});

Deno.test("the flite Worker runs with read access to the project and its temp dir, no env or net", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const script = new URL("./_flite_permissions_probe.ts", import.meta.url);
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--no-prompt",
        `--allow-read=.,${dir}`,
        `--allow-write=${dir}`,
        script.pathname,
        dir,
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stdout = new TextDecoder().decode(out.stdout);
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, stderr);
    assert.match(stdout, /^ok 16000 \d+/);
    assert.doesNotMatch(stderr, /ExperimentalWarning/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("FliteTts speaks a voice at another rate and pitch: rate=1.25 is a fifth shorter, and each is its own cache entry", async () => {
  const tts = new FliteTts();
  try {
    const plain = await tts.synthesize({ text: TEXT, voice: "slt" });
    const fast = await tts.synthesize({ text: TEXT, voice: "slt:rate=1.25" });
    const high = await tts.synthesize({ text: TEXT, voice: "slt:pitch=220" });
    assert.ok(plain.ok && fast.ok && high.ok);
    const ratio = durationMs(fast.audio) / durationMs(plain.audio);
    assert.ok(Math.abs(ratio - 0.8) < 0.05, `duration ratio ${ratio.toFixed(3)}`);
    assert.notDeepEqual(high.audio.samples, plain.audio.samples);
    assert.equal(tts.stats.synthesized, 3);
    const bad = await tts.synthesize({ text: TEXT, voice: "slt:rate=9" });
    assert.ok(!bad.ok);
  } finally {
    await tts.close();
  }
});

import assert from "node:assert/strict";
import { pcm16ToBytes } from "../audio/pcm.ts";
import { voicedSignal } from "../audio/_test_signals.ts";
import { BUNDLED_DATA_ROOT, DataRoot } from "../scenario/data_root.ts";
import { selectScenarios } from "../scenario/suites.ts";
import { participantFactory, type ParticipantOptions } from "../participants/registry.ts";
import { startFakeSpeechServer } from "../speech/_fake_speech_server.ts";
import { defaultSpeechOptions } from "../speech/speech_options.ts";
import { TtsCache } from "../speech/tts_cache.ts";
import type { TtsResult } from "../speech/speech.ts";
import { pcm16 } from "../audio/pcm.ts";
import { runTrials } from "./runner.ts";
import type { TrialRecord } from "./trial_record.ts";
import { PortTtsStore, SharedTtsBoard, type TtsFromPool } from "./shared_tts.ts";

/** A board and two Workers' stores wired to it in-process (messages as on the ports). */
function wired() {
  const stores: PortTtsStore[] = [];
  const board = new SharedTtsBoard((n, answer: TtsFromPool) => stores[n]!.answer(answer));
  for (let n = 0; n < 2; n++) stores.push(new PortTtsStore((m) => board.receive(n, m)));
  return { board, stores };
}

const audio = (n: number) => pcm16(Int16Array.from({ length: n }, (_, i) => i), 16000);

Deno.test("shared TTS: the first Worker to miss makes the utterance; the other waits and is given it", async () => {
  const { board, stores } = wired();
  const made: number[] = [];
  let finish!: (r: TtsResult) => void;
  const caches = stores.map((s) => new TtsCache(undefined, s));
  const make = (n: number) => () => {
    made.push(n);
    return new Promise<TtsResult>((r) => finish = r);
  };
  const a = caches[0]!.get("k", make(0));
  await Promise.resolve();
  const b = caches[1]!.get("k", make(1));
  await new Promise((r) => setTimeout(r, 0));
  assert.deepEqual(made, [0], "only the first Worker synthesizes");
  assert.equal(board.stats.making, 1);
  finish({ ok: true, audio: audio(5) });
  const [ra, rb] = await Promise.all([a, b]);
  assert.ok(ra.ok && rb.ok);
  assert.deepEqual(rb.audio.samples, audio(5).samples);
  assert.equal(rb.cached, true, "the other Worker's copy counts as cached");
  assert.deepEqual(board.stats, { entries: 1, bytes: 10, making: 0 });
  // A Worker that asks later is given it at once, and makes nothing.
  const c = await new TtsCache(undefined, stores[1]!).get("k", make(2));
  assert.ok(c.ok && c.cached);
  assert.deepEqual(made, [0]);
});

Deno.test("shared TTS: a failed making, or a Worker that breaks while making, hands it to the next one waiting", async () => {
  const { board, stores } = wired();
  const [s0, s1] = stores as [PortTtsStore, PortTtsStore];
  // Worker 0 makes "k" and fails: Worker 1, waiting, is told to make it.
  assert.equal(await s0.lookup("k"), "make");
  const waiting = s1.lookup("k");
  s0.put("k", undefined);
  assert.equal(await waiting, "make");
  assert.equal(board.stats.entries, 0, "a failure is not kept");
  // Worker 1 breaks while making "j": Worker 0, waiting, makes it.
  assert.equal(await s1.lookup("j"), "make");
  const next = s0.lookup("j");
  board.release(1);
  assert.equal(await next, "make");
  // What the broken Worker puts afterwards is not taken (Worker 0 makes it now).
  s1.put("j", audio(3));
  assert.equal(board.stats.entries, 0);
  s0.put("j", audio(4));
  assert.equal(board.stats.entries, 1);
});

Deno.test("shared TTS: entries past the bound go oldest-used first", async () => {
  const stores: PortTtsStore[] = [];
  const board = new SharedTtsBoard((n, a) => stores[n]!.answer(a), 20);
  stores.push(new PortTtsStore((m) => board.receive(0, m)));
  const s = stores[0]!;
  for (const k of ["a", "b"]) {
    assert.equal(await s.lookup(k), "make");
    s.put(k, audio(5));
  }
  assert.notEqual(await s.lookup("a"), "make", "a used again: b is now the oldest");
  assert.equal(await s.lookup("c"), "make");
  s.put("c", audio(5));
  assert.deepEqual(board.stats, { entries: 2, bytes: 20, making: 0 });
  assert.equal(await s.lookup("b"), "make", "b went");
});

Deno.test("shared TTS: eval --workers 2 of 4 trials asks an OpenAI-compatible TTS once per utterance, as one thread does", async () => {
  await using fake = startFakeSpeechServer(() =>
    new Response(pcm16ToBytes(voicedSignal(24000, 400, 1)))
  );
  const root = new DataRoot(BUNDLED_DATA_ROOT);
  const { scenarios } = await selectScenarios(root, { domains: ["eva_airline"] });
  const oracle: ParticipantOptions = {
    agent: "oracle",
    user: "scripted",
    agentModel: {},
    userModel: {},
  };
  const speech = {
    ...defaultSpeechOptions(),
    tts: { provider: "openai" as const, base_url: fake.baseUrl },
    voices: { agent: "nova", user: "alloy" },
  };
  const asked = () => fake.requests.map((q) => `${q.json!.voice}|${q.json!.input}`);
  const run = async (workers: number) => {
    const records: TrialRecord[] = [];
    await runTrials({
      scenarios,
      root,
      participants: participantFactory(oracle),
      configHash: "cfg",
      trials: 4,
      concurrency: 4,
      limits: { silenceMs: 30_000, maxTurns: 200 },
      speech,
      onRecord: (r) => void records.push(r),
      ...(workers > 1 ? { workers: { count: workers, participants: oracle } } : {}),
    });
    assert.ok(records.every((r) => r.status === "completed"), JSON.stringify(records[0]?.error));
    return records.length;
  };
  assert.equal(await run(2), 4 * scenarios.length);
  const pooled = asked();
  assert.equal(new Set(pooled).size, pooled.length, "no utterance was asked for twice");
  assert.ok(pooled.length > 0);
  // The same utterances as an in-process run asks for (a fresh thread's cache).
  fake.requests.length = 0;
  const { closeSpeech } = await import("../speech/speech_options.ts");
  await closeSpeech();
  await run(1);
  await closeSpeech();
  assert.deepEqual(new Set(asked()), new Set(pooled));
});

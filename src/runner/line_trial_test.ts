import assert from "node:assert/strict";
import { NOMINAL_SPEECH_DBFS } from "../audio/line/line.ts";
import { join } from "node:path";
import { registerDomain } from "../domains/registry.ts";
import { counterDomain, counterScenario } from "../testing/counter_domain.ts";
import { DataRoot } from "../scenario/data_root.ts";
import { runTrial } from "./run_trial.ts";
import { participantFactory } from "../participants/registry.ts";
import { trialKey } from "./trial_key.ts";
import { TrialRecordSchema } from "./trial_record.ts";
import {
  closeSpeech,
  defaultSpeechOptions,
  speechConfig,
  type SpeechOptions,
} from "../speech/speech_options.ts";
import { decodeWav } from "../audio/wav.ts";
import { activePower } from "../audio/line/line.ts";

registerDomain(counterDomain);
const root = new DataRoot(Deno.cwd());
const oracle = participantFactory({
  agent: "oracle",
  user: "scripted",
  agentModel: {},
  userModel: {},
});
const limits = { silenceMs: 30_000, maxTurns: 200 };

function withLine(preset: string | undefined, both = false): SpeechOptions {
  return { ...defaultSpeechOptions(), ...(preset ? { line: { preset, text: preset, both } } : {}) };
}

async function trial(speech: SpeechOptions, out?: string, trialNo = 0) {
  const s = counterScenario();
  return await runTrial({
    scenario: s,
    key: trialKey(s.name, trialNo, "c"),
    root,
    participants: oracle,
    limits,
    speech,
    ...(out ? { audioDir: join(out, "audio") } : {}),
  });
}

Deno.test("audio trial on a phone line: the record has the line, success is unchanged, the WAV's caller channel is what the agent heard", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const preset = "street@10+phone+loss@0.03/2/silence";
    const clean = await trial(defaultSpeechOptions(), dir);
    const r = await trial(withLine(preset), dir, 1);
    TrialRecordSchema.parse(r);
    assert.equal(r.status, "completed", r.error?.message);
    assert.equal(r.final.db_sha256, counterScenario().expect.db_sha256);
    assert.equal(clean.audio!.line, undefined, "no line given is no line");
    const line = r.audio!.line!;
    assert.equal(line.preset, preset);
    assert.equal(line.text, preset);
    assert.equal(line.both, false);
    const callerTurns = r.turns.filter((t) => t.speaker === "user").length;
    assert.equal(line.snr_db.length, callerTurns);
    for (const snr of line.snr_db) assert.ok(snr !== null && Math.abs(snr - 10) < 0.5, String(snr));
    assert.equal(line.frames_total, Math.ceil(r.duration_ms / 20));
    assert.ok(
      line.frames_lost > 0 && line.frames_lost < line.frames_total * 0.1,
      JSON.stringify(line),
    );
    // The caller's channel: noise through the silences (never digital silence over a
    // second), and band-limited speech.
    const wav = decodeWav(await Deno.readFile(join(dir, r.audio!.wav!)));
    assert.ok(wav.ok);
    const left = Int16Array.from(
      { length: wav.audio.samples.length / 2 },
      (_, i) => wav.audio.samples[2 * i]!,
    );
    const cleanWav = decodeWav(await Deno.readFile(join(dir, clean.audio!.wav!)));
    assert.ok(cleanWav.ok);
    const cleanLeft = Int16Array.from(
      { length: cleanWav.audio.samples.length / 2 },
      (_, i) => cleanWav.audio.samples[2 * i]!,
    );
    const quiet = (x: Int16Array) => {
      let run = 0;
      let longest = 0;
      for (const v of x) {
        run = v === 0 ? run + 1 : 0;
        longest = Math.max(longest, run);
      }
      return longest;
    };
    assert.ok(quiet(cleanLeft) > 16000, "the clean caller channel is silent between turns");
    // A lost frame is 20 ms of silence; bursts are a few frames.
    assert.ok(quiet(left) < 16000 * 0.5, `longest digital silence: ${quiet(left)} samples`);
    // The first agent turn (before the caller speaks) has the line's noise on the caller channel.
    const firstUser = r.turns.find((t) => t.speaker === "user")!;
    const before = left.subarray(0, Math.floor((firstUser.start_ms * 16000) / 1000));
    const level = 10 * Math.log10(activePower(before, 16000) / (32768 * 32768));
    // Street noise is mostly below 800 Hz, and the phone's band starts at 300 Hz: far
    // under the −36 dBFS it has in the caller's room (−26 dBFS speech, 10 dB SNR), but there.
    assert.ok(
      level > -60 && level < -36,
      `noise before the caller speaks: ${level.toFixed(1)} dBFS`,
    );
  } finally {
    await closeSpeech();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the same trial on the same line gives the same bytes; another trial other noise", async () => {
  const dir = [await Deno.makeTempDir(), await Deno.makeTempDir()];
  try {
    const speech = withLine("babble@5+loss@0.05/2/repeat");
    const a = await trial(speech, dir[0]);
    const b = await trial(speech, dir[1]);
    assert.deepEqual(a.audio!.line, b.audio!.line);
    const wa = await Deno.readFile(join(dir[0]!, a.audio!.wav!));
    const wb = await Deno.readFile(join(dir[1]!, b.audio!.wav!));
    assert.deepEqual(wa, wb);
    const c = await trial(speech, dir[0], 1);
    assert.notDeepEqual(await Deno.readFile(join(dir[0]!, c.audio!.wav!)), wa);
  } finally {
    await closeSpeech();
    for (const d of dir) await Deno.remove(d, { recursive: true });
  }
});

Deno.test("the line is part of the configuration: every line its own hash, a clean one given too (it sets the caller's level)", () => {
  const h = (o: SpeechOptions) => JSON.stringify(speechConfig(o));
  assert.notEqual(h(withLine("clean")), h(defaultSpeechOptions()));
  assert.notEqual(h(withLine("phone")), h(defaultSpeechOptions()));
  assert.notEqual(h(withLine("phone")), h(withLine("phone", true)));
  assert.notEqual(h(withLine("phone")), h(withLine("street@10")));
});

Deno.test("a scenario's user.line applies when no line is given; the given one overrides it", async () => {
  const s = counterScenario();
  const scenario = { ...s, user: { ...s.user, line: "white@15" } };
  try {
    const own = await runTrial({
      scenario,
      key: trialKey(s.name, 0, "c"),
      root,
      participants: oracle,
      limits,
      speech: defaultSpeechOptions(),
    });
    assert.equal(own.audio!.line!.preset, "white@15");
    const over = await runTrial({
      scenario,
      key: trialKey(s.name, 0, "c"),
      root,
      participants: oracle,
      limits,
      speech: withLine("car"),
    });
    assert.equal(over.audio!.line!.preset, "car");
  } finally {
    await closeSpeech();
  }
});

Deno.test("audio trial: a scenario's user.voice is the caller's voice, over --voices spreading, and the record says who chose it", async () => {
  const s = counterScenario();
  s.user.voice = { name: "awb", rate: 1.2 };
  const run = async (scenario: typeof s, speech: SpeechOptions) =>
    await runTrial({
      scenario,
      key: trialKey(scenario.name, 0, "c"),
      root,
      participants: oracle,
      limits,
      speech,
    });
  const spread = { ...defaultSpeechOptions(), voice_spread: 4 };
  const r = await run(s, spread);
  assert.equal(r.status, "completed", r.error?.message);
  assert.equal(r.audio!.tts.voices.user, "awb:rate=1.2");
  assert.equal(r.audio!.tts.user_voice_from, "scenario");
  const plain = await run(counterScenario(), spread);
  assert.equal(plain.audio!.tts.user_voice_from, "spread");
  // A faster voice says the same words in less time.
  const said = (x: typeof r) =>
    x.turns.filter((t) => t.speaker === "user").reduce((a, t) => a + t.end_ms - t.start_ms, 0);
  const slt = await run(counterScenario(), defaultSpeechOptions());
  assert.equal(slt.audio!.tts.user_voice_from, "run");
  s.user.voice = { name: "slt", rate: 1.5 };
  const fast = await run(s, defaultSpeechOptions());
  assert.ok(said(fast) < 0.8 * said(slt), `${said(fast)} vs ${said(slt)} ms`);
  await closeSpeech();
});

Deno.test("--line clean and --line white@10 give the caller's speech the same active level within 1 dB, measured in audio.line (issue 29 point 3)", async () => {
  const levels: Record<string, number[]> = {};
  for (const preset of ["clean", "white@10", "volume@-6"]) {
    const r = await trial(withLine(preset));
    assert.equal(r.status, "completed", r.error?.message);
    const line = r.audio!.line!;
    assert.equal(line.preset, preset);
    const callerTurns = r.turns.filter((t) => t.speaker === "user").length;
    assert.equal(line.speech_dbfs!.length, callerTurns, JSON.stringify(line));
    levels[preset] = line.speech_dbfs!.map((x) => x!);
  }
  levels.clean!.forEach((c, i) => {
    assert.ok(Math.abs(c - NOMINAL_SPEECH_DBFS) < 0.5, `clean: ${c} dBFS`);
    const n = levels["white@10"]![i]!;
    assert.ok(Math.abs(n - c) <= 1, `utterance ${i + 1}: white@10 ${n} dBFS, clean ${c}`);
    const q = levels["volume@-6"]![i]!;
    assert.ok(Math.abs(q - c + 6) < 0.5, `utterance ${i + 1}: volume@-6 ${q} dBFS, clean ${c}`);
  });
});

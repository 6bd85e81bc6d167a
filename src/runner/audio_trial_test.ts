import assert from "node:assert/strict";
import { join } from "node:path";
import { registerDomain } from "../domains/registry.ts";
import { counterDomain, counterScenario } from "../testing/counter_domain.ts";
import { DataRoot } from "../scenario/data_root.ts";
import { runTrial } from "./run_trial.ts";
import { runTrials } from "./runner.ts";
import { participantFactory } from "../participants/registry.ts";
import { trialKey } from "./trial_key.ts";
import { type TrialRecord, TrialRecordSchema } from "./trial_record.ts";
import { closeSpeech, defaultSpeechOptions } from "../speech/speech_options.ts";
import { decodeWav } from "../audio/wav.ts";

registerDomain(counterDomain);
const root = new DataRoot(Deno.cwd());
const oracle = participantFactory({
  agent: "oracle",
  user: "scripted",
  agentModel: {},
  userModel: {},
});
const limits = { silenceMs: 30_000, maxTurns: 200 };

/** One oracle audio trial of `counterScenario()` into `out`; its records go to `records`. */
function audioRun(out: string, records: TrialRecord[]) {
  return runTrials({
    scenarios: [counterScenario()],
    root,
    participants: oracle,
    configHash: "cfg",
    trials: 1,
    concurrency: 1,
    out,
    limits,
    speech: defaultSpeechOptions(),
    onRecord: (r) => void records.push(r),
  });
}

Deno.test("audio trial: the oracle reaches the gold state on flite audio, and the record measures it", async () => {
  const s = counterScenario();
  const speech = defaultSpeechOptions();
  try {
    const text = await runTrial({
      scenario: s,
      key: trialKey(s.name, 0, "c"),
      root,
      participants: oracle,
      limits,
    });
    const r = await runTrial({
      scenario: s,
      key: trialKey(s.name, 0, "c"),
      root,
      participants: oracle,
      limits,
      speech,
    });
    TrialRecordSchema.parse(r);
    assert.equal(r.status, "completed", r.error?.message);
    assert.equal(r.clock, "simulated");
    assert.equal(r.final.db_sha256, s.expect.db_sha256);
    assert.equal(r.final.db_sha256, text.final.db_sha256);
    assert.deepEqual(r.turns.map((t) => t.text), text.turns.map((t) => t.text));
    const a = r.audio!;
    assert.equal(a.tts.provider, "flite");
    assert.deepEqual(a.tts.voices, { agent: "rms", user: "slt" });
    assert.equal(a.stt, "transcript");
    // Seconds sent by one side are those the other received; both spoke.
    assert.ok(a.sides.agent.sent_s > 1 && a.sides.user.sent_s > 0.5, JSON.stringify(a.sides));
    assert.equal(a.sides.agent.sent_s, a.sides.user.received_s);
    // The first agent turn starts the call: flite's lead-in silence is trimmed, so its
    // speech starts at the connection.
    assert.equal(a.ttfa_ms, 0);
    assert.ok(a.turns.length >= 1);
    for (const t of a.turns) {
      assert.equal(r.turns[t.turn]!.speaker, "agent");
      // On the simulated clock the oracle answers at once, and flite's audio has no
      // leading or trailing silence left: voice to voice is 0, as is the reference's
      // live latency; its segment latency adds 0.3 s.
      assert.equal(t.ref_frame_ms, 0);
      assert.equal(t.ref_segment_ms, 300);
      assert.equal(t.v2v_ms, 0);
    }
    assert.equal(a.talk_over_ms, 0);
    assert.deepEqual(a.barge_ins, []);
  } finally {
    await closeSpeech();
  }
});

Deno.test("audio run with --out: a stereo WAV per trial; one that cannot be written is reported, the run goes on", async () => {
  const dir = await Deno.makeTempDir();
  const dir2 = await Deno.makeTempDir();
  try {
    const records: TrialRecord[] = [];
    await audioRun(dir, records);
    const wav = records[0]!.audio!.wav!;
    assert.match(wav, /^audio\/.*\.wav$/);
    const decoded = decodeWav(await Deno.readFile(join(dir, wav)));
    assert.ok(decoded.ok);
    assert.equal(decoded.audio.channels, 2);
    assert.equal(decoded.audio.sampleRate, 16000);
    // Left (user) and right (agent) both carry sound.
    const samples = decoded.audio.samples;
    let left = 0, right = 0;
    for (let i = 0; i < samples.length; i += 2) {
      left = Math.max(left, Math.abs(samples[i]!));
      right = Math.max(right, Math.abs(samples[i + 1]!));
    }
    assert.ok(left > 1000 && right > 1000);
    // audio/ is a file: the recording fails, the trial is still recorded.
    await Deno.writeTextFile(join(dir2, "audio"), "not a folder");
    const again: TrialRecord[] = [];
    await audioRun(dir2, again);
    assert.equal(again[0]!.status, "completed");
    assert.equal(again[0]!.audio!.wav, undefined);
    assert.match(again[0]!.audio!.wav_error!, /audio/);
  } finally {
    await closeSpeech();
    await Deno.remove(dir, { recursive: true });
    await Deno.remove(dir2, { recursive: true });
  }
});

Deno.test("audio trial with barge-in: the caller cuts in, the oracle yields and says it again, gold still reached", async () => {
  const s = counterScenario();
  const bargeing = participantFactory({
    agent: "oracle",
    user: "scripted",
    agentModel: {},
    userModel: {},
    bargeIn: 1,
  });
  try {
    const r = await runTrial({
      scenario: s,
      key: trialKey(s.name, 0, "c"),
      root,
      participants: bargeing,
      limits,
      speech: { ...defaultSpeechOptions(), barge_in: 1 },
    });
    assert.equal(r.status, "completed", r.error?.message);
    assert.equal(r.final.db_sha256, s.expect.db_sha256);
    const b = r.audio!.barge_ins;
    assert.ok(b.length >= 1, JSON.stringify(r.turns));
    for (const x of b) {
      assert.equal(r.turns[x.agent_turn]!.speaker, "agent");
      assert.equal(x.yielded, true);
      assert.ok(x.yield_ms >= 0 && x.yield_ms < 200, String(x.yield_ms));
    }
    assert.ok(r.turns.some((t) => t.speaker === "agent" && t.interrupted));
    assert.ok(r.audio!.talk_over_ms < 300, String(r.audio!.talk_over_ms));
  } finally {
    await closeSpeech();
  }
});

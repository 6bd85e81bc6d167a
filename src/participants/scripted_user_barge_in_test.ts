/**
 * Barge-in when the scenario asks (`user.barge_in`): in an audio call on the simulated
 * clock the scripted caller cuts in on the agent's Nth utterance M ms into it, the
 * oracle yields and says it again, and the record's barge-in entry shows it with the
 * agent's yield time. Text calls ignore the field.
 */
import assert from "node:assert/strict";
import { registerDomain } from "../domains/registry.ts";
import { counterDomain, counterScenario } from "../testing/counter_domain.ts";
import { DataRoot } from "../scenario/data_root.ts";
import { runTrial } from "../runner/run_trial.ts";
import { participantFactory } from "./registry.ts";
import { trialKey } from "../runner/trial_key.ts";
import { TrialRecordSchema } from "../runner/trial_record.ts";
import { closeSpeech, defaultSpeechOptions } from "../speech/speech_options.ts";
import { ScenarioSchema } from "../scenario/scenario.ts";
import { BARGE_IN_TEXT } from "./scripted_user.ts";
import type { BargeIn } from "../scenario/scenario.ts";

registerDomain(counterDomain);
const root = new DataRoot(Deno.cwd());
const limits = { silenceMs: 30_000, maxTurns: 200 };

function scenario(bargeIn?: BargeIn[]) {
  const s = counterScenario();
  if (bargeIn) s.user.barge_in = bargeIn;
  return s;
}

function run(s: ReturnType<typeof scenario>, audio: boolean) {
  return runTrial({
    scenario: s,
    key: trialKey(s.name, 0, "c"),
    root,
    participants: participantFactory({
      agent: "oracle",
      user: "scripted",
      agentModel: {},
      userModel: {},
      ...(audio ? { audio: true } : {}),
    }),
    limits,
    ...(audio ? { speech: defaultSpeechOptions() } : {}),
  });
}

Deno.test("user.barge_in: the caller cuts in on the agent's 2nd utterance 600 ms in; the record shows it with the yield", async () => {
  try {
    const s = scenario([{ agent_utterance: 2, at_ms: 600 }]);
    const r = await run(s, true);
    TrialRecordSchema.parse(r);
    assert.equal(r.status, "completed", r.error?.message);
    assert.equal(r.clock, "simulated");
    assert.equal(r.final.db_sha256, s.expect.db_sha256, "the gold state is still reached");
    const agentTurns = r.turns.flatMap((t, i) => (t.speaker === "agent" ? [i] : []));
    const second = agentTurns[1]!;
    const cut = r.turns[second]!;
    assert.equal(cut.interrupted, true, JSON.stringify(r.turns));
    const caller = r.turns[second + 1]!;
    assert.equal(caller.speaker, "user");
    assert.equal(caller.text, BARGE_IN_TEXT);
    // Exactly at_ms into the utterance, on the simulated clock.
    assert.equal(caller.start_ms, cut.start_ms + 600);
    // The oracle yields at once and says it again whole.
    assert.equal(cut.end_ms, caller.start_ms);
    assert.equal(r.turns[second + 2]!.speaker, "agent");
    assert.equal(r.turns[second + 2]!.interrupted, undefined);
    const b = r.audio!.barge_ins;
    assert.equal(b.length, 1, JSON.stringify(b));
    assert.equal(b[0]!.agent_turn, second);
    assert.equal(b[0]!.yielded, true);
    // at_ms is the caller's first voiced audio: just after its utterance began.
    assert.ok(
      b[0]!.at_ms >= caller.start_ms && b[0]!.at_ms < caller.start_ms + 500,
      `${b[0]!.at_ms} vs ${caller.start_ms}`,
    );
    assert.ok(b[0]!.yield_ms >= 0 && b[0]!.yield_ms < 200, String(b[0]!.yield_ms));
    // The plan is named in the record.
    assert.deepEqual(r.participants?.user.settings, {
      barge_in_at: [{ agent_utterance: 2, at_ms: 600 }],
    });
  } finally {
    await closeSpeech();
  }
});

Deno.test("user.barge_in: an utterance already over at at_ms is not interrupted; several are", async () => {
  try {
    // The greeting lasts a few seconds: 60 s in, it is long over.
    const late = await run(scenario([{ agent_utterance: 1, at_ms: 60_000 }]), true);
    assert.equal(late.status, "completed", late.error?.message);
    assert.deepEqual(late.audio!.barge_ins, []);
    assert.ok(!late.turns.some((t) => t.interrupted));

    const two = await run(
      scenario([{ agent_utterance: 1, at_ms: 800 }, { agent_utterance: 4, at_ms: 300 }]),
      true,
    );
    assert.equal(two.status, "completed", two.error?.message);
    const agentTurns = two.turns.flatMap((t, i) => (t.speaker === "agent" ? [i] : []));
    assert.deepEqual(
      two.audio!.barge_ins.map((x) => x.agent_turn),
      [agentTurns[0], agentTurns[3]],
      JSON.stringify(two.turns.map((t) => [t.speaker, t.start_ms, t.interrupted ?? false])),
    );
    assert.ok(two.audio!.barge_ins.every((x) => x.yielded));
  } finally {
    await closeSpeech();
  }
});

Deno.test("user.barge_in is ignored in text calls: the transcript is the plan-less one", async () => {
  const plain = await run(scenario(), false);
  const asked = await run(scenario([{ agent_utterance: 2, at_ms: 600 }]), false);
  assert.equal(asked.status, "completed");
  assert.ok(!asked.turns.some((t) => t.interrupted));
  assert.deepEqual(asked.turns, plain.turns);
});

Deno.test("user.barge_in is checked: utterances count from 1, times are not negative", () => {
  const base = {
    name: "x__y",
    domain: "test_counter",
    success_signals: ["clean_exit"],
  };
  const ok = ScenarioSchema.parse({
    ...base,
    user: { barge_in: [{ agent_utterance: 3, at_ms: 250 }] },
  });
  assert.deepEqual(ok.user.barge_in, [{ agent_utterance: 3, at_ms: 250 }]);
  for (
    const bad of [
      { agent_utterance: 0, at_ms: 0 },
      { agent_utterance: 1.5, at_ms: 0 },
      { agent_utterance: 1, at_ms: -1 },
      { agent_utterance: 1, at_ms: 0, text: "hi" },
      { at_ms: 100 },
    ]
  ) {
    assert.equal(
      ScenarioSchema.safeParse({ ...base, user: { barge_in: [bad] } }).success,
      false,
      JSON.stringify(bad),
    );
  }
  // Absent by default: existing scenarios parse to what they were.
  assert.equal("barge_in" in ScenarioSchema.parse(base).user, false);
});

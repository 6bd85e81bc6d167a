import assert from "node:assert/strict";
import { registerDomain } from "../domains/registry.ts";
import { counterDomain, counterScenario } from "../testing/counter_domain.ts";
import { DataRoot } from "../scenario/data_root.ts";
import { runTrial } from "../runner/run_trial.ts";
import { participantFactory } from "./registry.ts";
import { trialKey } from "../runner/trial_key.ts";
import { TrialRecordSchema } from "../runner/trial_record.ts";
import { closeSpeech, defaultSpeechOptions } from "../speech/speech_options.ts";
import type { CallerBehaviour } from "../speech/behaviour.ts";
import { BACKCHANNELS, FILLERS, SIDE_SPEECH } from "./caller_behaviour.ts";

registerDomain(counterDomain);
const root = new DataRoot(Deno.cwd());
const limits = { silenceMs: 30_000, maxTurns: 200 };

async function behaving(behaviour: CallerBehaviour, trial = 0) {
  const s = counterScenario();
  const participants = participantFactory({
    agent: "oracle",
    user: "scripted",
    agentModel: {},
    userModel: {},
    audio: true,
    behaviour,
  });
  return await runTrial({
    scenario: s,
    key: trialKey(s.name, trial, "c"),
    root,
    participants,
    limits,
    speech: { ...defaultSpeechOptions(), behaviour },
  });
}

Deno.test("caller behaviours are acted out and recorded as caller events at their turns' times", async () => {
  try {
    const seen = new Set<string>();
    const mixed: CallerBehaviour = {
      filler: 0.6,
      pause: 0.6,
      side: 0.4,
      late: 0.4,
      backchannel: 0.8,
    };
    const runs: [CallerBehaviour, number][] = [
      ...[0, 1, 2, 3].map((t): [CallerBehaviour, number] => [mixed, t]),
      ...(["backchannel", "filler", "pause", "side", "late"] as const).map(
        (k): [CallerBehaviour, number] => [{ [k]: 1 }, 0],
      ),
    ];
    for (const [b, trial] of runs) {
      const r = await behaving(b, trial);
      TrialRecordSchema.parse(r);
      assert.equal(r.status, "completed", r.error?.message);
      for (const e of r.audio!.caller_events ?? []) {
        seen.add(e.kind);
        const t = r.turns[e.turn]!;
        assert.equal(t.speaker, "user");
        assert.ok(e.end_ms >= e.start_ms, JSON.stringify(e));
        if (e.kind === "pause" || e.kind === "late") assert.equal(e.end_ms, t.start_ms);
        else assert.deepEqual([e.start_ms, e.end_ms], [t.start_ms, t.end_ms]);
        // Cut off (the call ended), a turn keeps the words said so far.
        const said = (xs: readonly string[]) =>
          xs.some((x) => t.interrupted ? x.startsWith(t.text) : x === t.text);
        if (e.kind === "filler") assert.ok(said(FILLERS), t.text);
        if (e.kind === "side") assert.ok(said(SIDE_SPEECH), t.text);
        if (e.kind === "backchannel") {
          assert.ok(said(BACKCHANNELS), t.text);
          // Over an agent utterance in progress.
          assert.ok(
            r.turns.some((a) =>
              a.speaker === "agent" && a.start_ms < t.start_ms && a.end_ms >= t.start_ms
            ),
          );
        }
        if (e.kind === "pause") {
          const gap = e.end_ms - e.start_ms;
          assert.ok(gap >= 500 && gap <= 2000, `pause ${gap} ms`);
        }
        if (e.kind === "late") assert.ok(e.end_ms - e.start_ms >= 2000, JSON.stringify(e));
      }
    }
    // (What the caller says over the agent is an interrupt, asked for or not.)
    for (const k of ["backchannel", "filler", "late", "pause", "side"]) assert.ok(seen.has(k), k);
  } finally {
    await closeSpeech();
  }
});

Deno.test("caller behaviours are seeded: the same trial acts out the same events, no behaviour none", async () => {
  try {
    const b = { filler: 0.5, pause: 0.5, backchannel: 0.5 };
    const one = await behaving(b, 3);
    const two = await behaving(b, 3);
    assert.deepEqual(one.audio!.caller_events, two.audio!.caller_events);
    assert.deepEqual(one.turns, two.turns);
    const none = await behaving({}, 3);
    assert.equal(none.audio!.caller_events, undefined);
  } finally {
    await closeSpeech();
  }
});

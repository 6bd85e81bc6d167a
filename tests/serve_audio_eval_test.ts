/**
 * `eval --audio` against `serve --audio` (the served oracle) on three eva fixture
 * scenarios, JSON and protobuf, on the real clock: the agent speaks every turn (the
 * greeting, each reply, the goodbye before its end), so every caller turn gets its
 * voice-to-voice sample, every agent turn its own voiced audio (`agent_voiced`), and
 * the trial still reaches the expected hash.
 */
import assert from "node:assert/strict";
import { BUNDLED_DATA_ROOT, DataRoot } from "../src/scenario/data_root.ts";
import { FliteTts } from "../src/speech/tts_flite.ts";
import { cli } from "./_cli.ts";
import { changingScenarios, serveBuiltin } from "./_serve.ts";
import { scoreTrial } from "../src/score/score_trial.ts";
import type { TrialRecord } from "../src/runner/trial_record.ts";

const root = new DataRoot(BUNDLED_DATA_ROOT);

Deno.test({
  name:
    "eval --audio against serve --audio: one v2v sample per caller turn, every agent turn voiced",
  sanitizeOps: false,
  fn: async () => {
    const scenarios = (await changingScenarios(root, "eva_airline", 3)).map((s) => s.name);
    assert.equal(scenarios.length, 3);
    const tts = new FliteTts({ sampleRate: 24000 });
    const server = await serveBuiltin(root, {
      audio: { enabled: true, options: () => ({ tts, outputRate: 24000 }) },
    });
    try {
      for (const framing of ["json", "protobuf"]) {
        const run = await cli([
          "eval",
          "--scenarios",
          scenarios.join(","),
          "--agent",
          `${server.url}?agent=oracle`,
          "--framing",
          framing,
          "--audio",
          "--concurrency",
          "3",
        ]);
        assert.equal(run.code, 0, run.stderr);
        const records = run.stdout.trim().split("\n").map((l) => JSON.parse(l) as TrialRecord);
        assert.equal(records.length, 3);
        for (const r of records) {
          const what = `${framing} ${r.key.scenario}: ${
            JSON.stringify(r.turns.map((t) => [t.speaker, t.text]))
          }`;
          assert.equal(r.status, "completed", JSON.stringify(r.error));
          assert.equal(r.stop_reason, "agent_end", what);
          assert.equal(r.final.db_sha256, r.expect.db_sha256, what);
          // Every caller turn is answered by the agent, and each answer is measured.
          const answered = r.turns.filter((t, i) =>
            t.speaker === "user" && r.turns[i + 1]?.speaker === "agent"
          ).length;
          const callerTurns = r.turns.filter((t) => t.speaker === "user").length;
          assert.ok(callerTurns >= 2, what);
          assert.equal(answered, callerTurns, what);
          assert.equal(r.audio!.turns.length, callerTurns, what);
          assert.match(r.turns.at(-1)!.text, /Goodbye/, what);
          const verdict = scoreTrial(r);
          assert.equal(verdict.signals.agent_voiced, true, what);
          assert.ok(
            r.audio!.agent_turns!.every((a) => a.source === "agent_audio" && a.voiced_ms > 500),
            JSON.stringify(r.audio!.agent_turns),
          );
        }
      }
    } finally {
      await server.shutdown();
      await tts.close();
    }
  },
});

/**
 * `eval --audio --line` against `serve --audio` (the served oracle, a VAD-driven bot)
 * over a real socket on the real clock. On `phone+street@10` the bot hears the caller
 * through the line and the oracle (text-driven) still reaches the expected hash; on
 * `phone+babble@10` (six flite talkers, made once before the call) every caller
 * utterance is still at the asked SNR within 0.5 dB. (Babble is speech: the bot's VAD
 * hears it through the caller's silences too, so it may never see a turn end; the
 * test does not ask what the bot makes of that, only what the line did.)
 */
import assert from "node:assert/strict";
import { BUNDLED_DATA_ROOT, DataRoot } from "../src/scenario/data_root.ts";
import { FliteTts } from "../src/speech/tts_flite.ts";
import { cli } from "./_cli.ts";
import { changingScenarios, serveBuiltin } from "./_serve.ts";
import type { TrialRecord } from "../src/runner/trial_record.ts";

const root = new DataRoot(BUNDLED_DATA_ROOT);

Deno.test({
  name:
    "eval --audio --line against serve --audio: SNR within 0.5 dB per caller utterance (street, flite babble), success unchanged on street",
  sanitizeOps: false,
  fn: async () => {
    const [scenario] = await changingScenarios(root, "eva_airline", 1);
    const tts = new FliteTts({ sampleRate: 24000 });
    const server = await serveBuiltin(root, {
      audio: { enabled: true, options: () => ({ tts, outputRate: 24000 }) },
    });
    try {
      for (
        const [preset, text] of [["phone+street@10", "street@10+phone"], [
          "phone+babble@10",
          "babble@10+phone",
        ]]
      ) {
        const run = await cli([
          "eval",
          "--scenarios",
          scenario!.name,
          "--agent",
          `${server.url}?agent=oracle`,
          "--audio",
          "--line",
          preset!,
        ]);
        assert.equal(run.code, 0, run.stderr);
        const [r] = run.stdout.trim().split("\n").map((l) => JSON.parse(l) as TrialRecord);
        assert.equal(r!.status, "completed", JSON.stringify(r!.error));
        if (preset === "phone+street@10") assert.equal(r!.final.db_sha256, r!.expect.db_sha256);
        const line = r!.audio!.line!;
        assert.equal(line.text, text);
        const callerTurns = r!.turns.filter((t) => t.speaker === "user").length;
        assert.ok(callerTurns >= 1, preset);
        assert.equal(line.snr_db.length, callerTurns, preset);
        for (const snr of line.snr_db) {
          assert.ok(snr !== null && Math.abs(snr - 10) < 0.5, `${preset}: ${snr}`);
        }
        assert.equal(line.frames_total, Math.ceil(r!.duration_ms / 20));
      }
    } finally {
      await server.shutdown();
      await tts.close();
    }
  },
});

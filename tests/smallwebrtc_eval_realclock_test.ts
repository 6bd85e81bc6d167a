/**
 * `eval --audio --agent http://127.0.0.1:P/api/offer` end to end (the CLI with its
 * task's permissions, the real clock, loopback UDP) against the SmallWebRTC bot of
 * `./_webrtc_bot.ts`, which runs on libwebrtc (`@roamhq/wrtc`), not on callbench's
 * werift: offer and answer, ICE, DTLS-SRTP, Opus both ways and RTVI on the data
 * channel meet an implementation written by others. The bot runs the scenario's
 * reference tools through RTVI, so the trial's world reaches the expected hash, and
 * answers each caller utterance a known D after its end. The voice-to-voice value is
 * printed beside the bot's D, not yet held to it: on a loaded machine the caller's
 * pacing (werift and Opus on the main thread) and the bot's Node timers both drift.
 */
import assert from "node:assert/strict";
import { cli } from "./_cli.ts";
import { startWebRtcBot } from "./_webrtc_bot.ts";
import { changingScenarios } from "./_serve.ts";
import { BUNDLED_DATA_ROOT, DataRoot } from "../src/scenario/data_root.ts";
import type { TrialRecord } from "../src/runner/trial_record.ts";

const root = new DataRoot(BUNDLED_DATA_ROOT);
const D = 800;

Deno.test({
  name:
    "eval --audio against a libwebrtc SmallWebRTC bot: eva scenario on its expected hash, tools in the trial's world",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const [scenario] = await changingScenarios(root, "eva_airline", 1);
    assert.ok(scenario);
    const plan = (scenario.expect.reference_actions ?? []).filter((a) => a.side === "agent");
    assert.ok(plan.length > 0);
    const bot = await startWebRtcBot({ delays: [D], answers: 1, plan, speechMs: 1200 });
    let closed = false;
    try {
      const run = await cli([
        "eval",
        "--audio",
        "--agent",
        bot.url,
        "--scenarios",
        scenario.name,
      ]);
      const [record] = run.stdout.trim().split("\n").filter((l) => l).map((l) =>
        JSON.parse(l) as TrialRecord
      );
      assert.ok(record, run.stderr);
      const log = await bot.close();
      closed = true;
      const what = JSON.stringify({
        error: record.error,
        stop: record.stop_reason,
        turns: record.turns.map((t) => [t.speaker, t.text]),
        log,
      });
      assert.equal(record.status, "completed", what);
      assert.equal(record.stop_reason, "agent_end", what);
      // The bot's tools ran in the trial's world: its final state is the expected one.
      assert.equal(log.results.length, plan.length, what);
      assert.equal(record.final.db_sha256, record.expect.db_sha256, what);
      assert.equal(record.participants.agent.settings?.framing, "smallwebrtc");
      assert.ok(log.pings >= 1, "the data channel's keep-alive");
      assert.deepEqual(log.messages.slice(0, 2), [
        "client-ready",
        "client-message:update_system_prompt",
      ]);
      // Its words (bot-tts-text) are the transcript's; its audio is what was recorded.
      assert.ok(record.turns.some((t) => t.speaker === "agent" && t.text === "Reply 1."), what);
      const [reply] = log.replies;
      assert.ok(reply, what);
      const v2v = record.audio!.turns.map((t) => t.v2v_ms);
      console.log(
        `bot D ${reply.delayMs.toFixed(1)} ms; callbench v2v ${JSON.stringify(v2v)} ms`,
      );
    } finally {
      if (!closed) await bot.close();
    }
  },
});

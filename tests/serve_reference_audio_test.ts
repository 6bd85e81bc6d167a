/**
 * `serve --audio` as the reference harness's agent bot and user bot, in audio: the
 * test plays the reference runner and bridge (tests/_reference_audio_runner.ts) against
 * a served oracle and a served scripted caller, both speaking flite audio at 24 kHz and
 * hearing the bridge's continuous 16 kHz stream through their VAD, on the real clock.
 * Neither bot gets any text but the agent's "Hello" kick: the words of a turn are
 * unknown to its listener, and the conversation still runs to the oracle's `<exit>`
 * and the scenario's expected hash.
 */
import assert from "node:assert/strict";
import { decodeWav } from "../src/audio/wav.ts";
import { BUNDLED_DATA_ROOT, DataRoot } from "../src/scenario/data_root.ts";
import type { Scenario } from "../src/scenario/scenario.ts";
import { FliteTts } from "../src/speech/tts_flite.ts";
import { runAsReferenceInAudio } from "./_reference_audio_runner.ts";
import { changingScenarios, serveBuiltin } from "./_serve.ts";

const root = new DataRoot(BUNDLED_DATA_ROOT);

/** The first scenario of `domain` whose expected state differs from its initial one. */
async function changing(domain: string): Promise<Scenario> {
  const [s] = await changingScenarios(root, domain, 1);
  if (!s) throw new Error(`no ${domain} fixture changes its world`);
  return s;
}

/** Per-channel RMS of a stereo recording. */
function channelRms(samples: Int16Array): { left: number; right: number } {
  let l = 0;
  let r = 0;
  for (let i = 0; i + 1 < samples.length; i += 2) {
    l += samples[i]! ** 2;
    r += samples[i + 1]! ** 2;
  }
  const n = samples.length / 2;
  return { left: Math.sqrt(l / n), right: Math.sqrt(r / n) };
}

Deno.test({
  name:
    "serve --audio holds the reference runner's audio call: oracle + scripted caller reach gold",
  // The served scripted caller's goodbye timer may still be pending when the server stops.
  sanitizeOps: false,
  fn: async () => {
    const picked = [await changing("eva_airline"), await changing("tau2_retail")];
    const tts = new FliteTts({ sampleRate: 24000 });
    const server = await serveBuiltin(root, {
      audio: { enabled: true, options: () => ({ tts, outputRate: 24000 }) },
    });
    const outDir = await Deno.makeTempDir({ prefix: "callbench-ref-audio-" });
    try {
      const lines: string[] = [];
      for (const s of picked) {
        const q = `scenario=${encodeURIComponent(s.name)}`;
        const run = await runAsReferenceInAudio(
          s,
          `${server.url}?agent=oracle&${q}`,
          `${server.url}?user=scripted&${q}`,
          { outDir, kickDelayMs: 300, timeoutMs: 60_000 },
        );
        const agentTurns = run.turns.filter((t) => t.role === "agent");
        const userTurns = run.turns.filter((t) => t.role === "user");
        assert.equal(run.stop, "[EXIT]", `${s.name}: ${JSON.stringify(run.turns)}`);
        assert.equal(run.agentSummary.db_hash, s.expect.db_sha256, s.name);
        // A conversation: the agent spoke, the caller answered what it heard, the agent
        // answered that, and each turn's words came with its bot-tts-text.
        assert.ok(agentTurns.length >= 2, `${s.name}: ${JSON.stringify(run.turns)}`);
        assert.ok(userTurns.length >= 1, `${s.name}: ${JSON.stringify(run.turns)}`);
        assert.ok(
          run.turns.every((t) => t.text !== "[INTERRUPTED]" && t.end > t.start),
          JSON.stringify(run.turns),
        );
        const firstUser = run.turns.findIndex((t) => t.role === "user");
        assert.ok(
          run.turns.slice(firstUser).some((t) => t.role === "agent"),
          `${s.name}: the agent never answered the caller`,
        );
        assert.ok(
          run.framesFrom.agent > 50 && run.framesFrom.user > 50,
          JSON.stringify(run.framesFrom),
        );
        // The reference's --min-agent-turns counts agent metrics.tokens.
        assert.ok(run.agentTokenCalls >= 3, `${s.name}: ${run.agentTokenCalls}`);
        // Live latency: the agent's first audio after the caller stopped speaking; it
        // includes the VAD's end-of-turn silence (600 ms) and the synthesis.
        // One sample per agent turn that answers a caller turn (the goodbye included:
        // `<exit>` goes once it has played).
        const answers = run.turns.filter((t, i) =>
          t.role === "agent" && run.turns.slice(0, i).some((u) =>
            u.role === "user"
          )
        ).length;
        assert.ok(answers >= 2, `${s.name}: ${JSON.stringify(run.turns)}`);
        assert.equal(run.latenciesMs.length, answers, `${s.name}: ${JSON.stringify(run.turns)}`);
        assert.match(agentTurns.at(-1)!.text, /Goodbye/, `${s.name}: the goodbye was cut`);
        for (const ms of run.latenciesMs) assert.ok(ms > 300 && ms < 5000, `${s.name}: ${ms} ms`);
        // The recording: both channels carry speech.
        const wav = decodeWav(await Deno.readFile(run.wavPath));
        assert.ok(wav.ok);
        assert.equal(wav.audio.channels, 2);
        assert.equal(wav.audio.sampleRate, 16000);
        const rms = channelRms(wav.audio.samples);
        assert.ok(rms.right > 100, `${s.name}: agent channel RMS ${rms.right}`);
        assert.ok(rms.left > 100, `${s.name}: user channel RMS ${rms.left}`);
        lines.push(
          `${s.name}: ${agentTurns.length} agent + ${userTurns.length} user turns, latency ${
            run.latenciesMs.map((m) => m.toFixed(0)).join("/")
          } ms, ${(wav.audio.samples.length / 2 / 16000).toFixed(1)} s recorded`,
        );
      }
      console.log(`reference audio sequence on fixtures:\n  ${lines.join("\n  ")}`);
    } finally {
      await server.shutdown();
      await tts.close();
      await Deno.remove(outDir, { recursive: true });
    }
  },
});

/**
 * Audio-mode throughput: every eva and tau2 scenario of a data root played by the
 * oracle agent against the scripted caller on the simulated clock, in text mode and in
 * audio mode (flite TTS, VAD measures, in-band keys) with a cold and then a warm TTS
 * cache, and the flite Worker's real-time factor.
 *
 *   deno task bench:audio            (EVAL_DATA_ROOT, else ../shared/datasets, else fixtures)
 *
 * Target: warm audio mode at least a third of text-mode trials/s.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { DataRoot } from "../src/scenario/data_root.ts";
import { selectScenarios } from "../src/scenario/suites.ts";
import { participantFactory } from "../src/participants/registry.ts";
import { runTrials } from "../src/runner/runner.ts";
import type { TrialRecord } from "../src/runner/trial_record.ts";
import {
  closeSpeech,
  defaultSpeechOptions,
  openSpeech,
  type SpeechOptions,
} from "../src/speech/speech_options.ts";
import type { FliteTts } from "../src/speech/tts_flite.ts";

const candidates = [
  Deno.env.get("EVAL_DATA_ROOT"),
  fileURLToPath(new URL("../../shared/datasets", import.meta.url)),
  fileURLToPath(new URL("../fixtures", import.meta.url)),
].filter((p): p is string => !!p);
const rootPath = candidates.find((p) => {
  try {
    return Deno.statSync(p).isDirectory;
  } catch {
    return false;
  }
})!;
const root = new DataRoot(rootPath);
const { scenarios: all } = await selectScenarios(root, {});
const scenarios = all.filter((s) => s.domain !== "flow");
const limits = { silenceMs: 30_000, maxTurns: 400 };
const factory = participantFactory({
  agent: "oracle",
  user: "scripted",
  agentModel: {},
  userModel: {},
});

async function run(label: string, speech?: SpeechOptions) {
  const records: TrialRecord[] = [];
  const t0 = performance.now();
  await runTrials({
    scenarios,
    root,
    participants: factory,
    configHash: `bench-audio-${label}`,
    trials: 1,
    concurrency: 4,
    limits,
    ...(speech ? { speech } : {}),
    onRecord: (r) => void records.push(r),
  });
  const seconds = (performance.now() - t0) / 1000;
  const gold = records.filter((r) =>
    r.status === "completed" && r.expect.db_sha256 !== undefined &&
    r.final.db_sha256 === r.expect.db_sha256
  ).length;
  const withGold = records.filter((r) => r.expect.db_sha256 !== undefined).length;
  const errors = records.filter((r) => r.status === "error");
  const audioS = records.reduce(
    (t, r) => t + (r.audio ? r.audio.sides.agent.sent_s + r.audio.sides.user.sent_s : 0),
    0,
  );
  console.log(
    `${label.padEnd(12)} ${records.length} trials in ${seconds.toFixed(1)} s = ${
      (records.length / seconds).toFixed(1)
    } trials/s; gold ${gold}/${withGold}; errors ${errors.length}` +
      (audioS > 0 ? `; ${(audioS / 3600).toFixed(2)} h of audio` : ""),
  );
  if (errors[0]) {
    console.log(`  first error: ${errors[0].key.scenario}: ${errors[0].error?.message}`);
  }
  return records.length / seconds;
}

console.log(
  `data root ${rootPath}: ${scenarios.length} eva/tau2 scenarios, oracle vs scripted caller, simulated clock`,
);
const text = await run("text");
const speech = defaultSpeechOptions();
const cold = await run("audio cold", speech);
const warm = await run("audio warm", speech);
const tts = (await openSpeech(speech)).tts as FliteTts;
const st = tts.stats;
console.log(
  `warm/text ${(warm / text).toFixed(2)} (target >= 0.33); cold/text ${(cold / text).toFixed(2)}`,
);
console.log(
  `flite Worker: ${st.synthesized} utterances, ${(st.audioMs / 1000).toFixed(0)} s of audio in ${
    (st.synthMs / 1000).toFixed(1)
  } s: real-time factor ${(st.synthMs / st.audioMs).toFixed(4)}; cache ${
    JSON.stringify(tts.cache.stats)
  }`,
);
await closeSpeech();

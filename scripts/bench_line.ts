/**
 * What a phone line costs on the simulated clock: the oracle against the scripted
 * caller over every eva and tau2 scenario of a data root in audio mode, on a clean
 * line and on `phone+street@10+loss@3%` (noise bed, G.711 round trip and frame loss
 * applied to every caller utterance, and the line's noise in the recording), with a
 * warm flite cache, alternating so that machine load falls on both alike.
 *
 *   deno task bench:line [LINE]     (EVAL_DATA_ROOT, else fixtures/; LINE default phone+street@10+loss@3%)
 *
 * Target: the line within 20% of clean trials/s.
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
  type SpeechOptions,
} from "../src/speech/speech_options.ts";

const LINE = Deno.args[0] ?? "phone+street@10+loss@3%";
const rootPath = Deno.env.get("EVAL_DATA_ROOT") ??
  fileURLToPath(new URL("../fixtures", import.meta.url));
const root = new DataRoot(rootPath);
const { scenarios: all } = await selectScenarios(root, {});
const scenarios = all.filter((s) => s.domain !== "flow");
const factory = participantFactory({
  agent: "oracle",
  user: "scripted",
  agentModel: {},
  userModel: {},
  audio: true,
});
const out = await Deno.makeTempDir({ prefix: "bench_line_" });

async function run(label: string, speech: SpeechOptions, trials: number): Promise<number> {
  const records: TrialRecord[] = [];
  const t0 = performance.now();
  await runTrials({
    scenarios,
    root,
    participants: factory,
    configHash: `bench-line-${label}`,
    trials,
    concurrency: 4,
    limits: { silenceMs: 30_000, maxTurns: 400 },
    speech,
    // The recording is written too: the caller's channel is what the agent heard.
    out: `${out}/${label}-${crypto.randomUUID()}`,
    onRecord: (r) => void records.push(r),
  });
  const s = (performance.now() - t0) / 1000;
  const gold =
    records.filter((r) => r.status === "completed" && r.final.db_sha256 === r.expect.db_sha256)
      .length;
  const lost = records.reduce((t, r) => t + (r.audio?.line?.frames_lost ?? 0), 0);
  const frames = records.reduce((t, r) => t + (r.audio?.line?.frames_total ?? 0), 0);
  console.log(
    `${label.padEnd(26)} ${records.length} trials in ${s.toFixed(2)} s = ${
      (records.length / s).toFixed(2)
    } trials/s; ` +
      `gold ${gold}/${records.length}` + (frames > 0 ? `; frames lost ${lost}/${frames}` : ""),
  );
  return records.length / s;
}

console.log(
  `data root ${rootPath}: ${scenarios.length} eva/tau2 scenarios, oracle vs scripted caller, simulated clock`,
);
const clean = defaultSpeechOptions();
const line: SpeechOptions = { ...clean, line: { preset: LINE, text: LINE, both: false } };
await run("warm-up (clean)", clean, 1);
await run("warm-up (line)", line, 1);
// Short runs on a shared machine: each round runs both, and the ratio is taken per
// round (load that falls on one round falls on both of its runs) and over the best runs.
const ROUNDS = 5;
const rates = { clean: [] as number[], line: [] as number[] };
for (let i = 0; i < ROUNDS; i++) {
  rates.clean.push(await run("clean", clean, 3));
  rates.line.push(await run(LINE, line, 3));
}
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const ratios = rates.line.map((r, i) => r / rates.clean[i]!);
console.log(
  `${LINE} / clean = ${median(ratios).toFixed(2)} median of ${ROUNDS} rounds ` +
    `(${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}), ` +
    `${(Math.max(...rates.line) / Math.max(...rates.clean)).toFixed(2)} best to best ` +
    `(target >= 0.80); load average ${Deno.loadavg().map((x) => x.toFixed(1)).join(" ")}`,
);
await closeSpeech();
await Deno.remove(out, { recursive: true });

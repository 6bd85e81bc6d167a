/**
 * Audio-mode throughput: every eva and tau2 scenario of a data root played by the
 * oracle agent against the scripted caller on the simulated clock, in text mode and in
 * audio mode (flite TTS, VAD measures, in-band keys), and the flite Worker's
 * real-time factor; and audio mode again over a phone line (`phone+street@10+loss@3%`: the
 * perturbations' cost, target within 20% of clean audio).
 *
 * Each mode runs in a fresh process of its own (`--child text|audio`), the two in
 * alternating order over the repeats, and each process makes two passes over the
 * scenarios, reported apart:
 *
 * - cold: the first pass of a fresh process: the code not yet optimised, and in audio
 *   mode an empty TTS cache (every utterance synthesized) and libfvad not yet loaded;
 * - warm: the second pass of the same process: in audio mode the TTS cache holds
 *   every utterance of the first pass (its hits and misses are printed).
 *
 * Loading the scenarios (and replaying their gold, computed in memory: the task grants
 * no cache folder) comes before either pass and is not timed. Figures are medians over
 * the repeats with their min–max.
 *
 *   deno task bench:audio [--repeats N]   (EVAL_DATA_ROOT, else ../shared/datasets, else fixtures)
 *
 * Targets: warm audio mode at least a third of warm text mode's trials/s; warm audio
 * over the line at least 0.8 of warm clean audio's.
 *
 * @module
 */
import { parseArgs } from "node:util";
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

/** The line whose cost the `line` mode measures. */
const LINE = "phone+street@10+loss@3%";
const MODES = ["text", "audio", "line"] as const;
type Mode = (typeof MODES)[number];

/** What one child process measured. */
interface ChildResult {
  mode: Mode;
  trials: number;
  cold: number;
  warm: number;
  /** Audio: the TTS cache after the cold pass and after the warm one. */
  cache?: { cold: unknown; warm: unknown };
  rtf?: number;
}

const { values } = parseArgs({
  options: { child: { type: "string" }, repeats: { type: "string", default: "3" } },
});

if ((MODES as readonly string[]).includes(values.child ?? "")) {
  const mode = values.child as Mode;
  const speech = mode === "text" ? undefined : defaultSpeechOptions();
  if (speech && mode === "line") speech.line = { preset: LINE, text: LINE, both: false };
  const quiet = { log: console.log };
  console.log = console.error; // the pass lines go to stderr; stdout is the one result
  const cold = await run(`${mode} cold`, speech);
  let coldCache: unknown;
  let tts: FliteTts | undefined;
  if (speech) {
    tts = (await openSpeech(speech)).tts as FliteTts;
    coldCache = { ...tts.cache.stats };
  }
  const warm = await run(`${mode} warm`, speech);
  const result: ChildResult = { mode, trials: scenarios.length, cold, warm };
  if (tts) {
    const st = tts.stats;
    result.cache = { cold: coldCache, warm: { ...tts.cache.stats } };
    result.rtf = st.synthMs / st.audioMs;
  }
  quiet.log(JSON.stringify(result));
  await closeSpeech();
  Deno.exit(0);
}

/** Runs one mode in a fresh process. */
async function child(mode: Mode): Promise<ChildResult> {
  const out = await new Deno.Command("deno", {
    args: [
      "run",
      "--allow-read",
      "--allow-write",
      // The task's own variables (the yaml package reads LOG_TOKENS and LOG_STREAM).
      "--allow-env=NODE_ENV,EVAL_DATA_ROOT,OPENAI_BASE_URL,OPENAI_API_KEY,CALLBENCH_AGENT_MODEL," +
      "CALLBENCH_USER_MODEL,CALLBENCH_TOKEN,JUDGE_API_KEY,TMPDIR,WS_NO_BUFFER_UTIL," +
      "WS_NO_UTF_8_VALIDATE,LOG_TOKENS,LOG_STREAM",
      new URL(import.meta.url).href,
      "--child",
      mode,
    ],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  if (!out.success) throw new Error(`the ${mode} process failed`);
  return JSON.parse(new TextDecoder().decode(out.stdout).trim().split("\n").at(-1)!);
}

const repeats = Math.max(1, Number(values.repeats));
console.log(
  `data root ${rootPath}: ${scenarios.length} eva/tau2 scenarios, oracle vs scripted caller, ` +
    `simulated clock; each mode in a fresh process, ${repeats} repeats, alternating order`,
);
const results: ChildResult[] = [];
for (let i = 0; i < repeats; i++) {
  const order: Mode[] = i % 2 === 0 ? [...MODES] : [...MODES].reverse();
  for (const mode of order) results.push(await child(mode));
}
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const figure = (xs: number[], digits = 1) =>
  `${median(xs).toFixed(digits)} (${Math.min(...xs).toFixed(digits)}–${
    Math.max(...xs).toFixed(digits)
  })`;
const of = (mode: string, pass: "cold" | "warm") =>
  results.filter((r) => r.mode === mode).map((r) => r[pass]);
console.log("trials/s, median (min–max)     cold (fresh process)   warm (second pass)");
for (const mode of MODES) {
  const name = mode === "line" ? `audio over ${LINE}` : mode;
  console.log(
    `${name.padEnd(30)} ${figure(of(mode, "cold")).padEnd(22)} ${figure(of(mode, "warm"))}`,
  );
}
const ratio = (a: Mode, b: Mode, pass: "cold" | "warm") =>
  median(of(a, pass)) / median(of(b, pass));
console.log(
  `audio/text: cold ${ratio("audio", "text", "cold").toFixed(2)}, warm ${
    ratio("audio", "text", "warm").toFixed(2)
  } (target warm >= 0.33)`,
);
console.log(
  `line/audio (the perturbations' cost): cold ${ratio("line", "audio", "cold").toFixed(2)}, warm ${
    ratio("line", "audio", "warm").toFixed(2)
  } (target warm >= 0.80)`,
);
const audio = results.filter((r) => r.mode === "audio");
console.log(
  `caches: cold = empty TTS cache, libfvad not loaded, code unoptimised; warm = TTS cache after ` +
    `the cold pass ${JSON.stringify(audio[0]?.cache?.cold)}, after the warm pass ${
      JSON.stringify(audio[0]?.cache?.warm)
    }; gold replayed in memory before timing in every process`,
);
console.log(`flite real-time factor: ${figure(audio.map((r) => r.rtf ?? NaN), 4)}`);
console.log(`load average ${Deno.loadavg().map((x) => x.toFixed(1)).join(" ")}`);

/**
 * Where `score` spends its time, per record: JSON parsing, schema validation, scoring,
 * and writing the verdict. Run: `deno bench src/score/score_bench.ts`.
 */
import { TrialRecordSchema } from "../runner/trial_record.ts";
import { generatedTrials } from "./_generated_trials.ts";
import { scoreTrial } from "./score_trial.ts";
import { computeSignals } from "./signals.ts";

const records = generatedTrials(1000);
const lines = records.map((r) => JSON.stringify(r));
const verdicts = records.map((r) => scoreTrial(r));

Deno.bench("JSON.parse of 1000 trial records", { group: "score" }, () => {
  for (const l of lines) JSON.parse(l);
});

Deno.bench("TrialRecordSchema.safeParse of 1000 records", { group: "score" }, () => {
  for (const r of records) TrialRecordSchema.safeParse(r);
});

Deno.bench("computeSignals() of 1000 records", { group: "score" }, () => {
  for (const r of records) computeSignals(r);
});

Deno.bench("scoreTrial() of 1000 records", { group: "score", baseline: true }, () => {
  for (const r of records) scoreTrial(r);
});

Deno.bench("JSON.stringify of 1000 verdicts", { group: "score" }, () => {
  for (const v of verdicts) JSON.stringify(v);
});

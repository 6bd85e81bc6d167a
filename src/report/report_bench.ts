/**
 * Where `report` spends its time over 100 000 verdicts: validation, de-duplication,
 * aggregation and rendering. Run: `deno bench src/report/report_bench.ts`.
 */
import { generatedTrials } from "../score/_generated_trials.ts";
import { scoreTrial } from "../score/score_trial.ts";
import { VerdictSchema, VerdictWithoutTranscriptSchema } from "../score/verdict.ts";
import { renderHtml } from "./html.ts";
import { renderMarkdown } from "./markdown.ts";
import { summarize, VerdictSet } from "./summary.ts";

const verdicts = generatedTrials(100_000).map((r) => scoreTrial(r));
const thousand = verdicts.slice(0, 1000).map((v) => JSON.parse(JSON.stringify(v)));
const report = summarize(verdicts);

Deno.bench("VerdictSchema.safeParse of 1000 verdicts", { group: "validate" }, () => {
  for (const v of thousand) VerdictSchema.safeParse(v);
});

Deno.bench("the same without turns (json, md)", { group: "validate" }, () => {
  for (const v of thousand) VerdictWithoutTranscriptSchema.safeParse(v);
});

Deno.bench("VerdictSet of 100 000 verdicts, sorted", { group: "report", n: 5 }, () => {
  const set = new VerdictSet();
  for (const v of verdicts) set.add(v);
  set.sorted();
});

Deno.bench("summarize() of 100 000 verdicts", { group: "report", n: 5 }, () => {
  summarize(verdicts);
});

Deno.bench("JSON.stringify of the report", { group: "render", n: 5 }, () => {
  JSON.stringify(report, null, 2);
});

Deno.bench("renderMarkdown() of the report", { group: "render", n: 5 }, () => {
  renderMarkdown(report);
});

Deno.bench("renderHtml() of the report and 100 000 transcripts", { group: "render", n: 5 }, () => {
  renderHtml(report, verdicts);
});

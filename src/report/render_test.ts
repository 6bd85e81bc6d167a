import { deepEqual as assertEquals, equal, ok } from "node:assert/strict";
import { trialRecord } from "../score/_trial_fixture.ts";
import { scoreTrial } from "../score/score_trial.ts";
import { renderHtml } from "./html.ts";
import { renderMarkdown } from "./markdown.ts";
import { summarize } from "./summary.ts";

const verdicts = [
  scoreTrial(trialRecord({ key: { scenario: "air__a|b", trial: 0 }, suite: "air" })),
  scoreTrial(trialRecord({
    key: { scenario: "air__a|b", trial: 1 },
    suite: "air",
    clean_exit: false,
    turns: [{ speaker: "agent", text: "<script>alert(1)</script>", start_ms: 0, end_ms: 900 }],
  })),
  scoreTrial(trialRecord({
    key: { scenario: "shop__c", trial: 0 },
    suite: "shop",
    status: "error",
    error: { kind: "agent_timeout", message: "no reply" },
  })),
];
const report = summarize(verdicts);

Deno.test("renderMarkdown() prints the summary, pass^k, suites and scenario tables", () => {
  const md = renderMarkdown(report);
  ok(md.startsWith("## callbench report"));
  ok(md.includes("| success rate | 33.3% (1/3) |"), md);
  ok(md.includes("| errors | agent_timeout: 1 |"));
  ok(md.includes("### pass^k"));
  ok(md.includes("| air | 1 | 2 | 50.0% (1/2) |"));
  ok(md.includes("<details><summary>Per scenario (2)</summary>"));
  // A pipe in a name would split a cell: it is escaped.
  ok(md.includes("| air__a\\|b | air |"));
  // Every table row has the header's cell count.
  for (const block of md.split("\n\n")) {
    const rows = block.split("\n").filter((l) => l.startsWith("|"));
    if (rows.length === 0) continue;
    const cells = (l: string) => l.replaceAll("\\|", "").split("|").length;
    assertEquals(new Set(rows.map(cells)).size, 1, block);
  }
});

Deno.test("renderMarkdown() names the configuration, and lists several side by side", () => {
  const labelled = (label: string, config: string, clean: boolean) =>
    scoreTrial(trialRecord({
      key: { scenario: "air__a", trial: 0, config_hash: config },
      label,
      suite: "air",
      clean_exit: clean,
      participants: { agent: { kind: "llm", model: "m-1" }, user: { kind: "scripted" } },
    }));
  const one = renderMarkdown(summarize([labelled("v1", "c1", true)]));
  ok(one.includes("Configuration: **v1** (config c1) · agent llm m-1, user scripted"), one);
  const two = renderMarkdown(summarize([labelled("v1", "c1", true), labelled("v2", "c2", false)]));
  ok(two.includes("### Configurations"), two);
  ok(two.includes("| **v1** (config c1) | agent llm m-1, user scripted | 1 | 1 | 100.0% (1/1) |"));
  ok(two.includes("| **v2** (config c2) |"));
  ok(!two.includes("### pass^k"), "no pooled pass^k");
  ok(two.includes("| air__a | **v2** (config c2) | air |"), two);
  for (const block of two.split("\n\n")) {
    const rows = block.split("\n").filter((l) => l.startsWith("|"));
    if (rows.length === 0) continue;
    assertEquals(new Set(rows.map((l) => l.split("|").length)).size, 1, block);
  }
});

Deno.test("renderHtml() is one self-contained page with the charts, table and transcripts", () => {
  const html = renderHtml(report, verdicts);
  ok(html.startsWith("<!doctype html>"));
  for (const id of ["pass-k-chart", "latency-histogram", "suite-success", "scenario-table"]) {
    ok(html.includes(`id="${id}"`), id);
  }
  // No network: nothing loaded from elsewhere.
  ok(!/\b(src|href)=["']?(https?:)?\/\//.test(html));
  // Transcript text is data, never markup.
  ok(!html.includes("<script>alert(1)</script>"));
  ok(html.includes("\\u003cscript>alert(1)\\u003c/script>"));
  // One trial button per trial, each pointing at a transcript.
  const buttons = [...html.matchAll(/<button class="trial [a-z]+" data-i="(-?\d+)"/g)].map((m) =>
    m[1]
  );
  assertEquals(buttons, ["0", "1", "2"]);
  ok(html.includes('class="trial error"'));
});

Deno.test("renderHtml() names the configuration, and with several shows each one's figures and a configuration column", () => {
  const labelled = (label: string, config: string, clean: boolean) =>
    scoreTrial(trialRecord({
      key: { scenario: "air__a", trial: 0, config_hash: config },
      label,
      suite: "air",
      clean_exit: clean,
      participants: { agent: { kind: "llm", model: "m-1" }, user: { kind: "scripted" } },
    }));
  const one = renderHtml(summarize([labelled("v1", "c1", true)]), []);
  ok(one.includes(`<p class="config">v1 · agent llm m-1 · caller scripted</p>`), "header");
  ok(!one.includes(`id="configurations"`));
  const two = renderHtml(summarize([labelled("v1", "c1", true), labelled("v2", "c2", false)]), []);
  ok(two.includes(`<table id="configurations">`));
  ok(two.includes("<td>v1</td><td>c1</td>"), "one row per configuration");
  ok(two.includes("<td>v2</td><td>c2</td>"));
  ok(two.includes(`<th data-type="text" class="sortable">configuration</th>`));
  ok(two.includes(`<td data-v="v2">v2</td>`), "each scenario row names its configuration");
});

Deno.test("a record says which clock it ran on, and the report says simulated from it, not from zeros", () => {
  const sim = (trial: number, ms: number) =>
    scoreTrial({
      ...trialRecord({ key: { scenario: "air__a", trial } }),
      clock: "simulated",
      latency: [{ turn: 2, response_ms: ms }],
    });
  equal(sim(0, 0).metrics.clock, "simulated");
  const r = summarize([sim(0, 0), sim(1, 40)]);
  equal(r.overall.simulated_clock_trials, 2);
  // Not every sample is 0 ms (a timer in the script), yet it is still the simulated clock.
  ok(renderHtml(r, []).includes("p50 ms (sim. clock)"));
  const real = summarize([scoreTrial({ ...trialRecord(), clock: "real" })]);
  equal(real.overall.simulated_clock_trials, 0);
  ok(!renderHtml(real, []).includes("sim. clock"));
});

Deno.test("renderMarkdown() says when the latencies are the simulated clock's", () => {
  const sim = scoreTrial({ ...trialRecord(), clock: "simulated" });
  ok(renderMarkdown(summarize([sim])).includes("Every call ran on the simulated clock"));
  ok(!renderMarkdown(summarize([scoreTrial(trialRecord())])).includes("simulated clock"));
});

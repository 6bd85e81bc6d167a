import { deepEqual as assertEquals, equal, ok } from "node:assert/strict";
import { audioBlock, trialRecord } from "../score/_trial_fixture.ts";
import { scoreTrial } from "../score/score_trial.ts";
import { playableWav, renderHtml } from "./html.ts";
import { renderMarkdown } from "./markdown.ts";
import { summarize } from "./summary.ts";
import { compareRuns } from "./compare.ts";

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

/** One llm-agent trial of air__a under the configuration `label` (hash `config`). */
function labelled(label: string, config: string, clean: boolean) {
  return scoreTrial(trialRecord({
    key: { scenario: "air__a", trial: 0, config_hash: config },
    label,
    suite: "air",
    clean_exit: clean,
    participants: { agent: { kind: "llm", model: "m-1" }, user: { kind: "scripted" } },
  }));
}

Deno.test("renderMarkdown() names the configuration, and lists several side by side", () => {
  const one = renderMarkdown(summarize([labelled("v1", "c1", true)]));
  ok(one.includes("Configuration: **v1** (config c1) · agent llm m-1, user scripted"), one);
  const two = renderMarkdown(summarize([labelled("v1", "c1", true), labelled("v2", "c2", false)]));
  ok(two.includes("### Configurations"), two);
  ok(two.includes("| **v1** (config c1) | agent llm m-1, user scripted | 1 | 1 | 100.0% (1/1) |"));
  ok(two.includes("| **v2** (config c2) |"));
  // Nothing pooled: a headline per configuration, and pass^k in one column each.
  ok(two.includes("- **v1** (config c1): **Success 100.0% (1/1)**"), two);
  ok(two.includes("- **v2** (config c2): **Success 0.0% (0/1)**"));
  ok(!two.includes("**Success 50.0%"), "no pooled headline");
  ok(
    two.includes(
      "| k | **v1** (config c1) | **v2** (config c2) |\n| --- | ---: | ---: |\n| 1 | 1.000 | 0.000 |",
    ),
  );
  ok(two.includes("| success rate | 100.0% (1/1) | 0.0% (0/1) |"));
  ok(!two.includes("pass^0"), "the per-suite header never says pass^0");
  ok(
    two.includes("| air | **v2** (config c2) | 1 | 1 | 0.0% (0/1) | 100.0% (1/1) | 0.000 (K=1) |"),
  );
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
  const one = renderHtml(summarize([labelled("v1", "c1", true)]), []);
  ok(one.includes(`<p class="config">v1 · agent llm m-1 · caller scripted</p>`), "header");
  ok(!one.includes(`id="configurations"`));
  const two = renderHtml(summarize([labelled("v1", "c1", true), labelled("v2", "c2", false)]), []);
  ok(two.includes(`<table id="configurations">`));
  ok(two.includes("<td>v1</td><td>c1</td>"), "one row per configuration");
  ok(two.includes("<td>v2</td><td>c2</td>"));
  ok(two.includes(`<th data-type="text" class="sortable">configuration</th>`));
  ok(
    two.includes(`<td data-v="v2" class="config">v2</td>`),
    "each scenario row names its configuration",
  );
  // Nothing pooled: a headline per configuration, a pass^k curve each, no pass^0 column.
  equal(two.split('<section class="config-headline">').length - 1, 2);
  equal(two.split('<polyline class="series config"').length - 1, 2);
  ok(!two.includes("pass^0"));
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
  equal(r.configurations[0]!.overall.simulated_clock_trials, 2);
  // Not every sample is 0 ms (a timer in the script), yet it is still the simulated clock.
  ok(renderHtml(r, []).includes("p50 ms (sim. clock)"));
  const real = summarize([scoreTrial({ ...trialRecord(), clock: "real" })]);
  equal(real.configurations[0]!.overall.simulated_clock_trials, 0);
  ok(!renderHtml(real, []).includes("sim. clock"));
});

Deno.test("renderMarkdown() says when the latencies are the simulated clock's", () => {
  const sim = scoreTrial({ ...trialRecord(), clock: "simulated" });
  ok(renderMarkdown(summarize([sim])).includes("Every call ran on the simulated clock"));
  ok(!renderMarkdown(summarize([scoreTrial(trialRecord())])).includes("simulated clock"));
});

/** Two suites of audio calls and one text call. */
function audioVerdicts() {
  const call = (scenario: string, trial: number, v2v: number[], ttfa: number, yields: number[]) =>
    scoreTrial(trialRecord({
      key: { scenario, trial },
      suite: scenario.split("__")[0]!,
      audio: audioBlock({
        turns: v2v.map((ms, i) => ({
          turn: 2 * i,
          v2v_ms: ms,
          ref_frame_ms: ms - 40,
          ref_segment_ms: ms + 260,
        })),
        ttfa_ms: ttfa,
        barge_ins: yields.map((ms) => ({ at_ms: 900, agent_turn: 0, yielded: true, yield_ms: ms })),
        wav: `audio/${scenario}__t${trial}__0123456789ab.wav`,
      }),
    }));
  return [
    call("air__a", 0, [310, 420], 150, [35]),
    call("air__a", 1, [330, 480], 170, []),
    call("shop__c", 0, [900, 1100], 260, [60, 75]),
    scoreTrial(trialRecord({ key: { scenario: "shop__text", trial: 0 }, suite: "shop" })),
  ];
}

Deno.test("renderMarkdown() shows audio p50/p90/p95 per suite and overall, naming each latency definition", () => {
  const md = renderMarkdown(summarize(audioVerdicts()));
  ok(md.includes("### Audio"), md);
  ok(md.includes("3 audio calls · 3 barge-ins, the agent yielded in 3."), md);
  ok(md.includes("- **voice-to-voice**: callbench's: the caller's last speech frame as sent"));
  ok(md.includes("- **reference live**: the reference's live latency"));
  ok(md.includes("- **reference post-hoc**: the reference's post-hoc latency"));
  // Overall v2v: 310 330 420 480 900 1100 -> p50 sorted[3], p90/p95 sorted[5].
  ok(md.includes("| overall | voice-to-voice | 6 | 480 | 1100 | 1100 | 1100 |"), md);
  ok(md.includes("| overall | reference live | 6 | 440 | 1060 | 1060 | 1060 |"), md);
  ok(md.includes("| overall | reference post-hoc | 6 | 740 | 1360 | 1360 | 1360 |"), md);
  ok(md.includes("| overall | time to first audio | 3 | 170 | 260 | 260 | 260 |"), md);
  ok(md.includes("| overall | barge-in yield | 3 | 60 | 75 | 75 | 75 |"), md);
  ok(md.includes("| air | voice-to-voice | 4 | 420 | 480 | 480 | 480 |"), md);
  ok(md.includes("| shop | time to first audio | 1 | 260 | 260 | 260 | 260 |"), md);
  ok(md.includes("| air | barge-in yield | 1 | 35 | 35 | 35 | 35 |"), md);
  // Text calls only: no audio section.
  ok(!renderMarkdown(report).includes("### Audio"));
});

Deno.test("renderHtml() has an audio card and table naming the latency definitions, and carries each recording", () => {
  const all = audioVerdicts();
  const html = renderHtml(summarize(all), all);
  ok(html.includes('<section id="audio"><h2>Audio (3 calls)</h2>'), "audio section");
  ok(
    html.includes('<div class="value">480 / 1100</div><div class="label">p50 / p95 voice-to-voice'),
  );
  ok(html.includes('<div class="value">170 / 260</div><div class="label">p50 / p95 time to first'));
  ok(html.includes('<div class="value">60 / 75</div><div class="label">p50 / p95 barge-in yield'));
  ok(
    html.includes(
      '<tr data-scope="air" data-metric="v2v"><td>air</td><td>voice-to-voice</td>' +
        "<td>4</td><td>420</td><td>480</td><td>480</td><td>480</td></tr>",
    ),
    "per-suite row",
  );
  ok(html.includes('<tr data-scope="overall" data-metric="ref_segment">'));
  ok(html.includes("<dt>reference live</dt><dd>the reference&#39;s live latency"));
  // The recordings ride along with the transcripts; the text call has none.
  const data = JSON.parse(
    html.match(/<script type="application\/json" id="transcripts">(.*?)<\/script>/s)![1]!,
  ) as { scenario: string; wav?: string }[];
  assertEquals(
    data.map((t) => t.wav ?? null),
    [
      "audio/air__a__t0__0123456789ab.wav",
      "audio/air__a__t1__0123456789ab.wav",
      "audio/shop__c__t0__0123456789ab.wav",
      null,
    ],
  );
  // Text calls only: no audio section.
  ok(!renderHtml(report, verdicts).includes('id="audio"'));
});

Deno.test("playableWav() links only relative paths inside the folder", () => {
  equal(playableWav("audio/a__t0__0123.wav"), "audio/a__t0__0123.wav");
  for (
    const bad of [
      "/etc/x.wav",
      "javascript:alert(1).wav",
      "../x.wav",
      "audio/../../x.wav",
      "a b.wav",
    ]
  ) {
    equal(playableWav(bad), undefined, bad);
  }
  equal(playableWav(undefined), undefined);
});

Deno.test("renderMarkdown() escapes scenario names, suites and labels: no raw HTML gets through", () => {
  const hostile = (label: string, config: string) =>
    scoreTrial(trialRecord({
      key: { scenario: "<script>alert(1)</script>", trial: 0, config_hash: config },
      label,
      suite: "<b>suite</b>",
      participants: {
        agent: { kind: "llm", model: "<iframe src=x>" },
        user: { kind: "scripted" },
      },
    }));
  for (
    const verdicts of [
      [hostile("<img src=x onerror=alert(1)>", "c1")],
      [hostile("<img src=x onerror=alert(1)>", "c1"), hostile("*v2*", "c2")],
    ]
  ) {
    const md = renderMarkdown(summarize(verdicts));
    for (const tag of ["<script", "<img", "<b>", "<iframe"]) {
      ok(!md.includes(tag), `${tag} in\n${md}`);
    }
    ok(md.includes("&lt;script&gt;alert(1)&lt;/script&gt;"), md);
    ok(md.includes("&lt;img src=x onerror=alert(1)&gt;"));
  }
  // Emphasis in a label is shown as typed, not rendered.
  ok(renderMarkdown(summarize([labelled("*v2*", "c2", true)])).includes("**\\*v2\\***"));
  // An underscore inside a name stays as it is.
  ok(renderMarkdown(summarize([labelled("v_1", "c1", true)])).includes("**v_1**"));
});

Deno.test("an audio agent given the caller's transcripts (--hints transcript) is said to be, in both formats", () => {
  const v = scoreTrial(trialRecord({
    key: { scenario: "air__a", trial: 0, config_hash: "c1" },
    suite: "air",
    participants: {
      agent: { kind: "remote", url: "ws://bot", settings: { framing: "json", transcripts: true } },
      user: { kind: "scripted" },
    },
  }));
  const md = renderMarkdown(summarize([v]));
  ok(md.includes("agent remote ws://bot (agent given transcripts), user scripted"), md);
  ok(renderHtml(summarize([v]), []).includes("ws://bot (agent given transcripts)"));
  ok(!renderMarkdown(summarize([labelled("v1", "c1", true)])).includes("transcripts"));
});

/** `trials` trials of 8 scenarios labelled `label`, passing or failing alike. */
function run(label: string, passed: boolean, trials = 2) {
  return Array.from({ length: 8 * trials }, (_, i) =>
    scoreTrial(trialRecord({
      key: { scenario: `air__s${i % 8}`, trial: Math.floor(i / 8), config_hash: `c-${label}` },
      label,
      suite: "air",
      clean_exit: passed,
    })));
}

Deno.test("a configuration significantly worse than the baseline is said to be, in the Markdown headline, its baseline line and the HTML", () => {
  const base = run("clean", true);
  const worse = run("noisy", false);
  const same = run("phone", true);
  const report = summarize([...base, ...worse, ...same]);
  report.baseline = {
    label: "clean",
    comparisons: [worse, same].map((b) => compareRuns(base, b, { names: ["clean", b[0]!.label!] })),
  };
  // 16 trial pairs passed only on clean: McNemar p = 2^-15, a regression after Holm; and
  // each of the 8 scenarios passed 2/2 before and 0/2 now.
  assertEquals(report.baseline.comparisons[0]!.regressions[0], {
    scope: "overall",
    metric: "success",
  });
  const md = renderMarkdown(report);
  ok(
    md.includes(
      "- **noisy** (config c-noisy): **Success 0.0% (0/16)** · task success 100.0% (16/16) · " +
        "8 scenarios, 16 trials · **▼ significantly worse than clean**\n",
    ),
    md,
  );
  ok(!/- \*\*phone\*\*.*worse/.test(md) && !/- \*\*clean\*\*.*worse/.test(md), md);
  ok(
    md.includes(
      "**noisy** − **clean**: **significantly worse**, 10 significant regression(s) " +
        "(success −100.0 pt, pass^2 −100.0 pt, 8 scenario(s) from every trial passing to none " +
        "(air__s0, air__s1, air__s2 and 5 more)), 8 scenario(s) changed",
    ),
    md,
  );
  ok(md.includes("**phone** − **clean**: no significant regression, 0 scenario(s) changed"), md);
  const html = renderHtml(report, [...base, ...worse, ...same]);
  ok(
    html.includes(
      '<h3>noisy against clean: <span class="worse">significantly worse</span>, 10 significant ' +
        "regression(s) (success −100.0 pt, pass^2 −100.0 pt, 8 scenario(s) from every trial " +
        "passing to none (air__s0, air__s1, air__s2 and 5 more)), 8 scenario(s) changed</h3>",
    ),
    html.slice(html.indexOf('id="baseline"'), html.indexOf('id="baseline"') + 600),
  );
  ok(
    html.includes("<h3>phone against clean: no significant regression, 0 scenario(s) changed</h3>"),
  );
  ok(html.includes('<tr class="regression"><td>success</td>'));
});

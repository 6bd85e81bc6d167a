/**
 * The HTML report's interaction plots for a run with two configurations, in headless
 * Chromium at 1400 and 800 px: histograms of response and yield latency with each
 * configuration's p50 and p95 marked where they are, the rates as bars of their mean
 * with the bootstrap interval as a whisker, one series per configuration, and nothing
 * overflowing sideways.
 *
 * Needs /usr/bin/chromium (`apt-get install -y chromium`); skipped when absent.
 * Permissions: `--allow-read --allow-write=/tmp --allow-run=/usr/bin/chromium`.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { trialRecord } from "../src/score/_trial_fixture.ts";
import { scoreTrial } from "../src/score/score_trial.ts";
import type { Verdict } from "../src/score/verdict.ts";
import type { InteractionMetrics } from "../src/score/interaction.ts";
import { summarize } from "../src/report/summary.ts";
import { renderHtml } from "../src/report/html.ts";
import { CHROMIUM, chromiumPresent, dumpDom, layoutOf } from "./_browser.ts";

const present = await chromiumPresent();
if (!present) {
  console.warn(`tests/report_html_interaction_test.ts: SKIPPED: ${CHROMIUM} not found`);
}

const LABELS = [
  "candidate-agent-with-a-long-configuration-label-for-the-release-branch",
  "baseline-agent-from-last-week",
];

/** Per configuration and scenario: response latencies, yield latencies, yield rate. */
const PLAN = [
  [
    { rl: [400, 800], yl: [300], yr: 1 },
    { rl: [1200], yl: [2500], yr: 0 },
    { rl: [1600, 2000], yl: [500, 700], yr: 1 },
  ],
  [
    { rl: [2400], yl: [], yr: null },
    { rl: [2800, 3200], yl: [1500], yr: 1 },
    { rl: [3600], yl: [3000], yr: 0 },
  ],
] as const;

function metrics(p: (typeof PLAN)[number][number]): InteractionMetrics {
  return {
    response_latency_ms: [...p.rl],
    turn_taking_scores: p.rl.map(() => 1),
    turn_taking_score: 1,
    interruptions: p.yl.length,
    yield_latency_ms: [...p.yl],
    yield_rate: p.yr,
    agent_interruptions_per_turn: 0,
    backchannel_selectivity: null,
    vocal_tic_selectivity: null,
    non_directed_selectivity: null,
    pause_selectivity: null,
    events: { backchannel: 0, filler: 0, side: 0, pause: 0 },
  };
}

function runs(): Verdict[] {
  return LABELS.flatMap((label, c) =>
    PLAN[c]!.map((p, i) => {
      const v = scoreTrial(trialRecord({
        key: { scenario: `eva_airline__call_${i}`, trial: 0, config_hash: `cfg${c}` },
        label,
        suite: "eva_airline",
      }));
      return { ...v, metrics: { ...v.metrics, interaction: metrics(p) } };
    })
  );
}

for (const width of [1400, 800]) {
  Deno.test({
    name: `at ${width} px the interaction plots of two configurations fit, one series each`,
    ignore: !present,
    async fn() {
      const dir = await Deno.makeTempDir({ prefix: "callbench_html_" });
      try {
        const all = runs();
        const html = renderHtml(summarize(all), all);
        const layout = await layoutOf(
          { width, height: 3000, profile: `${dir}/profile` },
          html,
          `${dir}/probe.html`,
          ["#interaction svg.chart", "#interaction figure", "#interaction .legend-list li"],
        );
        ok(layout.scroll_width <= width, `the page is ${layout.scroll_width} px wide at ${width}`);
        equal(layout.boxes["#interaction svg.chart"]!.length, 3, "two histograms and the rates");
        for (
          const b of [
            ...layout.boxes["#interaction svg.chart"]!,
            ...layout.boxes["#interaction figure"]!,
            ...layout.boxes["#interaction .legend-list li"]!,
          ]
        ) {
          ok(b.right <= width, `ends at ${b.right} px: ${b.text.slice(0, 60)}`);
        }
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    },
  });
}

Deno.test({
  name:
    "the interaction plots mark each configuration's p50 and p95 and draw rates with their interval",
  ignore: !present,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "callbench_html_" });
    try {
      const all = runs();
      const report = summarize(all);
      const page = `${dir}/report.html`;
      await Deno.writeTextFile(page, renderHtml(report, all));
      const dom = await dumpDom({ width: 800, height: 2000, profile: `${dir}/profile` }, page);
      const svg = (id: string) => {
        const m = dom.match(new RegExp(`<svg id="${id}"[\\s\\S]*?</svg>`));
        ok(m, `no svg#${id}`);
        return m[0];
      };
      const rl = svg("response-latency-histogram");
      // Each configuration's bars, in its own series.
      for (const label of LABELS) ok(rl.includes(`class="bar" data-config="${label}"`), label);
      // p50 and p95 as the report's rule gives them (sorted[floor(n · q)]), in the
      // report's order of configurations (by label): the baseline's 2400 2800 3200 3600
      // -> 3200 and 3600; the candidate's 400 800 1200 1600 2000 -> 1200 and 2000.
      const marks = [...rl.matchAll(/<title>([^<]+) (p50|p95) (\d+) ms<\/title>/g)].map((m) => [
        m[1],
        m[2],
        Number(m[3]),
      ]);
      deepEqual(marks, [
        [LABELS[1], "p50", 3200],
        [LABELS[1], "p95", 3600],
        [LABELS[0], "p50", 1200],
        [LABELS[0], "p95", 2000],
      ]);
      // A mark sits where its value is on the axis (44 px to 424 px over 0 to the end).
      const end = Number(
        rl.match(/text-anchor="middle">(\d+)<\/text><text class="tick" x="38"/)![1],
      );
      const x = Number(
        rl.match(/data-mark="p50" data-config="[^"]+" style="[^"]+" x1="([\d.]+)"/)![1],
      );
      ok(Math.abs(x - (44 + (3200 / end) * 380)) <= 0.1, `p50 at ${x} px, axis to ${end} ms`);
      ok(svg("yield-latency-histogram").includes('data-mark="p95"'));

      // Rates: the bar is the mean, the whisker the bootstrap interval (0 to 1 over 246 px).
      const rates = svg("interaction-rates");
      const yr = report.configurations.find((c) => c.label === LABELS[0])!.overall.interaction!
        .yield_rate;
      equal(yr.mean, 0.667);
      const bar = rates.match(
        new RegExp(`data-metric="yield_rate" data-config="${LABELS[0]}"[^>]* width="([\\d.]+)"`),
      );
      ok(bar, rates.slice(0, 800));
      ok(Math.abs(Number(bar[1]) - 0.667 * 246) <= 0.1, `bar ${bar[1]} px`);
      ok(yr.ci95, "an interval over three scenarios");
      const whisker = rates.match(
        new RegExp(
          `<g class="whisker" data-metric="yield_rate" data-config="${
            LABELS[0]
          }"><line x1="([\\d.]+)" x2="([\\d.]+)"`,
        ),
      );
      ok(whisker, "the interval's whisker");
      ok(Math.abs(Number(whisker[1]) - (150 + yr.ci95[0] * 246)) <= 0.1);
      ok(Math.abs(Number(whisker[2]) - (150 + yr.ci95[1] * 246)) <= 0.1);
      // Rates nobody measured are not drawn.
      ok(!rates.includes('data-metric="backchannel_selectivity"'));
      ok(rates.includes(`data-metric="turn_taking_score" data-config="${LABELS[1]}"`));
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

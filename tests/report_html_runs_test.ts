/**
 * The HTML report of a run with two configurations, a flow suite and an audio suite, in
 * headless Chromium: at 1400 and 800 px nothing overflows sideways (long names and
 * labels wrap), the pass^k chart draws one curve per configuration, the headline is
 * each configuration's, and a transcript shows keys, the flow path, the voicemail beep,
 * barge-ins on the recording's timeline, why the trial failed (the state diff beside
 * the tool calls), and folds long tool results.
 *
 * Needs /usr/bin/chromium (`apt-get install -y chromium`); skipped when absent.
 * Permissions: `--allow-read --allow-write=/tmp --allow-run=/usr/bin/chromium`.
 */
import { equal, ok } from "node:assert/strict";
import { audioBlock, trialRecord } from "../src/score/_trial_fixture.ts";
import { scoreTrial } from "../src/score/score_trial.ts";
import type { Verdict } from "../src/score/verdict.ts";
import { summarize } from "../src/report/summary.ts";
import { renderHtml } from "../src/report/html.ts";
import { CHROMIUM, chromiumPresent, dumpDom, layoutOf } from "./_browser.ts";

const present = await chromiumPresent();
if (!present) console.warn(`tests/report_html_runs_test.ts: SKIPPED: ${CHROMIUM} not found`);

const LONG = "tau2_telecom__mms_issue__airplane_mode_on__bad_network_preference__" +
  "bad_wifi_calling__break_apn_mms_setting__break_app_sms_permission__hard";
const LABELS = [
  "candidate-agent-gpt-with-a-very-long-configuration-label-for-the-release-branch",
  "baseline-agent-from-last-week-with-an-equally-long-label",
];

/** Two configurations × (a tau2 suite, a flow suite, an audio suite) × 2 trials. */
function runs(): Verdict[] {
  const out: Verdict[] = [];
  LABELS.forEach((label, c) => {
    for (let trial = 0; trial < 2; trial++) {
      const key = (scenario: string) => ({ scenario, trial, config_hash: `cfg${c}` });
      // The world is wrong in the second configuration: the verdict carries the diff.
      const wrong = c === 1;
      out.push(scoreTrial(trialRecord({
        key: key(LONG),
        label,
        suite: "tau2_telecom",
        domain: "tau2_telecom",
        final: {
          db_sha256: wrong ? "d".repeat(64) : "e".repeat(64),
          ...(wrong
            ? {
              db_diff: {
                total: 1,
                entries: [{
                  path: "lines.L1001.status",
                  kind: "changed",
                  expected: '"active"',
                  actual: '"suspended"',
                }],
              },
            }
            : {}),
        },
        expect: { db_sha256: "e".repeat(64), success_signals: ["db_state_match", "clean_exit"] },
        tool_calls: [{
          side: "agent",
          name: "get_details_by_id",
          arguments: { id: "L1001" },
          result: { plan: "x".repeat(1200) },
          ok: true,
          at_ms: 2_500,
        }],
      })));
      out.push(scoreTrial(trialRecord({
        key: key("flow__pharmacy_refill_menu_with_a_hold_and_voicemail"),
        label,
        suite: "flow",
        domain: "flow",
        dtmf: [{ side: "agent", keys: "2#", at_ms: 2_000 }],
        flow: {
          start: "menu",
          nodes: [{ name: "menu", at_ms: 0 }, { name: "hold", at_ms: 2_100 }, {
            name: "voicemail_box",
            at_ms: 6_000,
          }],
          keys: [{ keys: "2#", at_ms: 2_000, node: "menu" }],
          voicemail: {
            beep: true,
            silence_wait_s: 3,
            menu: false,
            takes: [{ transcript: "hi", start_ms: 6_500, end_ms: 7_000 }],
            outcome: "sent",
          },
          end: { node: "livekit/voicemail", reason: "voicemail_done", at_ms: 7_200 },
        },
      })));
      out.push(scoreTrial(trialRecord({
        key: key("eva_airline__audio_rebooking_with_barge_in"),
        label,
        suite: "eva_airline",
        domain: "eva_airline",
        duration_ms: 9_000,
        audio: audioBlock({
          turns: [
            { turn: 0, v2v_ms: 500 + 100 * trial + 50 * c, ref_frame_ms: 450, ref_segment_ms: 800 },
            { turn: 2, v2v_ms: 900 + 40 * c, ref_frame_ms: 700, ref_segment_ms: 1000 },
          ],
          barge_ins: [{ at_ms: 4_500, agent_turn: 2, yielded: true, yield_ms: 60 }],
          tones: [{ side: "user", kind: "beep", at_ms: 3_000, sent: "beep", heard: "beep" }],
        }),
      })));
    }
  });
  return out;
}

for (const width of [1400, 800]) {
  Deno.test({
    name: `at ${width} px the report of two configurations, a flow and an audio suite fits`,
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
          ["#pass-k-chart polyline.config", ".config-headline", "table", "svg.chart"],
        );
        ok(
          layout.scroll_width <= width,
          `the page is ${layout.scroll_width} px wide in a ${width} px window`,
        );
        for (const t of layout.boxes["table"]!) {
          ok(t.right <= width, `a table ends at ${t.right} px: ${t.text.slice(0, 60)}`);
        }
        for (const s of layout.boxes["svg.chart"]!) {
          ok(s.right <= width, `a chart ends at ${s.right}`);
        }
        equal(layout.boxes["#pass-k-chart polyline.config"]!.length, 2, "one curve each");
        equal(layout.boxes[".config-headline"]!.length, 2, "one headline each");
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    },
  });
}

Deno.test({
  name:
    "the transcript shows keys, the flow path, beeps, barge-ins on the timeline and why it failed",
  ignore: !present,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "callbench_html_" });
    try {
      const all = runs();
      const report = summarize(all);
      const html = renderHtml(report, all);
      const open = (scenario: string, config: string) =>
        `[...document.querySelectorAll("#scenario-table tr")].find((r) =>
          r.cells[0]?.dataset.v === ${JSON.stringify(scenario)} &&
          r.cells[1]?.textContent.includes(${JSON.stringify(config)}))
          .querySelector("button.trial").click();
         document.body.append(Object.assign(document.createElement("pre"),
           { id: "seen-" + ${JSON.stringify(scenario.slice(0, 4))},
             textContent: document.getElementById("transcript").innerHTML }));`;
      const page = `${dir}/driven.html`;
      await Deno.writeTextFile(
        page,
        html.replace(
          "</body>",
          `<script>${open("flow__pharmacy_refill_menu_with_a_hold_and_voicemail", LABELS[0]!)}
          ${open(LONG, LABELS[1]!)}
          ${open("eva_airline__audio_rebooking_with_barge_in", LABELS[0]!)}</script></body>`,
        ),
      );
      const dom = await dumpDom({ width: 800, height: 1400, profile: `${dir}/profile` }, page);
      const seen = (id: string) => {
        const m = dom.match(new RegExp(`<pre id="seen-${id}">([\\s\\S]*?)</pre>`));
        ok(m, `no transcript for ${id}`);
        return m[1]!;
      };
      const flow = seen("flow");
      ok(flow.includes("agent keys") && flow.includes("2#"), "the keys pressed");
      ok(flow.includes("flow node") && flow.includes("hold"), "the flow path, the hold among it");
      ok(flow.includes("voicemail box with a beep: sent"), "the voicemail beep");
      ok(flow.includes("livekit/voicemail (voicemail_done)"), "where the flow ended");
      const tau2 = seen("tau2");
      ok(tau2.includes("db_state_match"), tau2.slice(0, 400));
      ok(
        tau2.includes("lines.L1001.status: expected &amp;quot;active&amp;quot;, got") ||
          tau2.includes('lines.L1001.status: expected "active", got "suspended"'),
        tau2.slice(0, 800),
      );
      ok(
        /<details class="long"><summary>→ \{/.test(
          tau2.replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&quot;", '"'),
        ),
        "a long result folds",
      );
      const audio = seen("eva_").replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll(
        "&quot;",
        '"',
      );
      ok(
        /<div class="timeline"><button type="button" class="barge" title="barge-in at 4.5s/.test(
          audio,
        ),
        audio.slice(0, 600),
      );
      ok(
        audio.includes(`style="left: 50%;"`),
        audio.slice(audio.indexOf("timeline"), audio.indexOf("timeline") + 300),
      );
      ok(audio.includes("user beep"), "the caller's beep");
      // The voice figures are plotted, p50 and p95 marked.
      ok(/<svg id="v2v-histogram"[\s\S]*data-mark="p50"[\s\S]*data-mark="p95"/.test(dom));
      ok(/<svg id="ttfa-histogram"/.test(dom));
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

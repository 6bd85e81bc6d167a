/**
 * The HTML report's scenario table in headless Chromium at 800 px: the scenarios that
 * need a look come first (regressed against the baseline, then failed), and a long
 * scenario name wraps only after an underscore, never inside a word.
 *
 * Needs /usr/bin/chromium; skipped with a message when it is absent. Permissions:
 * `--allow-read --allow-write=/tmp --allow-run=/usr/bin/chromium`.
 */
import { deepEqual as assertEquals, ok } from "node:assert/strict";
import { trialRecord } from "../src/score/_trial_fixture.ts";
import { scoreTrial } from "../src/score/score_trial.ts";
import { summarize } from "../src/report/summary.ts";
import { renderHtml } from "../src/report/html.ts";
import { compareRuns } from "../src/report/compare.ts";
import { CHROMIUM, chromiumPresent, dumpDom } from "./_browser.ts";

const present = await chromiumPresent();
if (!present) console.warn(`tests/report_html_order_test.ts: SKIPPED: ${CHROMIUM} not found`);

const NAMES = [
  "air__alpha_booking_change_with_a_rather_long_descriptive_name_one",
  "air__beta_cancellation_and_refund_with_a_long_descriptive_name_two",
  "air__gamma_seat_assignment_and_baggage_with_a_long_name_three",
];

/** `label`'s trials: 2 of each scenario, passing unless `fails` says otherwise. */
function run(label: string, fails: (s: string) => boolean) {
  return NAMES.flatMap((scenario) =>
    [0, 1].map((trial) =>
      scoreTrial(trialRecord({
        key: { scenario, trial, config_hash: `c-${label}` },
        label,
        suite: "air",
        clean_exit: !fails(scenario),
      }))
    )
  );
}

Deno.test({
  name:
    "HTML report at 800 px: regressed and failed scenarios first, names wrap only after an underscore",
  ignore: !present,
  fn: async () => {
    const base = run("v1", (s) => s === NAMES[1]);
    const next = run("v2", (s) => s === NAMES[1] || s === NAMES[2]);
    const report = summarize([...base, ...next]);
    report.baseline = {
      label: "v1",
      comparisons: [compareRuns(base, next, { names: ["v1", "v2"] })],
    };
    const probe = `<script>(() => {
      const rows = [...document.querySelectorAll("#scenario-table tbody tr")].map((tr) => {
        const td = tr.querySelector("td.name");
        // Where the name's lines break: the character before each new line.
        const breaks = [];
        let top = null, prev = "";
        const walker = document.createTreeWalker(td, NodeFilter.SHOW_TEXT);
        for (let n = walker.nextNode(); n; n = walker.nextNode()) {
          for (let i = 0; i < n.length; i++) {
            const r = document.createRange();
            r.setStart(n, i); r.setEnd(n, i + 1);
            const t = r.getClientRects()[0]?.top;
            if (t === undefined) continue;
            if (top !== null && t > top + 1) breaks.push(prev);
            top = t; prev = n.data[i];
          }
        }
        return { name: td.dataset.v, config: tr.children[1].textContent, breaks };
      });
      const pre = document.createElement("pre");
      pre.id = "probe";
      pre.textContent = btoa(JSON.stringify({ rows, width: document.documentElement.scrollWidth }));
      document.body.append(pre);
    })();</script>`;
    const dir = await Deno.makeTempDir({ prefix: "callbench-html-order-" });
    try {
      const page = `${dir}/report.html`;
      Deno.writeTextFileSync(
        page,
        renderHtml(report, [...base, ...next]).replace("</body>", `${probe}</body>`),
      );
      const dom = await dumpDom({ width: 800, height: 1400, profile: `${dir}/profile` }, page);
      const m = dom.match(/<pre id="probe">([A-Za-z0-9+/=]+)<\/pre>/);
      ok(m, "the probe ran");
      const out = JSON.parse(atob(m[1]!)) as {
        rows: { name: string; config: string; breaks: string[] }[];
        width: number;
      };
      // gamma regressed in v2 (v1 passed it): first; beta fails in both: next; then the rest.
      assertEquals(
        out.rows.map((r) => `${r.name.split("__")[1]!.split("_")[0]} ${r.config}`),
        ["gamma v2", "beta v1", "beta v2", "alpha v1", "alpha v2", "gamma v1"],
      );
      ok(out.rows.some((r) => r.breaks.length > 0), "the long names wrap at 800 px");
      for (const r of out.rows) assertEquals(r.breaks.filter((c) => c !== "_"), [], r.name);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

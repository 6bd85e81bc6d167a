/**
 * The HTML report in a real headless browser: the page renders offline, its charts and
 * table are in the DOM, a trial button opens the transcript, a header click sorts the
 * table, and the screenshot is a real picture.
 *
 * Needs /usr/bin/chromium (CI: `apt-get install -y chromium`); skipped with a message
 * when it is absent. Permissions:
 * `--allow-read --allow-write=/tmp --allow-run=/usr/bin/chromium`.
 */
import { deepEqual as assertEquals, equal, ok } from "node:assert/strict";
import { trialRecord } from "../src/score/_trial_fixture.ts";
import { scoreTrial } from "../src/score/score_trial.ts";
import type { Verdict } from "../src/score/verdict.ts";
import { summarize } from "../src/report/summary.ts";
import { renderHtml } from "../src/report/html.ts";

const CHROMIUM = "/usr/bin/chromium";
const WIDTH = 1280;
const HEIGHT = 1400;

async function chromiumPresent(): Promise<boolean> {
  try {
    return (await Deno.stat(CHROMIUM)).isFile;
  } catch {
    return false;
  }
}

const present = await chromiumPresent();
if (!present) {
  console.warn(
    `tests/report_html_test.ts: SKIPPED: ${CHROMIUM} not found (apt-get install -y chromium)`,
  );
}

/** Three suites, four scenarios, three trials each, one infrastructure error. */
function verdicts(): Verdict[] {
  const out: Verdict[] = [];
  const plan: [string, boolean[]][] = [
    ["air__cancel", [true, true, true]],
    ["air__rebook", [true, false, true]],
    ["shop__return", [false, false, true]],
    ["tel__roaming", [false, false, false]],
  ];
  for (const [scenario, outcomes] of plan) {
    outcomes.forEach((success, trial) => {
      const suite = scenario.split("__")[0]!;
      const error = scenario === "tel__roaming" && trial === 2;
      out.push(scoreTrial(trialRecord({
        key: { scenario, trial },
        suite,
        domain: suite,
        clean_exit: success,
        stop_reason: success ? "agent_end" : "max_duration",
        latency: [
          { turn: 0, response_ms: 300 + 170 * trial + scenario.length * 20 },
          { turn: 2, response_ms: 500 + 90 * trial, ttft_ms: 200 },
        ],
        turns: [
          { speaker: "agent", text: `Hello, this is ${suite} support.`, start_ms: 0, end_ms: 1200 },
          {
            speaker: "user",
            text: `Trial ${trial} of ${scenario}, please.`,
            start_ms: 1500,
            end_ms: 3000,
          },
          { speaker: "agent", text: "All done. Goodbye.", start_ms: 3600, end_ms: 4800 },
        ],
        ...(error
          ? {
            status: "error" as const,
            error: { kind: "agent_timeout" as const, message: "no reply" },
          }
          : {}),
      })));
    });
  }
  return out;
}

async function chromium(
  args: string[],
  profile: string,
): Promise<{ stdout: string; code: number }> {
  const { code, stdout } = await new Deno.Command(CHROMIUM, {
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      `--user-data-dir=${profile}`,
      `--window-size=${WIDTH},${HEIGHT}`,
      ...args,
    ],
    stdout: "piped",
    stderr: "null",
  }).output();
  return { code, stdout: new TextDecoder().decode(stdout) };
}

/** The element with `id`, as text, from the start tag to its end tag. */
function element(dom: string, tag: string, id: string): string {
  const start = dom.indexOf(`<${tag} id="${id}"`);
  ok(start >= 0, `no <${tag} id="${id}"> in the DOM`);
  const end = dom.indexOf(`</${tag}>`, start);
  return dom.slice(start, end + tag.length + 3);
}

const count = (text: string, re: RegExp) => [...text.matchAll(re)].length;

Deno.test({
  name: "the HTML report renders headless with its charts, table and transcripts",
  ignore: !present,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "callbench_html_" });
    try {
      const all = verdicts();
      const report = summarize(all);
      const html = renderHtml(report, all);
      const page = `${dir}/report.html`;
      await Deno.writeTextFile(page, html);

      // The page as the browser built it, scripts run.
      const dump = await chromium(["--dump-dom", `file://${page}`], `${dir}/profile1`);
      equal(dump.code, 0);
      const dom = dump.stdout;
      const passK = element(dom, "svg", "pass-k-chart");
      equal(count(passK, /<circle class="point"/g), report.k_max);
      ok(passK.includes('<polyline class="series hat"'));
      const hist = element(dom, "svg", "latency-histogram");
      equal(count(hist, /<rect class="bar"/g), report.latency_histogram!.counts.length);
      const bars = element(dom, "svg", "suite-success");
      assertEquals(
        [...bars.matchAll(/data-suite="([^"]+)"/g)].map((m) => m[1]),
        ["air", "shop", "tel"],
      );
      const table = element(dom, "table", "scenario-table");
      equal(count(table, /<tr>/g), 1 + 4, "a header row and one row per scenario");
      equal(count(table, /<button class="trial /g), 12);
      equal(count(table, /class="trial error"/g), 1);

      // Click a trial and sort by success rate, inside the browser.
      const driven = `${dir}/driven.html`;
      await Deno.writeTextFile(
        driven,
        html.replace(
          "</body>",
          `<script>
            document.querySelector('button.trial[data-i="4"]').click();
            const rate = [...document.querySelectorAll("#scenario-table th")]
              .find((th) => th.textContent === "rate");
            rate.click(); rate.click();
          </script></body>`,
        ),
      );
      const after = (await chromium(["--dump-dom", `file://${driven}`], `${dir}/profile2`)).stdout;
      const dialog = element(after, "dialog", "transcript");
      ok(/<dialog id="transcript" open=""/.test(dialog), "the transcript dialog is open");
      ok(dialog.includes("air__rebook · trial 1"), dialog);
      equal(count(dialog, /<li class="(agent|user)">/g), 3);
      ok(dialog.includes("Trial 1 of air__rebook, please."));
      const sorted = element(after, "table", "scenario-table");
      const order = [...sorted.matchAll(/<tr><td data-v="([^"]+)"/g)].map((m) => m[1]);
      assertEquals(order, ["air__cancel", "air__rebook", "shop__return", "tel__roaming"]);
      ok(sorted.includes('aria-sort="descending"'));

      // A screenshot: a PNG of the window's size with real content in it.
      const png = `${dir}/report.png`;
      const shot = await chromium([`--screenshot=${png}`, `file://${page}`], `${dir}/profile3`);
      equal(shot.code, 0);
      const bytes = await Deno.readFile(png);
      assertEquals([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
      const view = new DataView(bytes.buffer, bytes.byteOffset);
      assertEquals([view.getUint32(16), view.getUint32(20)], [WIDTH, HEIGHT]);
      ok(bytes.length > 30_000, `the screenshot is only ${bytes.length} bytes`);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

/**
 * The HTML report in a real headless browser: the page renders offline, its charts and
 * table are in the DOM, a trial button opens the transcript (tool calls included, as
 * text), a header click sorts the table, and at 1400 and 800 px wide every column of the
 * scenario table is laid out inside the window (long names wrap) and drawn there.
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
import {
  CHROMIUM,
  chromium as runChromium,
  chromiumPresent,
  darkPixels,
  decodePng,
  dumpDom,
  layoutOf,
  screenshot,
} from "./_browser.ts";

const WIDTH = 1280;
const HEIGHT = 1400;

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

function chromium(args: string[], profile: string) {
  return runChromium({ width: WIDTH, height: HEIGHT, profile }, args);
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
      equal(count(passK, /<circle class="point"/g), report.configurations[0]!.k_max);
      ok(passK.includes('<polyline class="series hat"'));
      const hist = element(dom, "svg", "latency-histogram");
      equal(
        count(hist, /<rect class="bar"/g),
        report.configurations[0]!.latency_histogram!.counts.length,
      );
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

/** A telecom-shaped name of 238 characters: no space to break at, as the real ones. */
const LONG_NAME = ("tel__mms_issue__" +
  "airplane_mode_on__bad_network_preference__bad_wifi_calling__break_apn_mms_setting__".repeat(3))
  .slice(0, 232) + "__hard";

/** Hostile text in a tool call: it must reach the page as text, never as markup. */
const HOSTILE = `</script><img id="injected" src=x onerror="document.title='owned'">`;

/**
 * Scenarios with long names and tool calls; `trials` per scenario; `simulated`: every
 * response at 0 ms, as on the simulated clock.
 */
function toolVerdicts(trials: number, simulated: boolean): Verdict[] {
  const out: Verdict[] = [];
  for (const scenario of [LONG_NAME, `${LONG_NAME.slice(0, 200)}__easy`, "air__cancel"]) {
    for (let trial = 0; trial < trials; trial++) {
      out.push(scoreTrial(trialRecord({
        key: { scenario, trial },
        suite: scenario.split("__")[0]!,
        domain: scenario.split("__")[0]!,
        clean_exit: trial !== 1,
        latency: [{ turn: 2, response_ms: simulated ? 0 : 420 + trial }],
        tool_calls: [
          {
            side: "agent",
            name: "get_line_details",
            arguments: { line_id: "L1001", note: HOSTILE },
            result: { status: "active", roaming: false },
            ok: true,
            at_ms: 2_500,
          },
          {
            side: "user",
            name: "toggle_airplane_mode",
            arguments: {},
            result: "phone is off the network",
            ok: false,
            at_ms: 4_200,
          },
        ],
      })));
    }
  }
  return out;
}

for (
  const [width, simulated] of [[1400, false], [800, false], [1400, true], [800, true]] as const
) {
  Deno.test({
    name: `at ${width} px a 238-character scenario name wraps and every column is in view${
      simulated ? " (simulated clock)" : ""
    }`,
    ignore: !present,
    async fn() {
      const dir = await Deno.makeTempDir({ prefix: "callbench_html_" });
      try {
        equal(LONG_NAME.length, 238);
        const all = toolVerdicts(3, simulated);
        const html = renderHtml(summarize(all), all);
        const window = { width, height: 2600, profile: `${dir}/profile1` };
        const layout = await layoutOf(window, html, `${dir}/probe.html`, [
          "#scenario-table th",
          "#scenario-table td.name",
        ]);
        equal(layout.viewport, width);
        ok(
          layout.scroll_width <= width,
          `the page is ${layout.scroll_width} px wide in a ${width} px window`,
        );
        const heads = layout.boxes["#scenario-table th"]!;
        equal(heads.length, 9);
        for (const th of heads) {
          ok(th.right <= width, `column "${th.text}" ends at ${th.right} px, past ${width}`);
          ok(th.width >= 30, `column "${th.text}" is only ${th.width} px wide`);
        }
        const name = layout.boxes["#scenario-table td.name"]!.find((b) => b.text === LONG_NAME)!;
        ok(name.height > 40, `the long name is on one line (${name.height} px high)`);
        ok(name.width < width / 2, `the name column takes ${name.width} of ${width} px`);

        // What the boxes say is what is drawn: each header's text is inside the picture.
        await Deno.writeTextFile(`${dir}/report.html`, html);
        const image = await decodePng(
          await screenshot(
            { ...window, profile: `${dir}/profile2` },
            `${dir}/report.html`,
            `${dir}/report.png`,
          ),
        );
        assertEquals([image.width, image.height], [width, 2600]);
        for (const th of heads) {
          ok(th.bottom <= image.height, `column "${th.text}" is below the screenshot`);
          ok(darkPixels(image, th) > 20, `column "${th.text}" has no text drawn in its box`);
        }
        ok(darkPixels(image, name) > 500, "the long name is drawn");
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    },
  });
}

Deno.test({
  name: "a transcript in the browser shows tool calls with arguments and results, as text",
  ignore: !present,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "callbench_html_" });
    try {
      const all = toolVerdicts(1, false);
      const html = renderHtml(summarize(all), all);
      const page = `${dir}/driven.html`;
      await Deno.writeTextFile(
        page,
        html.replace(
          "</body>",
          `<script>document.querySelector('button.trial[data-i="0"]').click();</script></body>`,
        ),
      );
      const dom = await dumpDom({ width: 1400, height: 1400, profile: `${dir}/profile` }, page);
      ok(!dom.includes('id="injected"'), "a tool argument became markup");
      ok(!/<title>owned/.test(dom), "a tool argument ran as script");
      const dialog = element(dom, "dialog", "transcript");
      ok(/<dialog id="transcript" open=""/.test(dialog), "the transcript dialog is open");
      const items = [...dialog.matchAll(/<li class="([^"]+)">/g)].map((m) => m[1]);
      // Interleaved by time: tool calls at 2.5 s and 4.2 s fall between the turns.
      assertEquals(items, ["agent", "user", "tool", "tool failed", "agent"]);
      ok(dialog.includes('<span class="who">agent tool</span>'), dialog);
      ok(dialog.includes("get_line_details("), dialog);
      ok(
        dialog.includes("&quot;line_id&quot;:&quot;L1001&quot;") ||
          dialog.includes('"line_id":"L1001"'),
      );
      ok(dialog.includes("&lt;/script&gt;&lt;img id="), "the hostile argument shows as text");
      ok(
        dialog.includes("→ {&quot;status&quot;:&quot;active&quot;") ||
          dialog.includes('→ {"status":"active"'),
      );
      ok(dialog.includes('<span class="who">user tool</span>'));
      ok(
        dialog.includes("→ error: &quot;phone is off the network&quot;") ||
          dialog.includes('→ error: "phone is off the network"'),
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("a verdict keeps a long tool result clipped, with a count of what was cut", () => {
  const [v] = [scoreTrial(trialRecord({
    tool_calls: [{
      side: "agent",
      name: "search",
      arguments: { q: "x" },
      result: "y".repeat(5000),
      ok: true,
      at_ms: 1,
    }],
  }))];
  const call = v!.tool_calls![0]!;
  equal(call.arguments, '{"q":"x"}');
  ok(call.result.startsWith(`"${"y".repeat(100)}`));
  ok(call.result.endsWith("… [3002 more characters]"), call.result.slice(-40));
  equal(call.result.length, 2000 + "… [3002 more characters]".length);
});

Deno.test({
  name: "one trial per scenario on the simulated clock: one pass^1 card, latency said simulated",
  ignore: !present,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "callbench_html_" });
    try {
      const all = toolVerdicts(1, true);
      const report = summarize(all);
      equal(report.configurations[0]!.k_max, 1);
      const page = `${dir}/report.html`;
      await Deno.writeTextFile(page, renderHtml(report, all));
      const dom = await dumpDom({ width: 800, height: 1400, profile: `${dir}/profile` }, page);
      const labels = [...dom.matchAll(/<div class="label">([^<]*)<\/div>/g)].map((m) => m[1]);
      equal(labels.filter((l) => l === "pass^1").length, 1, labels.join(", "));
      ok(!labels.some((l) => l === "pass^0"), labels.join(", "));
      const card = dom.slice(
        dom.lastIndexOf('<div class="card">', dom.indexOf("p50 / p95 response")),
      );
      ok(
        card.startsWith('<div class="card"><div class="value">simulated clock</div>'),
        card.slice(0, 200),
      );
      ok(card.includes("3 responses, all 0 ms: not a measured latency"), card.slice(0, 300));
      ok(dom.includes("Agent response latency (simulated clock: not a measured delay)"));
      ok(dom.includes(">p50 ms (sim. clock)</th>"));
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "with K > 1 and real latency the pass^K card and the ms figures stay",
  ignore: !present,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "callbench_html_" });
    try {
      const all = toolVerdicts(3, false);
      const page = `${dir}/report.html`;
      await Deno.writeTextFile(page, renderHtml(summarize(all), all));
      const dom = await dumpDom({ width: 1400, height: 1400, profile: `${dir}/profile` }, page);
      const labels = [...dom.matchAll(/<div class="label">([^<]*)<\/div>/g)].map((m) => m[1]);
      ok(labels.includes("pass^1") && labels.includes("pass^3"), labels.join(", "));
      ok(dom.includes('<div class="value">421 / 422</div>'), "p50 / p95 in ms");
      ok(!dom.includes("simulated"));
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

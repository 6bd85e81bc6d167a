/**
 * Holds in the HTML transcript, in headless Chromium: the flow callee's hold (a node of
 * `say` + `timeout` only, flows.md) is marked in its trace, becomes a `hold` event of the
 * verdict with its start and end, and the transcript shows it as its own line (start,
 * end, duration) and as a band on the recording's timeline beside the barge-in marks.
 *
 * Needs /usr/bin/chromium (`apt-get install -y chromium`); skipped when absent.
 * Permissions: `--allow-read --allow-write=/tmp --allow-run=/usr/bin/chromium`.
 */
import { equal, ok } from "node:assert/strict";
import { audioBlock, trialRecord } from "../src/score/_trial_fixture.ts";
import { scoreTrial } from "../src/score/score_trial.ts";
import { summarize } from "../src/report/summary.ts";
import { renderHtml } from "../src/report/html.ts";
import { flowScenario, simulateFlowCall, TimedAgent } from "../src/flow/_sim_call.ts";
import { textDurationMs } from "../src/speech/utterance.ts";
import { CHROMIUM, chromiumPresent, dumpDom } from "./_browser.ts";

const present = await chromiumPresent();
if (!present) console.warn(`tests/report_html_holds_test.ts: SKIPPED: ${CHROMIUM} not found`);

const HOLD = "Please hold.";
const nodes = {
  menu: {
    say: "Press 1 for the desk.",
    speaker: "MACHINE" as const,
    routes: [{ match: "1", to: "hold" }],
    timeout: { after_ms: 8000, to: "menu" },
  },
  hold: { say: HOLD, timeout: { after_ms: 4000, to: "desk" } },
  desk: { say: "Desk here.", then: "livekit/hangup" },
};

Deno.test({
  name:
    "a flow's hold is its own event, and the transcript shows it with its times and on the timeline",
  ignore: !present,
  async fn() {
    // The flow callee as it runs: the agent presses 1 once the menu has been said.
    const pressAt = textDurationMs(nodes.menu.say) + 200;
    const { trace } = await simulateFlowCall(
      flowScenario(nodes, "menu"),
      new TimedAgent([[pressAt, (l) => l.press("1")]]),
    );
    const hold = trace.nodes.find((n) => n.name === "hold")!;
    const desk = trace.nodes.find((n) => n.name === "desk")!;
    equal(hold.hold, true, "the hold is marked in the trace");
    equal(trace.nodes.find((n) => n.name === "menu")!.hold, undefined, "a menu is not a hold");
    // It lasts its prompt and the 4 s of silence, until the desk answers.
    equal(desk.at_ms - hold.at_ms, textDurationMs(HOLD) + 4000);

    const duration = trace.end.at_ms + 500;
    const verdict = scoreTrial(trialRecord({
      key: { scenario: "flow__desk_after_a_hold" },
      suite: "flow",
      domain: "flow",
      duration_ms: duration,
      flow: trace,
      audio: audioBlock({
        barge_ins: [{ at_ms: 1_000, agent_turn: 0, yielded: true, yield_ms: 60 }],
      }),
    }));
    const holds = (verdict.events ?? []).filter((e) => e.kind === "hold");
    equal(holds.length, 1);
    equal(holds[0]!.at_ms, hold.at_ms);
    equal(holds[0]!.end_ms, desk.at_ms);
    equal(holds[0]!.text, "hold");

    const dir = await Deno.makeTempDir({ prefix: "callbench_html_" });
    try {
      const html = renderHtml(summarize([verdict]), [verdict]);
      const page = `${dir}/driven.html`;
      await Deno.writeTextFile(
        page,
        html.replace(
          "</body>",
          `<script>document.querySelector("button.trial").click();
           document.body.append(Object.assign(document.createElement("pre"),
             { id: "seen", textContent: document.getElementById("transcript").innerHTML }));
          </script></body>`,
        ),
      );
      const dom = await dumpDom({ width: 800, height: 1400, profile: `${dir}/profile` }, page);
      const m = dom.match(/<pre id="seen">([\s\S]*?)<\/pre>/);
      ok(m, "no transcript");
      const seen = m[1]!.replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&quot;", '"');
      const secs = ((desk.at_ms - hold.at_ms) / 1000).toFixed(1);
      // Its own line: start–end and how long.
      ok(
        new RegExp(
          `<li class="event hold"><span class="who">hold</span><span class="t">[^<]+–[^<]+` +
            `</span>on hold at hold for ${secs.replace(".", "\\.")} s`,
        ).test(seen),
        seen.slice(0, 1500),
      );
      // On the timeline: a band from its start, as wide as its share of the call, beside
      // the barge-in's mark.
      const left = (100 * hold.at_ms / duration).toFixed(2);
      const width = (100 * (desk.at_ms - hold.at_ms) / duration).toFixed(2);
      const band = seen.match(
        /<button type="button" class="hold" title="hold [^"]+" style="([^"]+)">/,
      );
      ok(band, seen.slice(seen.indexOf("timeline"), seen.indexOf("timeline") + 600));
      const style = band[1]!;
      ok(style.includes(`left: ${Number(left)}%`), style);
      ok(style.includes(`width: ${Number(width)}%`), style);
      ok(/<div class="timeline">[\s\S]*class="barge"/.test(seen), "the barge-in mark is kept");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

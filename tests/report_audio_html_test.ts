/**
 * The HTML report of an audio run plays each trial's recording beside its transcript:
 * an audio trial (oracle and scripted caller on flite audio, simulated clock) is run
 * with an output folder, scored and reported, the page is written into that folder,
 * and headless Chromium opens the trial's transcript, finds the `<audio>` element and
 * loads the WAV it points at; a text trial's transcript has no player.
 *
 * Needs /usr/bin/chromium; skipped with a message when it is absent.
 */
import { equal, ok } from "node:assert/strict";
import { registerDomain } from "../src/domains/registry.ts";
import { counterDomain, counterScenario } from "../src/testing/counter_domain.ts";
import { DataRoot } from "../src/scenario/data_root.ts";
import { runTrials } from "../src/runner/runner.ts";
import { participantFactory } from "../src/participants/registry.ts";
import type { TrialRecord } from "../src/runner/trial_record.ts";
import { closeSpeech, defaultSpeechOptions } from "../src/speech/speech_options.ts";
import { scoreTrial } from "../src/score/score_trial.ts";
import { trialRecord } from "../src/score/_trial_fixture.ts";
import { summarize } from "../src/report/summary.ts";
import { renderHtml } from "../src/report/html.ts";
import { audioFileName } from "../src/runner/audio_metrics.ts";
import { CHROMIUM, chromium, chromiumPresent } from "./_browser.ts";

const present = await chromiumPresent();
if (!present) {
  console.warn(`tests/report_audio_html_test.ts: SKIPPED: ${CHROMIUM} not found`);
}

/** Opens transcript `i` once the page has run; the player's state lands on `<body>`. */
const OPEN_AND_LOAD = (i: number) =>
  `<script>
  document.querySelector('button.trial[data-i="${i}"]').click();
  const a = document.querySelector("#transcript-audio audio");
  document.body.dataset.players = String(document.querySelectorAll("#transcript-audio audio").length);
  if (a) {
    document.body.dataset.resolved = a.src;
    a.addEventListener("loadedmetadata", () => { document.body.dataset.duration = String(a.duration); });
    a.addEventListener("error", () => { document.body.dataset.error = String(a.error && a.error.code); });
  }
</script></body>`;

Deno.test({
  name:
    "the HTML report written into the run folder plays each audio trial's recording beside its transcript",
  ignore: !present,
  async fn() {
    registerDomain(counterDomain);
    const dir = await Deno.makeTempDir({ prefix: "callbench_audio_html_" });
    try {
      const s = counterScenario();
      const records: TrialRecord[] = [];
      await runTrials({
        scenarios: [s],
        root: new DataRoot(Deno.cwd()),
        participants: participantFactory({
          agent: "oracle",
          user: "scripted",
          agentModel: {},
          userModel: {},
        }),
        configHash: "cfg",
        trials: 1,
        concurrency: 1,
        out: dir,
        limits: { silenceMs: 30_000, maxTurns: 200 },
        speech: defaultSpeechOptions(),
        onRecord: (r) => void records.push(r),
      });
      const record = records[0]!;
      equal(record.status, "completed", record.error?.message);
      const wav = record.audio!.wav!;
      // The record's path is the trial key's recording name under audio/.
      equal(wav, `audio/${audioFileName(record.key)}`);
      const audioVerdict = scoreTrial(record);
      equal(audioVerdict.metrics.audio!.wav, wav);
      const textVerdict = scoreTrial(trialRecord({ key: { scenario: "zz__text", trial: 0 } }));
      const verdicts = [audioVerdict, textVerdict];
      const html = renderHtml(summarize(verdicts), verdicts);
      ok(html.includes('<section id="audio">'), "the audio section");

      const page = `${dir}/report.html`;
      await Deno.writeTextFile(page, html.replace("</body>", OPEN_AND_LOAD(0)));
      const run = await chromium({ width: 1200, height: 900, profile: `${dir}/profile1` }, [
        "--virtual-time-budget=5000",
        "--dump-dom",
        `file://${page}`,
      ]);
      equal(run.code, 0);
      const dom = run.stdout;
      const body = dom.match(/<body([^>]*)>/)![1]!;
      ok(body.includes('data-players="1"'), body);
      ok(
        dom.includes(
          `<div id="transcript-audio"><audio controls="" preload="metadata" src="${wav}"></audio></div>`,
        ),
        dom.slice(dom.indexOf('<dialog id="transcript"'), dom.indexOf("</dialog>")),
      );
      // Beside the transcript: the player and the turns are in the same open dialog.
      ok(
        /<dialog id="transcript" open="">[\s\S]*transcript-audio[\s\S]*<li class="agent">/.test(
          dom,
        ),
      );
      ok(body.includes(`data-resolved="file://${dir}/${wav}"`), body);
      ok(!body.includes("data-error"), `the recording did not load: ${body}`);
      const duration = Number(body.match(/data-duration="([0-9.]+)"/)?.[1]);
      ok(
        Math.abs(duration - record.duration_ms / 1000) < 0.1,
        `the player reads ${duration} s, the call lasted ${record.duration_ms} ms`,
      );

      // The text trial: its transcript opens without a player.
      await Deno.writeTextFile(page, html.replace("</body>", OPEN_AND_LOAD(1)));
      const text = await chromium({ width: 1200, height: 900, profile: `${dir}/profile2` }, [
        "--dump-dom",
        `file://${page}`,
      ]);
      ok(text.stdout.includes('data-players="0"'), "a text trial has no recording");
      ok(text.stdout.includes('<div id="transcript-audio"></div>'));
    } finally {
      await closeSpeech();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

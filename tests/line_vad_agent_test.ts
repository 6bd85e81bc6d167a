/**
 * A noisy line degrades a VAD-driven agent, and `report --baseline` says so: the
 * sweep `eval --agent vad-oracle --audio --line clean,phone,noisy-cafe@5` through the
 * CLI with the task's permissions (bundled eva data, simulated clock), then `score` and
 * `report --baseline clean` as JSON, Markdown and HTML.
 *
 * What to expect follows from the agent's definition (src/participants/vad_oracle.ts):
 * its VAD takes a 20 ms frame at or above −45 dBFS for talk, and the caller's turn ends
 * only after 300 ms of frames below it. `noisy-cafe@5` sits 5 dB under the caller's
 * speech (set to −26 dBFS), and its quietest 20 ms anywhere in the bed's loops is still
 * above −45 dBFS (checked here on the beds themselves), so the agent never hears a turn
 * end: it never answers the caller's opening, does nothing, and every call stops on the
 * silence limit: success 100% on clean, 0% on the noisy line. On clean and `phone`
 * (no noise) it answers every turn 500 to 820 ms after the caller's words end (the reply
 * delay, plus at most the hangover and one frame) and succeeds as the oracle does.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { cli } from "./_cli.ts";
import { noiseBed } from "../src/audio/line/beds.ts";
import { BED_VARIANTS } from "../src/audio/line/beds.ts";
import { NOMINAL_SPEECH_DBFS } from "../src/audio/line/line.ts";
import {
  HANGOVER_MS,
  REPLY_MS,
  VAD_FRAME_MS,
  VOICED_DBFS,
} from "../src/participants/vad_oracle.ts";

const RATE = 16000;
const TRIALS = 3;
const SCENARIOS = 4;

/** The quietest 20 ms (any start, the loop wrapping) of a bed at `snrDb` under the speech, dBFS. */
function quietestFrameDbfs(bed: "noisy-cafe", snrDb: number): number {
  const n = (RATE * VAD_FRAME_MS) / 1000;
  let min = Infinity;
  for (let v = 0; v < BED_VARIANTS; v++) {
    const x = noiseBed(bed, RATE, v);
    let sum = 0;
    for (let i = 0; i < n; i++) sum += x[i]! * x[i]!;
    for (let s = 0; s < x.length; s++) {
      min = Math.min(min, sum / n);
      const out = x[s]!;
      const inn = x[(s + n) % x.length]!;
      sum += inn * inn - out * out;
    }
  }
  // The bed's mean power is 1; the line sets that snrDb below the speech's nominal level.
  return NOMINAL_SPEECH_DBFS - snrDb + 10 * Math.log10(min);
}

interface Metric {
  metric: string;
  a: number | null;
  b: number | null;
  delta: number | null;
  ci95: [number, number] | null;
  test: string;
  p: number | null;
  p_holm: number | null;
  significant: boolean;
  change: string;
}

Deno.test("a noisy line degrades the VAD-driven vad-oracle (success 100% to 0%), report --baseline clean marks it significantly worse, and phone is no worse", async () => {
  // The prediction, from the bed: never 300 ms (not even 20 ms) below the VAD's threshold
  // (its quietest 20 ms is at −41.4 dBFS).
  const quietest = quietestFrameDbfs("noisy-cafe", 5);
  assert.ok(quietest > VOICED_DBFS + 2, `noisy-cafe@5's quietest 20 ms: ${quietest} dBFS`);

  const dir = await Deno.makeTempDir({ prefix: "callbench-vad-line-" });
  try {
    const out = join(dir, "run");
    const ev = await cli([
      "eval",
      "--domain",
      "eva_airline",
      "--agent",
      "vad-oracle",
      "--audio",
      "--line",
      "clean,phone,noisy-cafe@5",
      "--trials",
      String(TRIALS),
      "--out",
      out,
    ]);
    assert.equal(ev.code, 0, ev.stderr);
    const records = ev.stdout.trim().split("\n").map((l) => JSON.parse(l));
    assert.equal(records.length, 3 * SCENARIOS * TRIALS);
    const byLabel = Map.groupBy(records, (r) => r.label as string);
    for (const [label, rs] of byLabel) {
      for (const r of rs) {
        assert.equal(r.status, "completed", `${label}: ${JSON.stringify(r.error)}`);
        assert.equal(r.participants.agent.kind, "vad-oracle");
        assert.equal(r.audio.sample_rate, RATE, "the rate the prediction was made at");
        assert.equal(r.audio.line?.preset ?? "clean", label);
        const turns = r.turns as { speaker: string; start_ms: number; end_ms: number }[];
        const answers = turns.flatMap((t, i) =>
          t.speaker === "agent" && turns[i - 1]?.speaker === "user"
            ? [t.start_ms - turns[i - 1]!.end_ms]
            : []
        );
        if (label === "noisy-cafe@5") {
          // The greeting, the caller's opening, then 30 s the agent hears as the caller talking.
          assert.equal(r.stop_reason, "silence", label);
          assert.deepEqual(turns.map((t) => t.speaker), ["agent", "user"], label);
          assert.deepEqual(answers, []);
          assert.deepEqual(r.tool_calls, []);
        } else {
          assert.ok(["agent_end", "agent_transfer"].includes(r.stop_reason), r.stop_reason);
          for (const a of answers) {
            assert.ok(a >= REPLY_MS && a < REPLY_MS + HANGOVER_MS + VAD_FRAME_MS, `${label}: ${a}`);
          }
        }
      }
    }

    const scored = await cli(["score", join(out, "trials.jsonl")]);
    assert.equal(scored.code, 0, scored.stderr);
    const rep = await cli(["report", "--baseline", "clean"], scored.stdout);
    assert.equal(rep.code, 0, rep.stderr);
    const report = JSON.parse(rep.stdout);
    const rate = (label: string) =>
      report.configurations.find((c: { label: string }) => c.label === label).overall.success
        .rate;
    assert.deepEqual([rate("clean"), rate("phone"), rate("noisy-cafe@5")], [1, 1, 0]);

    const comparisons = report.baseline.comparisons as {
      b: { name: string };
      scopes: { scope: string; metrics: Metric[] }[];
      regressions: { scope: string; metric: string }[];
      flips: { scenario: string; direction: string; a: unknown; b: unknown }[];
    }[];
    const against = (name: string) => {
      const c = comparisons.find((x) => x.b.name === name)!;
      const metrics = c.scopes.find((s) => s.scope === "overall")!.metrics;
      return { c, metric: (m: string) => metrics.find((x) => x.metric === m)! };
    };

    // (a, b) The noisy line: success −100 pt on every trial, McNemar's exact p over the
    // 12 discordant pairs is 2 · 2^−12, significant after Holm-Bonferroni: a regression.
    const noisy = against("noisy-cafe@5");
    const success = noisy.metric("success");
    assert.deepEqual(
      [success.a, success.b, success.delta, success.ci95, success.test],
      [1, 0, -1, [-1, -1], "mcnemar"],
    );
    assert.ok(Math.abs(success.p! - 2 * 0.5 ** (SCENARIOS * TRIALS)) < 1e-12, String(success.p));
    assert.ok(success.p_holm !== null && success.p_holm < 0.05, String(success.p_holm));
    assert.equal(success.significant, true);
    assert.equal(success.change, "regression");
    // pass^K's exact test has only the 4 scenarios: p = 2 · 2^−4, not significant; the gate's
    // scenario rule names each scenario that went from 3/3 to 0/3 instead.
    for (let k = 1; k <= TRIALS; k++) {
      const m = noisy.metric(`pass^${k}`);
      assert.deepEqual([m.a, m.b, m.delta, m.change], [1, 0, -1, "none"], `pass^${k}`);
    }
    assert.ok(noisy.c.regressions.some((r) => r.scope === "overall" && r.metric === "success"));
    assert.equal(noisy.c.regressions.filter((r) => r.metric === "scenario").length, SCENARIOS);
    assert.equal(noisy.c.flips.length, SCENARIOS);
    for (const f of noisy.c.flips) {
      assert.equal(f.direction, "regressed");
      assert.deepEqual([f.a, f.b], [{ passed: TRIALS, scored: TRIALS }, {
        passed: 0,
        scored: TRIALS,
      }]);
    }

    // (c) The control: phone (no noise) is no worse than clean.
    const phone = against("phone");
    assert.deepEqual(phone.c.regressions, []);
    const same = phone.metric("success");
    assert.deepEqual([same.a, same.b, same.delta, same.p], [1, 1, 0, 1]);
    for (const m of phone.c.scopes.flatMap((s) => s.metrics)) {
      assert.notEqual(m.change, "regression", m.metric);
    }

    // The Markdown and HTML say which line is worse than clean, and how.
    const md = await cli(["report", "--baseline", "clean", "--format", "md"], scored.stdout);
    assert.equal(md.code, 0, md.stderr);
    assert.match(
      md.stdout,
      /- \*\*noisy-cafe@5\*\* \(config \w+\): \*\*Success 0\.0% \(0\/12\)\*\*.* · \*\*▼ significantly worse than clean\*\*\n/,
    );
    assert.doesNotMatch(md.stdout, /- \*\*phone\*\* .*worse than/);
    assert.match(
      md.stdout,
      /\*\*noisy-cafe@5\*\* − \*\*clean\*\*: \*\*significantly worse\*\*, \d+ significant regression\(s\) \(success −100\.0 pt, 4 scenario\(s\) from every trial passing to none/,
    );
    assert.match(md.stdout, /\| success \| 100\.0% \| 0\.0% \| −100\.0 pt \| .* \| ▼ worse \|/);
    assert.match(md.stdout, /\*\*phone\*\* − \*\*clean\*\*: no significant regression/);
    const html = await cli(["report", "--baseline", "clean", "--format", "html"], scored.stdout);
    assert.equal(html.code, 0, html.stderr);
    assert.match(
      html.stdout,
      /<h3>noisy-cafe@5 against clean: <span class="worse">significantly worse<\/span>, \d+ significant regression\(s\) \(success −100\.0 pt/,
    );
    assert.match(html.stdout, /<h3>phone against clean: no significant regression, /);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("eval --agent vad-oracle without --audio is a usage error: it hears the caller's audio", async () => {
  const r = await cli(["eval", "--domain", "eva_airline", "--agent", "vad-oracle"]);
  assert.equal(r.code, 2, r.stderr);
  assert.equal(
    r.stderr,
    `field "--agent": "vad-oracle" hears the caller's audio: it needs an audio call (add --audio)\n`,
  );
  assert.equal(r.stdout, "");
});

import { deepEqual as assertEquals, equal, ok } from "node:assert/strict";
import { audioBlock, trialRecord } from "../score/_trial_fixture.ts";
import { scoreTrial } from "../score/score_trial.ts";
import { compareRuns } from "./compare.ts";
import { bootstrap, holmBonferroni } from "./stats.ts";
import { parseGate } from "./compare_gate.ts";
import type { InteractionMetrics } from "../score/interaction.ts";

const close = (a: number, b: number) => Math.abs(a - b) < 1e-12;

/** One trial of `scenario` in configuration `cfg`: its success and its response latencies. */
function trial(cfg: string, scenario: string, t: number, success: boolean, latency: number[]) {
  return scoreTrial(trialRecord({
    key: { scenario, trial: t, config_hash: cfg },
    suite: scenario.split("__")[0]!,
    clean_exit: success,
    latency: latency.map((ms, turn) => ({ turn, response_ms: ms })),
  }));
}

Deno.test("compareRuns() pools latency per resample as the report does, weighting drawn scenarios", () => {
  const lat = {
    a: [[100, 300], [200], [400, 500, 600]],
    b: [[150, 350], [260], [380, 900, 600]],
  };
  const a = lat.a.map((ms, i) => trial("A", `s__${i}`, 0, true, ms));
  const b = lat.b.map((ms, i) => trial("B", `s__${i}`, 0, i !== 1, ms));
  const c = compareRuns(a, b, { seed: 5 });
  const p50 = c.scopes[0]!.metrics.find((m) => m.metric === "latency p50 ms")!;
  // A pooled: 100 200 300 400 500 600 -> sorted[3] = 400; B: 150 260 350 380 600 900 -> 380.
  assertEquals([p50.a, p50.b, p50.delta], [400, 380, -20]);
  // The interval is the naive bootstrap's: pool the drawn scenarios' samples, sort, pick.
  const naive = (side: number[][], idx: ArrayLike<number>, q: number) => {
    const xs = Array.from(idx).flatMap((i) => side[i]!).sort((x, y) => x - y);
    return xs[Math.min(xs.length - 1, Math.floor(xs.length * q))]!;
  };
  const e = bootstrap(3, (idx) => naive(lat.b, idx, 0.5) - naive(lat.a, idx, 0.5), { seed: 5 });
  assertEquals(p50.ci95, e.ci95);
  equal(p50.p, e.p);
  const p95 = c.scopes[0]!.metrics.find((m) => m.metric === "latency p95 ms")!;
  assertEquals([p95.a, p95.b], [600, 900]);
  // Success: s__1 passed in A and failed in B; one discordant pair, p = 1.
  const success = c.scopes[0]!.metrics.find((m) => m.metric === "success")!;
  assertEquals([success.a, success.b, success.p], [1, 2 / 3, 1]);
  equal(success.change, "none");
  assertEquals(c.flips.map((f) => [f.scenario, f.direction]), [["s__1", "regressed"]]);
  equal(c.flips[0]!.first_failure?.signal, "clean_exit");
});

Deno.test("compareRuns() pairs scenarios present in both and lists the rest", () => {
  const a = [trial("A", "x__1", 0, true, [1]), trial("A", "x__2", 0, true, [1])];
  const b = [trial("B", "x__2", 0, true, [1]), trial("B", "x__3", 0, false, [1])];
  const c = compareRuns(a, b);
  assertEquals(c.unpaired, { a_only: ["x__1"], b_only: ["x__3"] });
  equal(c.scopes[0]!.scenarios, 1);
  ok(c.scopes.length === 1, "one suite: its figures are the overall ones");
});

/** An interaction block with these response latencies and this yield rate (the rest null). */
function interaction(latencies: number[], yieldRate: number | null): InteractionMetrics {
  return {
    response_latency_ms: latencies,
    turn_taking_scores: latencies.map((ms) => (ms <= 2000 ? 1 : 0)),
    turn_taking_score: null,
    interruptions: yieldRate === null ? 0 : 2,
    yield_latency_ms: [],
    yield_rate: yieldRate,
    agent_interruptions_per_turn: 0.5,
    backchannel_selectivity: null,
    vocal_tic_selectivity: null,
    non_directed_selectivity: null,
    pause_selectivity: null,
    events: { backchannel: 0, filler: 0, side: 0, pause: 0 },
  };
}

Deno.test("compareRuns() compares the interaction metrics: A, B, delta, bootstrap CI and Holm with the others", () => {
  const lat = { a: [[500, 700], [600], [800]], b: [[1500], [1600, 1700], [1800]] };
  const rates = { a: [1, 1, 0.5], b: [0, 0.5, 0] };
  const side = (cfg: "a" | "b") =>
    [0, 1, 2].map((i) => {
      const v = trial(cfg, `s__${i}`, 0, true, [100]);
      return {
        ...v,
        metrics: { ...v.metrics, interaction: interaction(lat[cfg][i]!, rates[cfg][i]!) },
      };
    });
  const c = compareRuns(side("a"), side("b"), { seed: 3 });
  const metrics = c.scopes[0]!.metrics;
  const of = (name: string) => metrics.find((m) => m.metric === name)!;

  // Response latency p50: A pooled 500 600 700 800 -> sorted[2] = 700; B 1500..1800 -> 1700.
  const rl = of("response latency p50 ms");
  assertEquals([rl.a, rl.b, rl.delta, rl.unit, rl.better], [700, 1700, 1000, "ms", "lower"]);
  // Yield rate: the mean of the trials' rates, 2.5/3 and 0.5/3.
  const yr = of("yield rate");
  ok(
    close(yr.a!, 2.5 / 3) && close(yr.b!, 0.5 / 3) && close(yr.delta!, -2 / 3),
    JSON.stringify(yr),
  );
  equal(yr.unit, "share");
  // Its interval: the paired bootstrap over scenarios of the mean difference, by hand.
  const naive = bootstrap(3, (idx) => {
    const xs = Array.from(idx);
    const mean = (v: number[]) => xs.reduce((s, i) => s + v[i]!, 0) / xs.length;
    return mean(rates.b) - mean(rates.a);
  }, { seed: 3 });
  assertEquals(yr.ci95!.map((x) => x.toFixed(12)), naive.ci95!.map((x) => x.toFixed(12)));
  equal(yr.p, naive.p);
  // Turn-taking score (per turn): A all 1, B all 1 as well (every latency within 2000 ms).
  assertEquals([of("turn-taking score").a, of("turn-taking score").delta], [1, 0]);
  // Interruptions per turn: 0.5 both sides, no change.
  equal(of("agent interruptions per turn").change, "none");
  // Selectivities nobody measured are not compared.
  equal(metrics.some((m) => m.metric === "backchannel selectivity"), false);
  // One Holm-Bonferroni family: the gated tests (success and pass^K; latency p95 has
  // fewer than 20 samples a side); the other figures show their p and no verdict.
  const gated = metrics.filter((m) => m.p_holm !== null);
  assertEquals(gated.map((m) => m.key), ["success", "pass^k"]);
  const p95 = metrics.find((m) => m.key === "latency.p95")!;
  equal(p95.decision, "3 and 3 samples, fewer than 20 on a side: not gated");
  const holm = holmBonferroni(gated.map((m) => m.p!));
  assertEquals(gated.map((m) => m.p_holm), holm.adjusted);
  for (const m of [rl, yr]) {
    ok(m.p !== null);
    assertEquals([m.p_holm, m.significant, m.change, m.decision], [null, false, "none", null]);
  }
  // Gated by name, with a minimum: yield rate fell 66.7 pt, past 0.1, but three scenarios
  // cannot make it significant (the bootstrap's p is at least 2/2001 and the family's).
  const yieldGate = parseGate("interaction.yield_rate:-0.1").gate!;
  const g = compareRuns(side("a"), side("b"), { seed: 3, gate: yieldGate });
  const gy = g.scopes[0]!.metrics.find((m) => m.metric === "yield rate")!;
  ok(gy.decision!.startsWith("change −66.7 pt (−80.0%) reaches −10.0 pt"), gy.decision!);
  equal(gy.change, gy.significant ? "regression" : "none");
});

Deno.test("compareRuns() shows the line's own figures with an interval but tests none of them", () => {
  const side = (cfg: string, lost: number[] | null) =>
    [0, 1, 2].map((i) => {
      const v = scoreTrial(trialRecord({
        key: { scenario: `s__${i}`, trial: 0, config_hash: cfg },
        audio: audioBlock(),
      }));
      const audio = {
        ...v.metrics.audio!,
        ...(lost
          ? { line_snr_db: [10 + i], line_frames: { total: 100, lost: lost[i]!, late: 0 } }
          : {}),
      };
      return { ...v, metrics: { ...v.metrics, audio } };
    });
  // A clean line (no line block) against one that lost 3, 5 and 10 of 100 frames.
  const c = compareRuns(side("clean", null), side("lossy", [3, 5, 10]), { seed: 2 });
  const metrics = c.scopes[0]!.metrics;
  const lost = metrics.find((m) => m.metric === "frames lost")!;
  ok(close(lost.a!, 0) && close(lost.b!, 0.06) && close(lost.delta!, 0.06), JSON.stringify(lost));
  equal(lost.unit, "share");
  ok(
    lost.ci95 !== null && lost.ci95[0] >= 0.03 - 1e-12 && lost.ci95[1] <= 0.1 + 1e-12,
    JSON.stringify(lost.ci95),
  );
  // Not tested: the condition's figure is no regression of the agent's.
  assertEquals([lost.p, lost.p_holm, lost.significant, lost.change], [null, null, false, "none"]);
  assertEquals(c.regressions, []);
  // SNR is compared only where both sides have it (a clean line has no noise bed).
  equal(metrics.some((m) => m.metric === "line SNR p50 dB"), false);
});

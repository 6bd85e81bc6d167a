import { deepEqual as assertEquals, equal, ok } from "node:assert/strict";
import { trialRecord } from "../score/_trial_fixture.ts";
import { scoreTrial } from "../score/score_trial.ts";
import { compareRuns } from "./compare.ts";
import { bootstrap } from "./stats.ts";

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

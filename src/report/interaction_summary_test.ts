import assert from "node:assert/strict";
import { interactionAggregate, meanCi } from "./interaction_summary.ts";
import { interactionMetrics } from "../score/interaction.ts";

Deno.test("meanCi(): the pooled mean; no interval below two scenarios with samples", () => {
  assert.deepEqual(meanCi([]), { n: 0, mean: null, ci95: null });
  assert.deepEqual(meanCi([[], []]), { n: 0, mean: null, ci95: null });
  assert.deepEqual(meanCi([[3]]), { n: 1, mean: 3, ci95: null });
  assert.deepEqual(meanCi([[1, 2, 3, 4], []]), { n: 4, mean: 2.5, ci95: null });
  // Every scenario the same: every resample too.
  assert.deepEqual(meanCi([[5, 5], [5]]), { n: 3, mean: 5, ci95: [5, 5] });
});

Deno.test("meanCi(): a percentile bootstrap over scenarios, as computed by hand", () => {
  // Scenario A has samples 100 and 200 (sum 300 over 2), B has 400 (over 1). A resample
  // of two scenarios is AA (600/4 = 150), AB or BA (700/3 = 233.333) or BB (800/2 = 400).
  // mulberry32(1) gives 0.6271 0.0027 | 0.5274 0.9811 | 0.9684 0.2811 | 0.6128 0.7207:
  // floor(2r) draws BA, BB, BA, BB, so the four resamples sorted are 233.333, 233.333,
  // 400, 400 and the 2.5% and 97.5% points (sorted[floor(q · 4)]) are the first and last.
  const units = [[100, 200], [400]];
  assert.deepEqual(meanCi(units, { seed: 1, resamples: 4 }), {
    n: 3,
    mean: 233.333,
    ci95: [233.333, 400],
  });
  // mulberry32(7): 0.0117 0.0620 | 0.9769 0.6990 | 0.5214 0.4055 | 0.4662 0.2399:
  // AA, BB, BA, AA, sorted 150, 150, 233.333, 400.
  assert.deepEqual(meanCi(units, { seed: 7, resamples: 4 }).ci95, [150, 400]);
  // The normal interval would be 233.333 ± 1.96 · 152.75 / √3 = [60.5, 406.2]: not this.
  const wide = meanCi(units);
  assert.ok(wide.ci95![0] >= 150 && wide.ci95![1] <= 400, JSON.stringify(wide));
});

/** A trial of `scenario` whose agent answers the caller's one turn `latency` ms after it. */
function call(scenario: string, latency: number) {
  const interaction = interactionMetrics({
    turns: [
      { speaker: "user", start_ms: 0, end_ms: 1000 },
      { speaker: "agent", start_ms: 1000 + latency, end_ms: 2000 + latency },
    ],
    caller_events: [],
    agent_tool_calls_ms: [],
  });
  return { scenario, metrics: { interaction } };
}

Deno.test("interactionAggregate(): latencies per answered turn, rates per trial that has them", () => {
  const a = interactionAggregate([
    call("s1", 500),
    call("s2", 1000),
    { scenario: "s3", metrics: {} },
  ])!;
  assert.equal(a.trials, 2);
  assert.equal(a.response_latency_ms.n, 2);
  assert.equal(a.response_latency_ms.mean, 750);
  assert.equal(a.turn_taking_score.mean, 1);
  assert.equal(a.agent_interruptions_per_turn.mean, 0);
  assert.equal(a.yield_rate.n, 0, "no interruption: no yield rate sample");
  assert.equal(interactionAggregate([{ scenario: "s", metrics: {} }]), undefined);
});

Deno.test("interactionAggregate(): the interval resamples scenarios, a scenario's trials together", () => {
  // s1's two trials (100 and 200 ms) are one unit, s2's (400 ms) another: the hand-computed
  // case of meanCi above, whatever the order the verdicts come in.
  const verdicts = [call("s2", 400), call("s1", 100), call("s1", 200)];
  const a = interactionAggregate(verdicts, { seed: 1, resamples: 4 })!;
  assert.deepEqual(a.response_latency_ms, { n: 3, mean: 233.333, ci95: [233.333, 400] });
  // Seeded: the same verdicts give the same interval.
  assert.deepEqual(interactionAggregate(verdicts), interactionAggregate([...verdicts].reverse()));
});

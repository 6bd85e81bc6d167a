import assert from "node:assert/strict";
import { interactionAggregate, meanCi } from "./interaction_summary.ts";
import { interactionMetrics } from "../score/interaction.ts";

Deno.test("meanCi(): the mean and mean ± 1.96 standard errors; null below two samples", () => {
  assert.deepEqual(meanCi([]), { n: 0, mean: null, ci95: null });
  assert.deepEqual(meanCi([3]), { n: 1, mean: 3, ci95: null });
  // sd of [1, 2, 3, 4] is 1.291; se 0.645; half-width 1.265.
  assert.deepEqual(meanCi([1, 2, 3, 4]), { n: 4, mean: 2.5, ci95: [1.235, 3.765] });
});

Deno.test("interactionAggregate(): latencies per answered turn, rates per trial that has them", () => {
  const call = (agentStart: number) =>
    interactionMetrics({
      turns: [
        { speaker: "user", start_ms: 0, end_ms: 1000 },
        { speaker: "agent", start_ms: agentStart, end_ms: agentStart + 1000 },
      ],
      caller_events: [],
      agent_tool_calls_ms: [],
    });
  const a = interactionAggregate([call(1500), call(2000), undefined])!;
  assert.equal(a.trials, 2);
  assert.equal(a.response_latency_ms.n, 2);
  assert.equal(a.response_latency_ms.mean, 750);
  assert.equal(a.turn_taking_score.mean, 1);
  assert.equal(a.agent_interruptions_per_turn.mean, 0);
  assert.equal(a.yield_rate.n, 0, "no interruption: no yield rate sample");
  assert.equal(interactionAggregate([undefined]), undefined);
});

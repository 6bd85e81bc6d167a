import assert from "node:assert/strict";
import {
  defaultWorkerCount,
  IN_PROCESS_TRIALS_PER_S,
  WORKER_STARTUP_S,
  workersPayOffAt,
} from "./worker_count.ts";

Deno.test("worker count: Workers only from the trial count that pays back their start-up", () => {
  const at = workersPayOffAt(2);
  // 2 Workers save half the in-process time: worth it once that half exceeds a start-up.
  assert.equal(at, Math.ceil(IN_PROCESS_TRIALS_PER_S * WORKER_STARTUP_S * 2));
  assert.equal(defaultWorkerCount({ max: 2, concurrency: 4, deterministicTrials: at - 1 }), 1);
  assert.equal(defaultWorkerCount({ max: 2, concurrency: 4, deterministicTrials: at }), 2);
  // More Workers pay off sooner; one never does.
  assert.ok(workersPayOffAt(8) < at);
  assert.equal(workersPayOffAt(1), Infinity);
  assert.equal(defaultWorkerCount({ max: 1, concurrency: 4, deterministicTrials: 1e9 }), 1);
  // Never more Workers than trials at once; the threshold is that count's.
  assert.equal(defaultWorkerCount({ max: 8, concurrency: 2, deterministicTrials: at - 1 }), 1);
  assert.equal(defaultWorkerCount({ max: 8, concurrency: 2, deterministicTrials: at }), 2);
  // No deterministic trial (real-clock calls): in-process.
  assert.equal(defaultWorkerCount({ max: 8, concurrency: 8, deterministicTrials: 0 }), 1);
});

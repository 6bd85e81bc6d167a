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

Deno.test("worker count: no more Workers than the cores the load average leaves idle", () => {
  const many = workersPayOffAt(2) * 10;
  const run = (loadAverage: number) =>
    defaultWorkerCount({ max: 2, concurrency: 8, deterministicTrials: many, loadAverage });
  assert.equal(run(0.2), 2); // an idle 2-core machine
  assert.equal(run(1), 2); // one core busy: ours and the idle one
  assert.equal(run(1.5), 1);
  assert.equal(run(8), 1); // a shared, saturated machine: in-process
  // 8 cores, 5 busy: 4 Workers (3 idle plus ours), and their own threshold applies.
  const input = { max: 8, concurrency: 8, deterministicTrials: workersPayOffAt(4) };
  assert.equal(defaultWorkerCount({ ...input, loadAverage: 5 }), 4);
  assert.equal(defaultWorkerCount({ ...input, deterministicTrials: workersPayOffAt(4) - 1 }), 8);
});

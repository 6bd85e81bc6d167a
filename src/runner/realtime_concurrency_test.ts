import assert from "node:assert/strict";
import { SimClock } from "../clock/clock.ts";
import { LatenessMeter } from "../audio/lateness.ts";
import { CALLS_PER_IDLE_CORE, realTimeConcurrency, RealTimeGate } from "./realtime_concurrency.ts";

Deno.test("real-time concurrency: the table times the idle cores, capped by the run's request", () => {
  const per = CALLS_PER_IDLE_CORE.protobuf;
  assert.equal(realTimeConcurrency({ framing: "protobuf", cores: 2 }), 2 * per);
  // Load 1.5 on 2 cores: our thread and half a core idle.
  assert.equal(
    realTimeConcurrency({ framing: "protobuf", cores: 2, loadAverage: 1.5 }),
    Math.floor(1.5 * per),
  );
  // A machine busier than its cores still runs on one.
  assert.equal(
    realTimeConcurrency({ framing: "twilio", cores: 2, loadAverage: 9 }),
    CALLS_PER_IDLE_CORE.twilio,
  );
  assert.equal(realTimeConcurrency({ framing: "json", cores: 2, requested: 3 }), 3);
  assert.equal(realTimeConcurrency({ framing: "json", cores: 2, requested: 10_000 }), 2 * per);
});

Deno.test("the gate holds new calls while p99 lateness over the last 10 s is past 5 ms, then lets them go", async () => {
  const clock = new SimClock();
  const meter = new LatenessMeter();
  const gate = new RealTimeGate({ meter, clock, wallNow: () => clock.now(), pollMs: 100 });
  // 1,000 chunks on time: open.
  for (let i = 0; i < 1000; i++) meter.record(1, clock.now());
  assert.equal(gate.open, true);
  let admitted = false;
  await gate.admit();
  assert.equal(gate.held, 0);
  // Then 2% of chunks 40 ms late: the p99 is past the bound.
  for (let i = 0; i < 20; i++) meter.record(40, clock.now());
  assert.equal(gate.open, false);
  void gate.admit().then(() => admitted = true);
  // Still late 9 s later (the late second is inside the window).
  await clock.advance(9000);
  assert.equal(admitted, false);
  assert.equal(gate.held, 1);
  // Chunks on time meanwhile do not help while the late ones are in the window; once
  // their second leaves it, the gate opens.
  for (let i = 0; i < 100; i++) meter.record(0.5, clock.now());
  await clock.advance(1200);
  assert.equal(admitted, true);
  assert.equal(gate.open, true);
});

Deno.test("the lateness meter pools percentiles to 0.05 ms and windows them by second", () => {
  const meter = new LatenessMeter();
  for (let i = 0; i < 990; i++) meter.record(0.12, 500);
  for (let i = 0; i < 10; i++) meter.record(7.3, 1500);
  const all = meter.summary();
  assert.deepEqual(all, { count: 1000, p50: 0.15, p99: 0.15, max: 7.3 });
  meter.record(30, 1600);
  assert.equal(meter.summary().p99, 7.35, "the upper edge of its 0.05 ms bin");
  // The second from 1000 ms holds the late ones only.
  assert.deepEqual(meter.recent(1000, 1999), { count: 11, p50: 7.35, p99: 30, max: 30 });
  assert.equal(meter.recent(10_000, 12_000).count, 0, "both seconds have left the window");
  meter.reset();
  assert.equal(meter.summary().count, 0);
});

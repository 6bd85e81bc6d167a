import assert from "node:assert/strict";
import { SimClock } from "../clock/clock.ts";
import { LatenessMeter } from "../audio/lateness.ts";
import {
  CALLS_PER_IDLE_CORE,
  realTimeConcurrency,
  realTimeConcurrencyWhy,
  RealTimeGate,
  START_SPACING_MS,
} from "./realtime_concurrency.ts";

/** A gate on a simulated clock whose process uses `cores` of CPU all along. */
function gateAt(clock: SimClock, meter: LatenessMeter, cores: number): RealTimeGate {
  return new RealTimeGate({
    meter,
    clock,
    wallNow: () => clock.now(),
    cpuUs: () => clock.now() * 1000 * cores,
    pollMs: 100,
  });
}

Deno.test("real-time concurrency: the table times the idle cores, capped by the run's request", () => {
  const per = CALLS_PER_IDLE_CORE.protobuf;
  // Forty eva calls run in one wave on one idle core (the ratio goal of issue 18).
  assert.ok(realTimeConcurrency({ framing: "json", cores: 2, loadAverage: 4 }) >= 40);
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
  // This process keeps one core busy all along: the lateness is its own.
  const gate = gateAt(clock, meter, 1);
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
  assert.equal(gate.admittedLate, 0);
});

Deno.test("late chunks while this process used under half a core are the machine's: the gate lets calls go", async () => {
  const clock = new SimClock();
  const meter = new LatenessMeter();
  // A fifth of a core (the 40 eva calls used about that): other processes held the CPUs.
  const gate = gateAt(clock, meter, 0.2);
  for (let i = 0; i < 1000; i++) meter.record(1, clock.now());
  await gate.admit();
  for (let i = 0; i < 20; i++) meter.record(40, clock.now());
  let admitted = false;
  void gate.admit().then(() => admitted = true);
  // Less than a second of CPU seen: held, as if busy.
  await clock.advance(500);
  assert.equal(admitted, false);
  // A second on: the late chunks are still in the window, yet the call starts.
  await clock.advance(600);
  assert.equal(admitted, true);
  assert.equal(gate.held, 1);
  assert.equal(gate.admittedLate, 1);
  // Busy again (a core from now on): the next call is held while it is late.
  const busy = gateAt(clock, meter, 0.6);
  assert.equal(busy.open, false);
  await clock.advance(2000);
  assert.equal(busy.open, false, "0.6 cores over the last 2 s: the lateness may be ours");
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

Deno.test("calls start spaced out: five asked for at once start 20 ms apart, the first at once", async () => {
  const clock = new SimClock();
  const meter = new LatenessMeter();
  const gate = gateAt(clock, meter, 1);
  const started: number[] = [];
  for (let i = 0; i < 5; i++) void gate.admit().then(() => started.push(clock.now()));
  await clock.advance(0);
  assert.deepEqual(started, [0]);
  await clock.advance(200);
  assert.deepEqual(started, [0, 1, 2, 3, 4].map((k) => k * START_SPACING_MS));
  // One asked for long after the last starts at once.
  await gate.admit();
  assert.equal(clock.now(), 200);
  assert.equal(gate.held, 0);
});

Deno.test("realTimeConcurrencyWhy says the table's calls per idle core and the idle cores", () => {
  const input = { framing: "twilio" as const, cores: 2, loadAverage: 1.7, requested: 100 };
  assert.equal(realTimeConcurrency(input), 65);
  assert.equal(
    realTimeConcurrencyWhy(input),
    "50 real-time twilio calls per idle core hold the pacers' 5 ms lateness bound, and 1.3 core(s) are idle (load average 1.7 on 2 cores)",
  );
});

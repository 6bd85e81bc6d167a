import assert from "node:assert/strict";
import { setImmediate } from "node:timers";
import { RealClock, SimClock } from "./clock.ts";

/** Runs `body` with `setTimeout` counted (and still working). */
async function countingSetTimeout(body: () => Promise<void>): Promise<number> {
  const original = globalThis.setTimeout;
  let calls = 0;
  globalThis.setTimeout = ((...args: Parameters<typeof setTimeout>) => {
    calls++;
    return original(...args);
  }) as typeof setTimeout;
  try {
    await body();
  } finally {
    globalThis.setTimeout = original;
  }
  return calls;
}

const nextMacrotask = () => new Promise<void>((resolve) => setImmediate(resolve));

Deno.test("RealClock runs a 0 ms timer on the fast path, not on setTimeout", async () => {
  const clock = new RealClock();
  const fired: string[] = [];
  const calls = await countingSetTimeout(async () => {
    clock.timer(0, () => fired.push("zero"));
    clock.timer(-5, () => fired.push("overdue"));
    await nextMacrotask();
  });
  assert.deepEqual(fired, ["zero", "overdue"], "due timers fire in the order set, within a turn");
  assert.equal(calls, 0, "no setTimeout for a due timer");
});

Deno.test("RealClock cancels a 0 ms timer before it fires", async () => {
  const clock = new RealClock();
  let fired = false;
  const cancel = clock.timer(0, () => (fired = true));
  cancel();
  await nextMacrotask();
  await new Promise((resolve) => setTimeout(resolve, 5));
  assert.equal(fired, false);
  cancel(); // cancelling twice is harmless
});

Deno.test("RealClock sleep(0) resolves on the fast path and an abort still rejects", async () => {
  const clock = new RealClock();
  const calls = await countingSetTimeout(() => clock.sleep(0));
  assert.equal(calls, 0);
  const controller = new AbortController();
  const slept = clock.sleep(0, controller.signal);
  controller.abort(new Error("stop"));
  await assert.rejects(slept, /stop/);
});

Deno.test("RealClock still waits out a positive delay and cancels it", async () => {
  const clock = new RealClock();
  let fired = false;
  const cancel = clock.timer(1, () => (fired = true));
  cancel();
  const t0 = clock.now();
  await clock.sleep(10);
  assert.ok(clock.now() - t0 >= 9, "a 10 ms sleep is not cut short");
  assert.equal(fired, false);
});

Deno.test("RealClock never fires a timer before its time, a fractional delay included", async () => {
  const clock = new RealClock();
  // setTimeout drops the fraction: 2.95 ms may fire after 2 ms. A timer set for when an
  // utterance ends must not find it still being said (the call's end would cut it).
  // Set at phases spread over 2.5 ms, so some would land on the early side.
  const early: number[] = [];
  const fired: Promise<void>[] = [];
  for (let i = 0; i < 50; i++) {
    const ms = 2.95;
    const due = clock.now() + ms;
    fired.push(
      new Promise<void>((resolve) =>
        clock.timer(ms, () => {
          if (clock.now() < due) early.push(due - clock.now());
          resolve();
        })
      ),
    );
    const t = clock.now();
    while (clock.now() - t < 0.05) { /* the next timer at a later phase */ }
  }
  await Promise.all(fired);
  assert.deepEqual(early, []);
});

Deno.test("SimClock sleep resolves at its time; an abort rejects and cancels the timer", async () => {
  const clock = new SimClock();
  let woke = -1;
  const slept = clock.sleep(30).then(() => woke = clock.now());
  const controller = new AbortController();
  const aborted = clock.sleep(50, controller.signal);
  assert.equal(clock.pending, 2);
  controller.abort(new Error("stop"));
  await assert.rejects(aborted, /stop/);
  assert.equal(clock.pending, 1, "the aborted sleep's timer is cancelled");
  await clock.run(() => woke >= 0);
  await slept;
  assert.equal(woke, 30);
  await assert.rejects(clock.sleep(10, AbortSignal.abort(new Error("early"))), /early/);
  assert.equal(clock.pending, 0, "an already aborted sleep sets no timer");
});

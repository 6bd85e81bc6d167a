import assert from "node:assert/strict";
import { RealClock, SimClock } from "../clock/clock.ts";
import type { Clock } from "../bridge/call.ts";
import { uncaughtErrors } from "../testing/unhandled_rejections.ts";
import { type PacedChunk, Pacer, realTimeTicker, yieldToRealTime } from "./pacer.ts";

function collect(clock: Clock, options: Partial<ConstructorParameters<typeof Pacer>[0]> = {}) {
  const chunks: PacedChunk[] = [];
  const pacer = new Pacer({
    clock,
    sampleRate: 16000,
    onChunk: (c) => chunks.push(c),
    ...options,
  });
  return { pacer, chunks };
}

/** A sim-clock pacer with `1..length` queued as two utterances split at `split`. */
function queuedInTwo(length: number, split: number) {
  const clock = new SimClock();
  const { pacer, chunks } = collect(clock);
  const audio = Int16Array.from({ length }, (_, i) => i + 1);
  pacer.enqueue(audio.subarray(0, split));
  pacer.enqueue(audio.subarray(split));
  return { clock, pacer, chunks, audio };
}

/** A real-clock pacer whose `onChunk` throws "boom" at its second chunk. */
function boomPacer(): Pacer {
  return new Pacer({
    clock: new RealClock(),
    sampleRate: 16000,
    onChunk: (c) => {
      if (c.index === 1) throw new Error("boom");
    },
  });
}

Deno.test("Pacer sends 512-byte chunks on the 16 ms grid with no drift over 60 s", async () => {
  const clock = new SimClock();
  const { pacer, chunks } = collect(clock);
  await clock.advance(5); // the grid starts when the pacer does, not at 0
  pacer.start();
  await clock.advance(60_000);
  pacer.stop();
  assert.equal(chunks.length, 60_000 / 16 + 1);
  chunks.forEach((c, k) => {
    assert.equal(c.index, k);
    assert.equal(c.dueAt, 5 + k * 16);
    assert.equal(c.sentAt, c.dueAt);
    assert.equal(c.samples.length, 256);
  });
  assert.equal(chunks.at(-1)!.sentAt, 60_005);
  assert.equal(clock.pending, 0);
});

Deno.test("Pacer sends queued audio in order, pads its end and fills silence after", async () => {
  const { clock, pacer, chunks, audio } = queuedInTwo(1000, 300);
  let drainedAt = -1;
  pacer.drained().then(() => drainedAt = clock.now());
  pacer.start();
  await clock.advance(100);
  pacer.stop();
  const sent = chunks.flatMap((c) => [...c.samples]);
  assert.deepEqual(sent.slice(0, 1000), [...audio]);
  assert.ok(sent.slice(1000).every((s) => s === 0));
  assert.deepEqual(chunks.map((c) => c.audioSamples).slice(0, 6), [256, 256, 256, 232, 0, 0]);
  assert.equal(drainedAt, 48);
  assert.equal(pacer.queuedSamples, 0);
});

Deno.test("Pacer's chunks are views of the queued audio or one shared silence: no buffer of their own unless they span or pad", async () => {
  const { clock, pacer, chunks, audio } = queuedInTwo(1200, 600);
  pacer.start();
  await clock.advance(100);
  pacer.stop();
  // 0 and 1 lie in the first utterance, 2 spans both, 3 lies in the second, 4 pads its end.
  assert.equal(chunks[0]!.samples.buffer, audio.buffer);
  assert.equal(chunks[0]!.samples.byteOffset, 0);
  assert.equal(chunks[1]!.samples.buffer, audio.buffer);
  assert.notEqual(chunks[2]!.samples.buffer, audio.buffer);
  assert.equal(chunks[3]!.samples.buffer, audio.buffer);
  assert.equal(chunks[3]!.samples.byteOffset, 2 * 768);
  assert.notEqual(chunks[4]!.samples.buffer, audio.buffer);
  // After the queue: silence, the same zeros each time (and for any pacer of that size).
  assert.equal(chunks[5]!.samples, chunks[6]!.samples);
  assert.ok(chunks[5]!.samples.every((s) => s === 0));
  const other = collect(clock);
  other.pacer.start();
  await clock.advance(16);
  other.pacer.stop();
  assert.equal(other.chunks[0]!.samples, chunks[5]!.samples);
  assert.deepEqual(chunks.flatMap((c) => [...c.samples]).slice(0, 1200), [...audio]);
});

Deno.test("Pacer without silence fill sends nothing between utterances and keeps the grid", async () => {
  const clock = new SimClock();
  const { pacer, chunks } = collect(clock, { silenceFill: false });
  pacer.start();
  await clock.advance(50);
  assert.equal(chunks.length, 0);
  pacer.enqueue(new Int16Array(300).fill(7));
  await clock.advance(50);
  pacer.stop();
  assert.deepEqual(chunks.map((c) => c.dueAt), [64, 80]);
  assert.deepEqual(chunks.map((c) => c.audioSamples), [256, 44]);
});

Deno.test("Pacer catches up to the grid when its timers fire late", async () => {
  const sim = new SimClock();
  // Every timer fires 7 ms late, as a busy event loop would.
  const late: Clock = {
    simulated: true,
    now: () => sim.now(),
    timer: (ms, fn) => sim.timer(ms + 7, fn),
    sleep: (ms, signal) => sim.sleep(ms, signal),
  };
  const { pacer, chunks } = collect(late);
  pacer.start();
  await sim.advance(10_000);
  pacer.stop();
  // Every due chunk has been sent by 10 s (no chunk lost to lateness) ...
  assert.ok(chunks.length >= 10_000 / 16 - 1, `${chunks.length}`);
  chunks.forEach((c, k) => assert.equal(c.dueAt, k * 16));
  // ... and no chunk went out more than one timer delay after its time.
  assert.ok(chunks.every((c) => c.sentAt - c.dueAt <= 7 + 16));
});

Deno.test("Pacer.clear() drops queued audio for a barge-in and wakes drained() waiters", async () => {
  const clock = new SimClock();
  const { pacer, chunks } = collect(clock);
  pacer.enqueue(new Int16Array(16000).fill(1));
  let drained = false;
  pacer.drained().then(() => drained = true);
  pacer.start();
  await clock.advance(32);
  assert.equal(pacer.clear(), 16000 - 3 * 256);
  await clock.advance(32);
  pacer.stop();
  assert.ok(drained);
  assert.deepEqual(chunks.map((c) => c.audioSamples), [256, 256, 256, 0, 0]);
});

Deno.test("Pacer at 22.05 kHz alternates chunk sizes so the sample count never drifts", async () => {
  const clock = new SimClock();
  const { pacer, chunks } = collect(clock, { sampleRate: 22050 });
  pacer.start();
  await clock.advance(60_000);
  pacer.stop();
  const total = chunks.reduce((n, c) => n + c.samples.length, 0);
  // Chunks 0..3750 end at 3751 * 16 ms = 60.016 s: 1323352.8 samples, rounded down.
  assert.equal(total, 1_323_352);
  const sizes = new Set(chunks.map((c) => c.samples.length));
  assert.deepEqual([...sizes].sort(), [352, 353]);
});

Deno.test("Pacers on the real clock share one timer: fewer timers than chunks, every chunk in order", async () => {
  const real = new RealClock();
  const chunks: PacedChunk[][] = [];
  const pacers: Pacer[] = [];
  // Count the timers set while 40 pacers run for 400 ms (16 ms grids, spread starts).
  const setTimeoutBefore = globalThis.setTimeout;
  let timers = 0;
  globalThis.setTimeout = ((fn: () => void, ms?: number) => {
    timers++;
    return setTimeoutBefore(fn, ms);
  }) as typeof setTimeout;
  try {
    for (let i = 0; i < 40; i++) {
      const got: PacedChunk[] = [];
      chunks.push(got);
      const pacer = new Pacer({ clock: real, sampleRate: 16000, onChunk: (c) => got.push(c) });
      pacers.push(pacer);
      pacer.start();
      await new Promise((r) => setTimeoutBefore(r, 1));
    }
    await new Promise((r) => setTimeoutBefore(r, 400));
  } finally {
    for (const p of pacers) p.stop();
    globalThis.setTimeout = setTimeoutBefore;
  }
  const sent = chunks.reduce((n, c) => n + c.length, 0);
  assert.ok(sent >= 40 * 20, `${sent} chunks`);
  assert.ok(timers < sent / 4, `${timers} timers for ${sent} chunks`);
  for (const got of chunks) got.forEach((c, k) => assert.equal(c.index, k));
  assert.equal(realTimeTicker.size, 0, "nothing left on the ticker after stop");
});

Deno.test("A pacer whose onChunk throws does not stop the other pacers on the ticker", async () => {
  const real = new RealClock();
  let good = 0;
  const bad = boomPacer();
  const fine = new Pacer({ clock: real, sampleRate: 16000, onChunk: () => good++ });
  const errors = await uncaughtErrors(async () => {
    bad.start();
    fine.start();
    await new Promise((r) => setTimeout(r, 200));
    bad.stop();
    fine.stop();
  });
  assert.ok(good >= 8, `${good} chunks from the good pacer`);
  assert.ok(errors.some((e) => e instanceof Error && e.message === "boom"));
});

Deno.test("Pacer.takeQueued() drops what is still queued and returns it, from where sending stopped", async () => {
  const clock = new SimClock();
  const { pacer, chunks } = collect(clock, { silenceFill: false });
  pacer.enqueue(Int16Array.from({ length: 300 }, (_, i) => i));
  pacer.enqueue(Int16Array.from({ length: 100 }, (_, i) => 1000 + i));
  pacer.start(); // one chunk (256 samples) out now
  const rest = pacer.takeQueued();
  assert.equal(chunks.length, 1);
  assert.equal(rest.length, 144);
  assert.deepEqual([rest[0], rest[43], rest[44], rest[143]], [256, 299, 1000, 1099]);
  assert.equal(pacer.queuedSamples, 0);
  await clock.advance(32);
  assert.equal(chunks.length, 1, "nothing more to send");
  pacer.stop();
});

/** Runs 120 ms of work in one task, calling `between` after each 1 ms of it. */
function busyFor(between: () => void): void {
  const until = performance.now() + 120;
  let next = performance.now() + 1;
  while (performance.now() < until) {
    if (performance.now() >= next) {
      between();
      next += 1;
    }
  }
}

for (const polled of [true, false]) {
  Deno.test(`Pacers on the real clock ${polled ? "send on time" : "wait"} through a long task that ${polled ? "polls" : "does not poll"} the ticker`, async () => {
    const chunks: PacedChunk[] = [];
    const pacer = new Pacer({
      clock: new RealClock(),
      sampleRate: 16000,
      chunkMs: 20,
      onChunk: (c) => chunks.push(c),
    });
    pacer.start();
    try {
      await new Promise((r) => setTimeout(r, 30));
      const before = chunks.length;
      // A socket's batch of frames read in one task, polling between frames (or not).
      busyFor(polled ? () => realTimeTicker.poll() : () => {});
      const during = chunks.slice(before);
      if (polled) {
        // 120 ms of 20 ms slots: each sent at the poll after its slot came, a millisecond
        // on (or a few more if the thread is preempted), not up to 120 ms on at the end.
        assert.ok(during.length >= 5, `${during.length} chunks during the task`);
        for (const c of during) assert.ok(c.sentAt - c.dueAt < 20, `${c.sentAt - c.dueAt} ms late`);
      } else assert.equal(during.length, 0, "nothing is sent until the task ends");
    } finally {
      pacer.stop();
    }
    assert.equal(realTimeTicker.size, 0);
  });
}

Deno.test("A pacer whose onChunk throws during a poll does not throw into the poller", async () => {
  const bad = boomPacer();
  const errors = await uncaughtErrors(async () => {
    bad.start();
    busyFor(() => realTimeTicker.poll());
    await new Promise((r) => setTimeout(r, 0));
    bad.stop();
  });
  assert.ok(errors.some((e) => e instanceof Error && e.message === "boom"));
});

Deno.test("yieldToRealTime() lets timers run first while a real-clock pacer runs, and not otherwise", async () => {
  let fired = false;
  setTimeout(() => fired = true, 0);
  await yieldToRealTime();
  assert.equal(fired, false, "no pacer on the real clock: it resolves without a turn of the loop");
  const pacer = new Pacer({ clock: new RealClock(), sampleRate: 16000, onChunk: () => {} });
  pacer.start();
  try {
    let late = false;
    setTimeout(() => late = true, 0);
    await yieldToRealTime();
    assert.equal(late, true, "with one running, the timers due come first");
  } finally {
    pacer.stop();
  }
  await new Promise((r) => setTimeout(r, 1));
  assert.equal(fired, true);
});

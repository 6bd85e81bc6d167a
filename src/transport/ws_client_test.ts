import assert from "node:assert/strict";
import { RealClock } from "../clock/clock.ts";
import { type PacedChunk, Pacer, realTimeTicker } from "../audio/pacer.ts";
import { WsClient } from "./ws_client.ts";

Deno.test("a real-clock pacer sends on time while the client works through a batch of frames read at once", async () => {
  // A peer that sends 60 frames at once: they come in one read, one task for all.
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const { socket, response } = Deno.upgradeWebSocket(req);
    socket.onopen = () => {
      for (let i = 0; i < 60; i++) socket.send(`frame ${i}`);
    };
    return response;
  });
  const chunks: PacedChunk[] = [];
  const clock = new RealClock();
  const wallOffset = performance.now() - clock.now();
  const pacer = new Pacer({
    clock,
    sampleRate: 16000,
    chunkMs: 20,
    onChunk: (c) => chunks.push(c),
  });
  let frames = 0;
  let batch: { from: number; to: number } | undefined;
  const read = Promise.withResolvers<void>();
  const url = `ws://127.0.0.1:${server.addr.port}/`;
  pacer.start();
  try {
    const client = await WsClient.connect({
      url,
      shownUrl: url,
      side: "agent",
      clock: new RealClock(),
      // 2 ms of work a frame: 120 ms for the batch.
      onFrame: () => {
        const at = performance.now();
        batch ??= { from: at, to: at };
        while (performance.now() - at < 2) { /* work on the frame */ }
        batch.to = performance.now();
        if (++frames === 60) read.resolve();
      },
      onGarbage: (what) => read.reject(new Error(what)),
      onClosed: () => {},
    });
    await read.promise;
    await client.close();
  } finally {
    pacer.stop();
    await server.shutdown();
  }
  const span = batch!.to - batch!.from;
  assert.ok(span >= 110, `the batch took ${span} ms`);
  // The chunks whose slots came while the batch was being worked through.
  const during = chunks.filter((c) =>
    c.dueAt + wallOffset > batch!.from + 1 && c.dueAt + wallOffset < batch!.to - 1
  );
  assert.ok(during.length >= 4, `${during.length} chunks came due during the batch`);
  // Polled before each frame: late by a frame's 2 ms of work (a few more if the thread is
  // preempted); not polled, the last of them would wait out the whole batch, 100 ms.
  for (const c of during) {
    assert.ok(c.sentAt - c.dueAt < 20, `a chunk ${c.sentAt - c.dueAt} ms late`);
  }
  assert.equal(realTimeTicker.size, 0);
});

import assert from "node:assert/strict";
import { RealClock } from "../clock/clock.ts";
import { type PacedChunk, Pacer, realTimeTicker } from "../audio/pacer.ts";
import { WsClient } from "./ws_client.ts";

/**
 * A loopback server whose sockets `onSocket` serves, and a real-clock client connected to
 * it that hands its frames to `onFrame` and any garbage to `onGarbage`.
 */
async function connectToServer(
  onSocket: (socket: WebSocket) => void,
  onFrame: (data: string | Uint8Array) => void,
  onGarbage: (what: string) => void,
): Promise<{ client: WsClient; server: Deno.HttpServer<Deno.NetAddr> }> {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const { socket, response } = Deno.upgradeWebSocket(req);
    onSocket(socket);
    return response;
  });
  const url = `ws://127.0.0.1:${server.addr.port}/`;
  try {
    const client = await WsClient.connect({
      url,
      shownUrl: url,
      side: "agent",
      clock: new RealClock(),
      onFrame,
      onGarbage,
      onClosed: () => {},
    });
    return { client, server };
  } catch (e) {
    await server.shutdown();
    throw e;
  }
}

Deno.test("a real-clock pacer sends on time while the client works through a batch of frames read at once", async () => {
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
  pacer.start();
  try {
    const { client, server } = await connectToServer(
      // A peer that sends 60 frames at once: they come in one read, one task for all.
      (socket) => {
        socket.onopen = () => {
          for (let i = 0; i < 60; i++) socket.send(`frame ${i}`);
        };
      },
      // 2 ms of work a frame: 120 ms for the batch.
      () => {
        const at = performance.now();
        batch ??= { from: at, to: at };
        while (performance.now() - at < 2) { /* work on the frame */ }
        batch.to = performance.now();
        if (++frames === 60) read.resolve();
      },
      (what) => read.reject(new Error(what)),
    );
    try {
      await read.promise;
      await client.close();
    } finally {
      await server.shutdown();
    }
  } finally {
    pacer.stop();
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

Deno.test("the ws client sends a string as a text frame and bytes as a binary one, and hands binary frames on as bytes", async () => {
  const got: (string | number[])[] = [];
  const done = Promise.withResolvers<void>();
  const frames: (string | Uint8Array)[] = [];
  const { client, server } = await connectToServer(
    (socket) => {
      socket.binaryType = "arraybuffer";
      socket.onmessage = (e) => {
        got.push(typeof e.data === "string" ? e.data : [...new Uint8Array(e.data as ArrayBuffer)]);
        if (got.length === 3) {
          socket.send(new Uint8Array([7, 8, 9]));
          socket.send("back");
        }
      };
    },
    (data) => {
      frames.push(typeof data === "string" ? data : data.slice());
      if (frames.length === 2) done.resolve();
    },
    (what) => done.reject(new Error(what)),
  );
  try {
    assert.ok(client.send(JSON.stringify({ event: "media", text: "héllo ✓" })));
    assert.ok(client.send(new Uint8Array([1, 2, 3])));
    assert.ok(client.send(""));
    await done.promise;
    await client.close();
  } finally {
    await server.shutdown();
  }
  // Text stays text, byte for byte (UTF-8 both ways); bytes stay bytes.
  assert.deepEqual(got, [JSON.stringify({ event: "media", text: "héllo ✓" }), [1, 2, 3], ""]);
  assert.ok(frames[0] instanceof Uint8Array);
  assert.deepEqual([...(frames[0] as Uint8Array)], [7, 8, 9]);
  assert.equal(frames[1], "back");
});

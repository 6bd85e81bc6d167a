/**
 * The fuzz frames over a real socket: 10,000 random and malformed frames (JSON and
 * binary) from a seeded PRNG, after which the same connection still completes a
 * handshake and the server's memory has stayed bounded.
 */
import assert from "node:assert/strict";
import { rtvi } from "../src/protocol/messages.ts";
import { fuzzFrames } from "../src/server/_fuzz_frames.ts";
import { echoServer, RawClient } from "./_wire.ts";

Deno.test("10,000 fuzzed frames over a socket leave the session answering", async () => {
  // Every refused frame is answered here; the bound on refusals has its own tests.
  const server = await echoServer({
    session: { toolTimeoutMs: 200, limits: { refusalBurst: Infinity } },
  });
  const client = new RawClient(server.url);
  try {
    await client.opened;
    const heapBefore = Deno.memoryUsage().heapUsed;
    const frames = fuzzFrames(4_242, 10_000);
    for (const [i, frame] of frames.entries()) {
      client.ws.send(frame.data);
      // Let the server drain now and then, as a real client's pace would.
      if (i % 1_000 === 999) {
        client.send(rtvi("client-ready", { version: "2.1.0" }, `mid${i}`));
        await client.next((m) => m.type === "bot-ready" && m.id === `mid${i}`);
        client.received.length = 0;
      }
    }
    client.send(rtvi("client-ready", { version: "2.1.0" }, "last"));
    const ready = await client.next((m) => m.type === "bot-ready" && m.id === "last");
    assert.equal(ready.id, "last");
    const heapGrowthMb = (Deno.memoryUsage().heapUsed - heapBefore) / 2 ** 20;
    assert.ok(heapGrowthMb < 64, `heap grew ${heapGrowthMb.toFixed(1)} MB`);
    assert.equal(server.sessions.size, 1, "still one session, on the same connection");
  } finally {
    await client.close();
    await server.shutdown();
  }
});

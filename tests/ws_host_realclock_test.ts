/**
 * The test agents' WebSocket host: a message is stamped when it came, on the host's own
 * thread, not when this thread (callbench's, in a test) was free to read it.
 */
import assert from "node:assert/strict";
import { type HostedMessage, hostWebSocketServer } from "./_ws_host.ts";

/** Holds this thread for `ms`. */
function stall(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) { /* busy */ }
}

Deno.test("ws host: a message that came while this thread was held 40 ms is stamped when it came", async () => {
  const got: HostedMessage[] = [];
  let echoed!: () => void;
  const echo = new Promise<void>((r) => (echoed = r));
  const server = await hostWebSocketServer((socket) => {
    socket.onmessage = (m) => {
      got.push(m);
      if (got.length === 4) {
        socket.send(new Uint8Array([1, 2, 3]));
        echoed();
      }
    };
  });
  // The client in a Worker of its own, so what it sends leaves when it says it does.
  const client = new Worker(new URL("./_ws_send_worker.ts", import.meta.url).href, {
    type: "module",
  });
  const sent: number[] = [];
  let back: number[] | undefined;
  const closed = new Promise<void>((resolve) => {
    client.onmessage = (e) => {
      if (e.data.sent !== undefined) {
        sent.push(e.data.sent - performance.timeOrigin);
        // This thread is busy as the messages come.
        if (sent.length === 1) stall(40);
      }
      if (e.data.back) back = e.data.back;
      if (e.data.closed) resolve();
    };
  });
  client.postMessage({
    url: `ws://127.0.0.1:${server.port}/x`,
    messages: ["warm", "m1", "m2", "m3"],
  });
  await echo;
  await closed;
  client.terminate();
  await server.shutdown();
  assert.deepEqual(got.map((m) => m.data), ["warm", "m1", "m2", "m3"]);
  assert.deepEqual(back, [1, 2, 3]);
  // The first message through a fresh socket and cold threads is not timed (CI read one 11.9 ms
  // late). The others came while this thread was held: a stamp taken here reads the 40 ms.
  for (let i = 1; i < 4; i++) {
    const late = got[i]!.at - sent[i]!;
    assert.ok(
      late >= -1 && late < 20,
      `message ${i} stamped ${late.toFixed(2)} ms after it was sent`,
    );
  }
});

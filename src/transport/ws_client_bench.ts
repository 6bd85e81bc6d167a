/**
 * The client socket's cost, the `ws` package's client against Deno's built-in
 * `WebSocket`, over loopback to a Deno server in this process: the CPU of sending a
 * caller's audio chunk (50 binary frames of 640 bytes, 20 ms at 16 kHz, then waiting
 * until the server has them all, as the pacer's chunks go), and the round trip of one
 * 10 KB frame (a tool result's size), where Deno's client, which leaves Nagle's
 * algorithm on and writes a frame's header and payload apart, waits out the peer's
 * delayed ACK (about 40 ms; why `./ws_client.ts` keeps `ws`).
 *
 * @module
 */
import { wsConnector } from "./ws_client.ts";
import type { ClientSocket } from "./ws_client.ts";

let received = 0;
let notify = () => {};
const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
  const { socket, response } = Deno.upgradeWebSocket(req);
  socket.binaryType = "arraybuffer";
  socket.onmessage = (e) => {
    received++;
    if (e.data instanceof ArrayBuffer && e.data.byteLength > 5000) socket.send("ack");
    notify();
  };
  return response;
});
const url = `ws://127.0.0.1:${server.addr.port}/`;

function opened(ws: ClientSocket): Promise<ClientSocket> {
  ws.binaryType = "arraybuffer";
  return new Promise((resolve, reject) => {
    ws.onopen = () => resolve(ws);
    ws.onerror = (e) => reject(new Error(e.message ?? "connection error"));
  });
}

const connectWs = await wsConnector();
const sockets: [string, ClientSocket][] = [
  ["ws package", await opened(await connectWs(url, 1 << 22))],
  ["Deno WebSocket", await opened(new WebSocket(url) as unknown as ClientSocket)],
];

const chunk = new Uint8Array(640);
const big = new Uint8Array(10_000);

/** Resolves once the server has received `count` frames in all. */
function receivedAll(count: number): Promise<void> {
  if (received >= count) return Promise.resolve();
  return new Promise((resolve) => {
    notify = () => {
      if (received >= count) {
        notify = () => {};
        resolve();
      }
    };
  });
}

for (const [name, ws] of sockets) {
  Deno.bench(`${name}: 50 audio frames of 640 bytes, sent and received`, {
    group: "send",
    baseline: name === "ws package",
  }, async () => {
    const target = received + 50;
    for (let i = 0; i < 50; i++) ws.send(chunk);
    await receivedAll(target);
  });
}
for (const [name, ws] of sockets) {
  Deno.bench(`${name}: one 10 KB frame's round trip`, { group: "round trip", n: 20 }, async () => {
    await new Promise<void>((resolve) => {
      ws.onmessage = () => resolve();
      ws.send(big);
    });
  });
}
globalThis.addEventListener("unload", () => {
  for (const [, ws] of sockets) ws.close();
  server.shutdown();
});

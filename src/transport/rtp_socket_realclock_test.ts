import assert from "node:assert/strict";
import dgram from "node:dgram";
import { RtpSocketHost } from "./rtp_socket.ts";

type Heard = { bytes: Uint8Array; atMs: number; readAt: number };

async function peer(): Promise<dgram.Socket> {
  const s = dgram.createSocket("udp4");
  await new Promise<void>((r) => s.bind(0, "127.0.0.1", () => r()));
  return s;
}

Deno.test("RtpSocketHost: a datagram is stamped when it came, though this thread was busy; both ways work; the Worker stops with the last socket", async () => {
  const host = new RtpSocketHost();
  // The sender on a Worker of its own: a `node:dgram` send here would leave only once this
  // thread is free again.
  const senderHost = new RtpSocketHost();
  const heard: Heard[] = [];
  let arrived!: () => void;
  const came = new Promise<void>((r) => (arrived = r));
  const socket = await host.open("127.0.0.1", {
    message: (bytes, _from, atMs) => {
      heard.push({ bytes, atMs, readAt: performance.now() });
      arrived();
    },
    error: (m) => assert.fail(m),
  });
  let answered!: (b: Uint8Array) => void;
  const back = new Promise<Uint8Array>((r) => (answered = r));
  const sender = await senderHost.open("127.0.0.1", {
    message: (bytes) => answered(bytes),
    error: (m) => assert.fail(m),
  });
  try {
    const sentAt = performance.now();
    sender.send(new Uint8Array([1, 2, 3]), socket.port, "127.0.0.1");
    // This thread is held 40 ms: the datagram waits to be read, not to be stamped.
    while (performance.now() - sentAt < 40) { /* held */ }
    await came;
    const h = heard[0]!;
    assert.deepEqual([...h.bytes], [1, 2, 3]);
    assert.ok(h.atMs - sentAt < 20, `stamped ${h.atMs - sentAt} ms after it was sent`);
    assert.ok(h.readAt - sentAt >= 40, "read once the thread was free");
    socket.send(new Uint8Array([9]), sender.port, "127.0.0.1");
    assert.deepEqual([...await back], [9]);
  } finally {
    socket.close();
    sender.close();
  }
  assert.equal(host.running, false);
  assert.equal(senderHost.running, false);
});

Deno.test("RtpSocketHost: a send no datagram can make (port 0) ends that socket with a clear error, not the Worker's other sockets", async () => {
  const host = new RtpSocketHost();
  let failed!: (m: string) => void;
  const error = new Promise<string>((r) => (failed = r));
  const bad = await host.open("127.0.0.1", { message: () => {}, error: (m) => failed(m) });
  let heard!: () => void;
  const heardIt = new Promise<void>((r) => (heard = r));
  const good = await host.open("127.0.0.1", {
    message: () => heard(),
    error: (m) => assert.fail(m),
  });
  const other = await peer();
  try {
    bad.send(new Uint8Array([1]), 0, "127.0.0.1");
    assert.match(await error, /cannot send RTP: .*port/i);
    other.send(new Uint8Array([2]), good.port, "127.0.0.1");
    await heardIt;
  } finally {
    bad.close();
    good.close();
    other.close();
  }
  assert.equal(host.running, false);
});

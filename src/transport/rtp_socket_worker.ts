/**
 * The RTP socket Worker: it owns the UDP sockets of every SIP call's media in this
 * process and does nothing else, so each datagram is stamped when it arrived, not when
 * a busy main thread got round to reading it (a 25 ms stall there read as 25 ms more
 * voice-to-voice latency). Sends go out as soon as they come in.
 *
 * In: `{ t: "open", id, address }`, `{ t: "send", id, bytes, port, address }`,
 * `{ t: "close", id }`. Out: `{ t: "opened", id, port }`, `{ t: "failed", id, message }`,
 * and `{ t: "datagrams", list }`, each `{ id, bytes, address, port, at }` (bytes
 * transferred; `at` is `performance.timeOrigin + performance.now()` here when it was
 * read). The datagrams read in one turn of this thread go in one message: a burst is not
 * a message each, which kept this thread from reading a flood as fast as it came.
 *
 * @module
 */
/// <reference lib="deno.worker" />
import { createSocket, type Socket } from "node:dgram";

/** A request to the Worker. */
export type RtpSocketRequest =
  | { t: "open"; id: number; address: string }
  | { t: "send"; id: number; bytes: Uint8Array; port: number; address: string }
  | { t: "close"; id: number };

/** One datagram read. */
export interface RtpDatagram {
  id: number;
  bytes: Uint8Array<ArrayBuffer>;
  address: string;
  port: number;
  at: number;
}

/** What the Worker tells. */
export type RtpSocketEvent =
  | { t: "opened"; id: number; port: number }
  | { t: "failed"; id: number; message: string }
  | { t: "datagrams"; list: RtpDatagram[] };

const sockets = new Map<number, Socket>();
const post = (event: RtpSocketEvent, transfer: Transferable[] = []) =>
  self.postMessage(event, transfer);

let batch: RtpDatagram[] = [];
function flush(): void {
  const list = batch;
  batch = [];
  post({ t: "datagrams", list }, list.map((d) => d.bytes.buffer));
}

function open(id: number, address: string): void {
  const socket = createSocket("udp4");
  socket.on("message", (msg, rinfo) => {
    const at = performance.timeOrigin + performance.now();
    // Node's Buffer may be a view on a shared pool: the datagram goes out in a buffer of its own.
    const bytes = new Uint8Array(msg);
    if (batch.length === 0) setTimeout(flush, 0);
    batch.push({ id, bytes, address: rinfo.address, port: rinfo.port, at });
  });
  socket.once("error", (e) => {
    post({ t: "failed", id, message: e.message });
    socket.close();
  });
  socket.bind(0, address, () => {
    sockets.set(id, socket);
    socket.removeAllListeners("error");
    // A send to a closed port comes back as an error on some systems: not the call's end.
    socket.on("error", () => {});
    post({ t: "opened", id, port: socket.address().port });
  });
}

self.onmessage = (event: MessageEvent<RtpSocketRequest>) => {
  const m = event.data;
  if (m.t === "open") return open(m.id, m.address);
  const socket = sockets.get(m.id);
  if (!socket) return;
  if (m.t === "send") {
    try {
      socket.send(m.bytes, m.port, m.address);
      return;
    } catch (e) {
      // A port the agent's SDP gave that no datagram can go to: this call's socket ends,
      // not the Worker and every other call's with it.
      post({ t: "failed", id: m.id, message: `cannot send RTP: ${(e as Error).message}` });
    }
  }
  sockets.delete(m.id);
  try {
    socket.close();
  } catch {
    // already closed
  }
};

/**
 * WebSocket servers for test agents, in a Worker of their own (`./_ws_host_worker.ts`):
 * each message comes with the time it arrived, read on a thread that does nothing else,
 * and what an agent sends leaves when it sends it. An agent in callbench's process would
 * otherwise read a message late whenever callbench's thread was busy when it came, and
 * take callbench's stall for its caller's lateness; a real agent runs on a machine of
 * its own. One Worker for every server: it starts with the first and stops with the
 * last.
 *
 * @module
 */
import type { WsHostEvent, WsHostRequest } from "./_ws_host_worker.ts";

/** A message and when it arrived (`performance.now()` on this thread). */
export interface HostedMessage {
  data: string | ArrayBuffer;
  at: number;
}

/** One socket of a hosted server, as its agent uses it. */
export interface HostedSocket {
  /** The request's path. */
  readonly path: string;
  /** `WebSocket.CONNECTING`, `OPEN` or `CLOSED`. */
  readonly readyState: number;
  send(data: string | Uint8Array): void;
  close(code?: number, reason?: string): void;
  onmessage?: (message: HostedMessage) => void;
  onclose?: () => void;
}

/** A hosted server. */
export interface HostedServer {
  port: number;
  shutdown(): Promise<void>;
}

interface Socket extends HostedSocket {
  readyState: number;
}

let worker: Worker | undefined;
let nextServer = 1;
const listening = new Map<number, (port: number) => void>();
const shut = new Map<number, () => void>();
const accept = new Map<number, (socket: HostedSocket) => void>();
const sockets = new Map<number, Socket>();

function request(r: WsHostRequest, transfer: Transferable[] = []): void {
  worker!.postMessage(r, transfer);
}

function onEvent(e: WsHostEvent): void {
  if (e.t === "listening") return listening.get(e.server)?.(e.port);
  if (e.t === "shut") return shut.get(e.server)?.();
  if (e.t === "connect") {
    const socket: Socket = {
      path: e.path,
      readyState: WebSocket.CONNECTING,
      send(data) {
        if (this.readyState === WebSocket.CLOSED) return;
        // A copy of its own the Worker takes over: the caller's view is left as it was.
        const out = typeof data === "string" ? data : data.slice().buffer;
        request({ t: "send", id: e.id, data: out }, typeof out === "string" ? [] : [out]);
      },
      close(code, reason) {
        if (this.readyState !== WebSocket.CLOSED) request({ t: "close", id: e.id, code, reason });
      },
    };
    sockets.set(e.id, socket);
    return accept.get(e.server)?.(socket);
  }
  const socket = sockets.get(e.id);
  if (!socket) return;
  if (e.t === "open") socket.readyState = WebSocket.OPEN;
  else if (e.t === "message") {
    socket.onmessage?.({ data: e.data, at: e.at - performance.timeOrigin });
  } else {
    socket.readyState = WebSocket.CLOSED;
    sockets.delete(e.id);
    socket.onclose?.();
  }
}

/** Starts a WebSocket server on a free loopback port; `onSocket` is called for each connection. */
export function hostWebSocketServer(
  onSocket: (socket: HostedSocket) => void,
): Promise<HostedServer> {
  if (!worker) {
    worker = new Worker(new URL("./_ws_host_worker.ts", import.meta.url).href, {
      type: "module",
    });
    worker.onmessage = (event: MessageEvent<WsHostEvent>) => onEvent(event.data);
  }
  const server = nextServer++;
  accept.set(server, onSocket);
  return new Promise((resolve) => {
    listening.set(server, (port) => {
      listening.delete(server);
      resolve({
        port,
        shutdown: () =>
          new Promise<void>((done) => {
            shut.set(server, () => {
              shut.delete(server);
              accept.delete(server);
              if (accept.size === 0 && worker) {
                worker.terminate();
                worker = undefined;
              }
              done();
            });
            request({ t: "shutdown", server });
          }),
      });
    });
    request({ t: "listen", server });
  });
}

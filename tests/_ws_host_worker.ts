/**
 * The Worker of `./_ws_host.ts`: WebSocket servers on loopback whose every message is
 * stamped with its arrival (`performance.timeOrigin + performance.now()`) on this thread,
 * which does nothing else, and sent on as it is asked.
 *
 * @module
 */
/// <reference lib="deno.worker" />

/** What the host asks of this Worker. */
export type WsHostRequest =
  | { t: "listen"; server: number }
  | { t: "send"; id: number; data: string | ArrayBuffer }
  | { t: "close"; id: number; code?: number; reason?: string }
  | { t: "shutdown"; server: number };

/** What this Worker tells the host. */
export type WsHostEvent =
  | { t: "listening"; server: number; port: number }
  | { t: "connect"; server: number; id: number; path: string }
  | { t: "open"; id: number }
  | { t: "message"; id: number; data: string | ArrayBuffer; at: number }
  | { t: "closed"; id: number }
  | { t: "shut"; server: number };

const post = (e: WsHostEvent, transfer: Transferable[] = []) => self.postMessage(e, transfer);

const servers = new Map<number, Deno.HttpServer>();
const sockets = new Map<number, WebSocket>();
/** What the host sent before a socket opened, in order. */
const pending = new Map<number, (string | ArrayBuffer)[]>();
let nextId = 1;

function listen(server: number): void {
  const http = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const { socket, response } = Deno.upgradeWebSocket(req);
    socket.binaryType = "arraybuffer";
    const id = nextId++;
    sockets.set(id, socket);
    pending.set(id, []);
    post({ t: "connect", server, id, path: new URL(req.url).pathname });
    socket.onopen = () => {
      for (const data of pending.get(id) ?? []) socket.send(data);
      pending.delete(id);
      post({ t: "open", id });
    };
    socket.onmessage = (event) => {
      const at = performance.timeOrigin + performance.now();
      const data = event.data as string | ArrayBuffer;
      post({ t: "message", id, data, at }, typeof data === "string" ? [] : [data]);
    };
    socket.onclose = () => {
      sockets.delete(id);
      pending.delete(id);
      post({ t: "closed", id });
    };
    return response;
  });
  servers.set(server, http);
  post({ t: "listening", server, port: (http.addr as Deno.NetAddr).port });
}

self.onmessage = async (event: MessageEvent<WsHostRequest>) => {
  const r = event.data;
  if (r.t === "listen") return listen(r.server);
  if (r.t === "send") {
    const socket = sockets.get(r.id);
    if (socket?.readyState === WebSocket.OPEN) socket.send(r.data);
    else pending.get(r.id)?.push(r.data);
    return;
  }
  if (r.t === "close") {
    const socket = sockets.get(r.id);
    if (socket && socket.readyState <= WebSocket.OPEN) socket.close(r.code, r.reason);
    return;
  }
  const http = servers.get(r.server);
  servers.delete(r.server);
  await http?.shutdown();
  post({ t: "shut", server: r.server });
};

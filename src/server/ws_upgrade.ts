/**
 * WebSocket upgrades for `serve`, on a `node:http` server with the `ws` package. Its
 * frame reader refuses a message longer than `maxPayload` from the frame's header
 * (close 1009) before reading the payload, where Deno's own upgrade takes frames of up
 * to 64 MiB whole; it can stop reading a socket (back-pressure); and it hands over one
 * message per macrotask, so a client that sends many small frames at once takes turns
 * with every other socket.
 *
 * The app decides: the upgrade helper only records the accepted events; `handle` runs
 * the app on the upgrade request, then completes the handshake or writes the app's
 * refusal (status and body) on the raw socket.
 *
 * @module
 */
import { type IncomingMessage, STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import { defineWebSocketHelper, type UpgradeWebSocket, WSContext, type WSEvents } from "hono/ws";
import { type WebSocket, WebSocketServer } from "ws";
import { realTimeTicker } from "../audio/pacer.ts";

/** How long a closing handshake may take before the socket is cut, ms. */
const CLOSE_TIMEOUT_MS = 2_000;
/** Bytes queued for a client past which the server stops reading it (resumed at half). */
const HIGH_WATER_BYTES = 4 * 2 ** 20;

/** The socket the app sees (`ws.raw`): the `ws` socket and what was queued for it. */
export interface UpgradedSocket {
  readonly ws: WebSocket;
  /** Bytes handed to `send` and not yet written to the kernel. */
  readonly queuedBytes: number;
}

/** The upgrade helper for `createApp`, and the server's `upgrade` handler. */
export interface WsUpgrader {
  // deno-lint-ignore no-explicit-any
  upgradeWebSocket: UpgradeWebSocket<any, any>;
  /** Runs `fetch` on the upgrade request; completes it if the app upgraded, else refuses. */
  handle(
    fetch: (request: Request, env: unknown) => Response | Promise<Response>,
    request: IncomingMessage,
    socket: Duplex,
    head: Buffer,
  ): Promise<void>;
}

/** Upgrades whose messages are at most `maxPayload` bytes. */
export function wsUpgrader(options: { maxPayload: number }): WsUpgrader {
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: options.maxPayload,
    perMessageDeflate: false,
    clientTracking: false,
    allowSynchronousEvents: false,
    closeTimeout: CLOSE_TIMEOUT_MS,
  });
  const accepted = new WeakMap<IncomingMessage, WSEvents>();

  const upgradeWebSocket = defineWebSocketHelper((c, events) => {
    if (c.req.header("upgrade")?.toLowerCase() !== "websocket") return;
    const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
    if (!incoming) return;
    accepted.set(incoming, events);
    return new Response(null, { status: 200 });
  });

  const wire = (ws: WebSocket, events: WSEvents, url: URL) => {
    ws.binaryType = "arraybuffer";
    let queued = 0;
    let paused = false;
    const raw: UpgradedSocket = {
      ws,
      get queuedBytes() {
        return queued;
      },
    };
    const ctx = new WSContext({
      raw,
      url,
      protocol: ws.protocol,
      get readyState() {
        return ws.readyState as 0 | 1 | 2 | 3;
      },
      send: (data) => {
        const bytes = typeof data === "string" ? Buffer.byteLength(data) : data.byteLength;
        queued += bytes;
        if (!paused && queued > HIGH_WATER_BYTES) {
          paused = true;
          ws.pause();
        }
        ws.send(data as string | ArrayBuffer | Uint8Array, (e?: Error) => {
          queued -= bytes;
          if (!e && paused && queued <= HIGH_WATER_BYTES / 2) {
            paused = false;
            ws.resume();
          }
        });
      },
      close: (code, reason) => ws.close(code, reason),
    });
    ws.on("message", (data: Buffer | ArrayBuffer, isBinary: boolean) => {
      // Frames come in batches: the chunks due meanwhile go out first.
      realTimeTicker.poll();
      // Binary: an ArrayBuffer (binaryType); text: a Buffer, already checked as UTF-8.
      const message = isBinary ? data as ArrayBuffer : (data as Buffer).toString();
      events.onMessage?.(new MessageEvent("message", { data: message }), ctx);
    });
    ws.on("close", (code: number, reason: Buffer) => {
      events.onClose?.(new CloseEvent("close", { code, reason: reason.toString() }), ctx);
    });
    ws.on("error", (error: Error & { code?: string }) => {
      // A message over the limit: the close (1009) is on its way; the rest of the
      // message is left unread (ws would read and drop it until the close completes).
      if (error.code === "WS_ERR_UNSUPPORTED_MESSAGE_LENGTH") setImmediate(() => ws.pause());
      events.onError?.(new ErrorEvent("error", { message: error.message, error }), ctx);
    });
    events.onOpen?.(new Event("open"), ctx);
  };

  const handle: WsUpgrader["handle"] = async (fetch, request, socket, head) => {
    socket.on("error", () => {}); // a client gone mid-handshake is nobody's error
    const url = requestUrl(request);
    let response: Response;
    try {
      response = await fetch(new Request(url, { headers: requestHeaders(request) }), {
        incoming: request,
      });
    } catch {
      response = new Response(null, { status: 500 });
    }
    const events = accepted.get(request);
    accepted.delete(request);
    if (!events) return refuse(socket, response);
    let opened = false;
    // `handleUpgrade` calls back at once, or refuses the handshake itself (bad key or
    // version, a socket already gone) and never calls back.
    wss.handleUpgrade(request, socket, head, (ws: WebSocket) => {
      opened = true;
      wire(ws, events, url);
    });
    if (!opened) {
      events.onClose?.(
        new CloseEvent("close", { code: 1006 }),
        new WSContext({ send: () => {}, close: () => {}, readyState: 3 }),
      );
    }
  };

  return { upgradeWebSocket, handle };
}

/** The URL of a `node:http` request. */
export function requestUrl(request: IncomingMessage): URL {
  return new URL(request.url ?? "/", `http://${request.headers.host ?? "localhost"}`);
}

/** The headers of a `node:http` request. */
export function requestHeaders(request: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) {
      headers.append(name, v);
    }
  }
  return headers;
}

/** Writes the app's answer to a refused upgrade and ends the socket. */
async function refuse(socket: Duplex, response: Response): Promise<void> {
  const body = new Uint8Array(await response.arrayBuffer());
  const status = response.status === 200 ? 426 : response.status;
  const type = response.headers.get("content-type");
  socket.end(
    Buffer.concat([
      Buffer.from(
        `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ""}\r\n` +
          (type ? `Content-Type: ${type}\r\n` : "") +
          `Content-Length: ${body.byteLength}\r\nConnection: close\r\n\r\n`,
      ),
      body,
    ]),
  );
}

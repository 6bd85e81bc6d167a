/**
 * The bot server on a socket: a `node:http` server whose WebSocket upgrades go through
 * `ws` (src/server/ws_upgrade.ts: a frame over the frame limit is refused from its
 * header, a client that does not read is not read either). Loopback by default; binding any other address needs a bearer token.
 *
 * @module
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { InputError } from "../problem/problem.ts";
import { MAX_FRAME_BYTES } from "../protocol/framing.ts";
import { type AppOptions, createApp } from "./app.ts";
import type { Session } from "./session.ts";
import { SessionStore } from "./session_store.ts";
import { requestHeaders, requestUrl, wsUpgrader } from "./ws_upgrade.ts";

/** How `serve` listens: the app's options and the address. */
export interface ServeOptions extends Omit<AppOptions, "upgradeWebSocket" | "sessions" | "store"> {
  /** The address to bind; other than loopback, `token` is required. */
  hostname: string;
  /** 0 picks a free port. */
  port: number;
}

/** A listening server, from `serve`. */
export interface RunningServer {
  /** The WebSocket endpoint, e.g. `ws://127.0.0.1:8765/ws`. */
  readonly url: string;
  /** The port bound (the one picked when 0 was asked). */
  readonly port: number;
  /** Sessions with a client now. */
  readonly sessions: ReadonlySet<Session>;
  /** Sessions kept between connections. */
  readonly store: SessionStore;
  /** Closes every session, then stops listening. */
  shutdown(): Promise<void>;
  /** Resolves once the server has stopped. */
  readonly finished: Promise<void>;
}

/** Whether `hostname` only accepts connections from this machine. */
export function isLoopback(hostname: string): boolean {
  return hostname === "localhost" || hostname === "::1" || hostname === "[::1]" ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/**
 * A token no client could send or that guards nothing is refused: blank, or with
 * leading or trailing whitespace (a Bearer header loses it). The problem's option is
 * `token`.
 */
export function checkToken(token: string | undefined): void {
  if (token === undefined) return;
  if (token.trim() === "") {
    throw new InputError({
      option: "token",
      message: "the token is blank",
      hint: "give a secret, or none",
    });
  }
  if (token.trim() !== token) {
    throw new InputError({
      option: "token",
      message: "the token starts or ends with whitespace",
      hint: "a Bearer header cannot carry it; remove the spaces",
    });
  }
}

/**
 * Starts listening; refuses a non-loopback address without a token, a blank token,
 * and a port it cannot bind, each as an input error naming the address.
 */
export async function serve(options: ServeOptions): Promise<RunningServer> {
  checkToken(options.token);
  if (!isLoopback(options.hostname) && !options.token) {
    throw new InputError({
      option: "host",
      code: "token_required",
      message: `binding ${options.hostname} (not loopback) needs a token`,
      hint: "give a token; clients send it as a Bearer header or ?token=",
    });
  }
  const sessions = new Set<Session>();
  const store = new SessionStore({ ...options.keep, log: options.log });
  const upgrader = wsUpgrader({
    maxPayload: options.session?.maxFrameBytes ?? MAX_FRAME_BYTES,
  });
  const app = createApp({
    ...options,
    upgradeWebSocket: upgrader.upgradeWebSocket,
    sessions,
    store,
  });
  const server = createServer((request, response) => {
    answer(app.fetch, request, response).catch((e) => {
      options.log?.(`answering a request failed: ${(e as Error)?.message ?? e}`);
      if (!response.headersSent) response.writeHead(500);
      response.end();
    });
  });
  server.on("upgrade", (request, socket, head) => {
    upgrader.handle(app.fetch, request, socket, head).catch((e) => {
      options.log?.(`upgrade failed: ${(e as Error)?.message ?? e}`);
      socket.destroy();
    });
  });
  // An IPv6 address may come bracketed, as in a URL ("[::1]"); listen takes it bare.
  const addr = await listen(server, options.hostname.replace(/^\[(.*)\]$/, "$1"), options.port);
  const host = addr.address.includes(":") ? `[${addr.address}]` : addr.address;
  let finish: () => void = () => {};
  const finished = new Promise<void>((resolve) => (finish = resolve));
  server.on("close", () => finish());
  let stopping: Promise<void> | undefined;
  return {
    url: `ws://${host}:${addr.port}/ws`,
    port: addr.port,
    sessions,
    store,
    finished,
    shutdown: () =>
      stopping ??= (async () => {
        const closing = new Promise<void>((resolve) => server.close(() => resolve()));
        await Promise.all([...sessions].map((s) => s.close(1001, "server shutting down")));
        await store.freeAll();
        server.closeAllConnections();
        await closing;
      })(),
  };
}

/**
 * Answers a plain HTTP request with the app. Its routes are all GET, so a request's
 * body is never read (it is drained) and the app sees none.
 */
async function answer(
  fetch: (request: Request, env: unknown) => Response | Promise<Response>,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  request.resume();
  const method = request.method;
  const answered = method === "GET" || method === "HEAD"
    ? await fetch(new Request(requestUrl(request), { method, headers: requestHeaders(request) }), {
      incoming: request,
    })
    : new Response(null, { status: 405, headers: { allow: "GET" } });
  const body = method === "HEAD" ? new Uint8Array(0) : new Uint8Array(await answered.arrayBuffer());
  response.writeHead(answered.status, Object.fromEntries(answered.headers));
  response.end(body);
}

async function listen(server: Server, hostname: string, port: number): Promise<AddressInfo> {
  const where = `${hostname.includes(":") ? `[${hostname}]` : hostname}:${port}`;
  // node:http meets a missing permission on a later tick, where nothing can catch it:
  // asked first (a prompt where Deno would prompt).
  if ((await Deno.permissions.request({ name: "net", host: where })).state !== "granted") {
    throw new InputError({
      code: "listen_not_permitted",
      message: `this run may not listen on ${where}`,
      hint: "grant network access to that address",
    });
  }
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, hostname, () => {
        server.off("error", reject);
        resolve();
      });
    });
    return server.address() as AddressInfo;
  } catch (e) {
    // node:http errors carry the system's code; Deno's node:net reports an address
    // that is not on this machine as EINVAL.
    const code = (e as { code?: string }).code;
    if (code === "EADDRINUSE") {
      throw new InputError({
        option: "port",
        code: "port_in_use",
        message: `port ${port} on ${hostname} is already in use`,
        hint: "stop what holds it or pick another port; port 0 picks a free one",
      });
    }
    if (code === "EADDRNOTAVAIL" || code === "EINVAL") {
      throw new InputError({
        option: "host",
        message: `cannot listen on ${where}: no such address on this machine`,
      });
    }
    if (code === "EACCES") {
      throw new InputError({
        option: "port",
        message: `not allowed to listen on ${where}`,
        hint: "ports below 1024 need privileges; pick a higher one",
      });
    }
    throw e;
  }
}

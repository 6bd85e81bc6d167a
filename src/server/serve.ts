/**
 * The bot server on a socket: the only `Deno.serve` of the project. Loopback by
 * default; binding any other address needs a bearer token.
 *
 * @module
 */
import { upgradeWebSocket } from "hono/deno";
import { InputError } from "../cli/problem.ts";
import { type AppOptions, createApp } from "./app.ts";
import type { Session } from "./session.ts";

export interface ServeOptions extends Omit<AppOptions, "upgradeWebSocket" | "sessions"> {
  hostname: string;
  /** 0 picks a free port. */
  port: number;
}

export interface RunningServer {
  /** The WebSocket endpoint, e.g. `ws://127.0.0.1:8765/ws`. */
  readonly url: string;
  readonly port: number;
  readonly sessions: ReadonlySet<Session>;
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

/** Starts listening; refuses a non-loopback address without a token. */
export function serve(options: ServeOptions): RunningServer {
  if (!isLoopback(options.hostname) && !options.token) {
    throw new InputError({
      field: "--host",
      message: `binding ${options.hostname} (not loopback) needs a token`,
      hint: "pass --token or set CALLBENCH_TOKEN; clients send it as a Bearer header or ?token=",
    });
  }
  const sessions = new Set<Session>();
  const app = createApp({ ...options, upgradeWebSocket, sessions });
  const server = Deno.serve({
    hostname: options.hostname,
    port: options.port,
    onListen: () => {},
  }, app.fetch);
  const host = server.addr.hostname.includes(":")
    ? `[${server.addr.hostname}]`
    : server.addr.hostname;
  let stopping: Promise<void> | undefined;
  return {
    url: `ws://${host}:${server.addr.port}/ws`,
    port: server.addr.port,
    sessions,
    finished: server.finished,
    shutdown: () =>
      stopping ??= (async () => {
        await Promise.all([...sessions].map((s) => s.close(1001, "server shutting down")));
        await server.shutdown();
      })(),
  };
}

/**
 * The bot server as a Hono app: `/health`, and `/ws` where each session hosts one
 * participant (`?agent=NAME`, or `?user=NAME` for a caller, playing `?scenario=NAME`
 * when the client names none). A session outlives its client: the next connection
 * with the same key (`?session=NAME`, else the URL without its token) resumes it
 * (src/server/session_store.ts).
 * Built by a function that never listens; the WebSocket upgrade is injected, so the
 * same app runs under `serve` (src/server/serve.ts: `node:http` with `ws`), `Deno.serve`
 * (`hono/deno`) or a Node server (`@hono/node-server` with `@hono/node-ws`):
 *
 * ```ts
 * import { serve } from "@hono/node-server";
 * import { createNodeWebSocket } from "@hono/node-ws";
 * import { Hono } from "hono";
 * const outer = new Hono();
 * const { upgradeWebSocket, injectWebSocket } = createNodeWebSocket({ app: outer });
 * outer.route("/", createApp({ upgradeWebSocket, factory }));
 * injectWebSocket(serve({ fetch: outer.fetch, port: 8765, hostname: "127.0.0.1" }));
 * ```
 *
 * @module
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { memoryUsage } from "node:process";
import { Hono, type MiddlewareHandler } from "hono";
import type { UpgradeWebSocket, WSContext } from "hono/ws";
import type { Clock } from "../bridge/call.ts";
import type { Side } from "../domains/domain.ts";
import { realTimeLateness } from "../audio/pacer.ts";
import { PROTOCOL_VERSION } from "../protocol/messages.ts";
import type { DataRoot } from "../scenario/data_root.ts";
import {
  type HostedParticipantFactory,
  Session,
  type SessionOptions,
  type SessionSocket,
} from "./session.ts";
import type { SessionAudioOptions } from "./session_audio.ts";
import { sessionKey, SessionStore, type SessionStoreOptions } from "./session_store.ts";

/** How the app's sessions speak and hear audio (`serve --audio`). */
export interface AppAudio {
  /** Sessions are audio sessions unless the URL says `?audio=0` (false: only with `?audio=1`). */
  enabled: boolean;
  /** The audio options of a new audio session (providers are shared, made on first use). */
  options: () => SessionAudioOptions;
}

/** How `createApp` builds the bot server. */
export interface AppOptions {
  /** The runtime's WebSocket upgrade (`hono/deno`, or `@hono/node-ws` on Node). */
  // deno-lint-ignore no-explicit-any
  upgradeWebSocket: UpgradeWebSocket<any, any>;
  /** Makes the participant a session hosts, by name and side. */
  factory: HostedParticipantFactory;
  /** The agent hosted when the URL names none. */
  defaultAgent?: string;
  /** Names the factory knows; others are refused at the upgrade. Absent: any name. */
  agents?: readonly string[];
  /** When set, `/ws` needs `Authorization: Bearer <token>` or `?token=<token>`. */
  token?: string;
  /** Where a session's `apply_initialization` finds `db_path`; without it, paths are refused. */
  dataRoot?: DataRoot;
  /** Sessions at once; more are refused with 503. */
  maxSessions?: number;
  /** Sessions with a client now (pass one to close them on shutdown). */
  sessions?: Set<Session>;
  /** Sessions kept between connections (pass one to free them on shutdown). */
  store?: SessionStore;
  /** How sessions are kept between connections, when no `store` is given. */
  keep?: SessionStoreOptions;
  /** Audio sessions; without it, `?audio=1` is refused and audio frames are ignored. */
  audio?: AppAudio;
  /** A clock per session (tests); the wall clock by default. */
  clock?: () => Clock;
  /** Limits and lookups given to every session (see `SessionOptions`). */
  session?: Pick<
    SessionOptions,
    | "domains"
    | "toolTimeoutMs"
    | "maxFrameBytes"
    | "maxHistoryBytes"
    | "maxSharedStateBytes"
    | "limits"
    | "tools"
  >;
  /** Diagnostics, one line each (never protocol data); silent by default. */
  log?: (line: string) => void;
}

/** The agent hosted when the URL names none. */
export const DEFAULT_AGENT = "oracle";
/** Sessions at once when `maxSessions` is not given. */
export const DEFAULT_MAX_SESSIONS = 10_000;

/** The bot server app. It never listens. */
export function createApp(options: AppOptions): Hono {
  const sessions = options.sessions ?? new Set<Session>();
  const store = options.store ?? new SessionStore({ ...options.keep, log: options.log });
  const maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
  const app = new Hono();

  // With a token, only a caller holding it sees the internals (sessions, memory, and
  // how late the sessions' audio went out: every chunk paced on the real clock in this
  // process since it started, the bound a real-time agent is held to).
  app.get("/health", (c) => {
    const open = { status: "ok", protocol: PROTOCOL_VERSION };
    if (options.token !== undefined && !authorized(c.req.raw, options.token)) return c.json(open);
    const late = realTimeLateness.summary();
    return c.json({
      ...open,
      sessions: sessions.size,
      rss_mb: Math.round(memoryUsage().rss / 2 ** 20),
      pacer_late_ms: { chunks: late.count, p50: late.p50, p99: late.p99, max: late.max },
    });
  });

  let opened = 0;
  /**
   * Upgrades let in and not yet open: each holds a slot of `maxSessions` and, for a
   * named session, its name, from the admission on (so of clients that dial one name
   * at once only the first is let in); the socket takes it over and gives it back.
   */
  const claims = new WeakMap<Request, Claim>();
  const claimedNames = new Set<string>();
  let admitting = 0;
  const claim = (named: string | undefined): Claim => {
    admitting++;
    if (named !== undefined) claimedNames.add(named);
    let held = true;
    return {
      release: () => {
        if (!held) return;
        held = false;
        admitting--;
        if (named !== undefined) claimedNames.delete(named);
      },
    };
  };

  const admit: MiddlewareHandler = async (c, next) => {
    if (options.token !== undefined && !authorized(c.req.raw, options.token)) {
      return c.json({ error: "missing or wrong bearer token" }, 401);
    }
    const choice = chooseParticipant(c.req.query("agent"), c.req.query("user"), options);
    if ("error" in choice) return c.json({ error: choice.error }, 400);
    const audio = wantsAudio(c.req.query("audio"), options.audio);
    if (typeof audio === "object") return c.json(audio, 400);
    const { key, named } = sessionKey(c.req.url);
    if (named) {
      // A named session has one client at a time, and hosts what it was made for.
      const name = c.req.query("session")!;
      if (store.inUse(key) || claimedNames.has(key)) {
        return c.json({ error: `session "${name}" has a client` }, 409);
      }
      const kept = store.peek(key)?.participant;
      const wanted = { ...choice, scenario: c.req.query("scenario") };
      if (
        kept &&
        (kept.name !== wanted.name || kept.side !== wanted.side ||
          kept.scenario !== wanted.scenario)
      ) {
        return c.json({
          error: `session "${name}" hosts the ${kept.side} ${kept.name}${
            kept.scenario ? ` playing ${kept.scenario}` : ""
          }`,
        }, 409);
      }
    }
    if (sessions.size + admitting >= maxSessions) {
      return c.json({ error: `server full (${maxSessions} sessions)` }, 503);
    }
    const held = claim(named ? key : undefined);
    claims.set(c.req.raw, held);
    try {
      await next();
    } finally {
      // Not upgraded (no upgrade header, or the upgrade failed): the claim goes back.
      if (claims.get(c.req.raw) === held) held.release();
      claims.delete(c.req.raw);
    }
  };

  const upgrade = options.upgradeWebSocket((c) => {
    const choice = chooseParticipant(c.req.query("agent"), c.req.query("user"), options);
    const scenario = c.req.query("scenario");
    const participant = {
      ...("error" in choice ? { name: "", side: "agent" as const } : choice),
      ...(scenario !== undefined ? { scenario } : {}),
    };
    const { key } = sessionKey(c.req.url);
    const audio = wantsAudio(c.req.query("audio"), options.audio) === true;
    const held = claims.get(c.req.raw);
    claims.delete(c.req.raw);
    let session: Session | undefined;
    let socket: SessionSocket | undefined;
    const id = ++opened;
    const log = (line: string) => options.log?.(`session ${id}: ${line}`);
    const open = (ws: WSContext): Session => {
      if (session) return session;
      preferArrayBuffers(ws.raw);
      const own: SessionSocket = {
        send: (data) => ws.send(data),
        close: (code, reason) => ws.close(code, reason),
        bufferedAmount: () => queuedBytes(ws.raw),
      };
      socket = own;
      const kept = store.take(key);
      if (kept) {
        kept.attach(own);
        session = kept;
        log("resumed a kept session");
      } else {
        session = new Session(own, {
          ...options.session,
          factory: options.factory,
          participant,
          dataRoot: options.dataRoot,
          clock: options.clock?.(),
          ...(audio && options.audio ? { audio: options.audio.options() } : {}),
          log,
        });
      }
      sessions.add(session);
      store.attached(key, session);
      held?.release();
      return session;
    };
    return {
      onOpen: (_event, ws) => void open(ws),
      onMessage: (event, ws) => open(ws).receive(event.data),
      onClose: () => {
        held?.release();
        if (!session) return;
        sessions.delete(session);
        session.detach(socket);
        store.detached(key, session);
      },
      onError: (event) => log(socketTrouble(event)),
    };
  });

  app.get("/ws", admit, upgrade, (c) => c.json({ error: "expected a WebSocket upgrade" }, 426));
  return app;
}

/** A slot (and a session name) held for an upgrade between admission and open. */
interface Claim {
  release(): void;
}

/** Which participant a URL asks for: `?agent=NAME`, `?user=NAME`, or the default agent. */
function chooseParticipant(
  agent: string | undefined,
  user: string | undefined,
  options: AppOptions,
): { name: string; side: Side } | { error: string } {
  if (agent !== undefined && user !== undefined) {
    return { error: "give ?agent= or ?user=, not both" };
  }
  const side: Side = user !== undefined ? "user" : "agent";
  const name = user ?? agent ?? options.defaultAgent ?? DEFAULT_AGENT;
  if (options.agents && !options.agents.includes(name)) {
    return { error: `unknown participant "${name}" (known: ${options.agents.join(", ")})` };
  }
  return { name, side };
}

/** Whether a session is an audio one: `?audio=1|0` (also true/false), else the server's default. */
function wantsAudio(
  query: string | undefined,
  audio: AppAudio | undefined,
): boolean | { error: string } {
  if (query === undefined) return audio?.enabled ?? false;
  const on = ["1", "true"].includes(query) ? true : ["0", "false"].includes(query) ? false : null;
  if (on === null) return { error: `?audio= takes 1 or 0, not "${query}"` };
  if (on && !audio) return { error: "this server was started without audio" };
  return on;
}

/** Whether the request carries the token, compared in constant time. */
function authorized(request: Request, token: string): boolean {
  const header = request.headers.get("authorization") ?? "";
  const bearer = /^Bearer\s+(.+)$/i.exec(header)?.[1]?.trim();
  const query = new URL(request.url).searchParams.get("token") ?? undefined;
  return [bearer, query].some((given) => given !== undefined && sameSecret(given, token));
}

function sameSecret(a: string, b: string): boolean {
  const digest = (s: string) => createHash("sha256").update(s, "utf8").digest();
  return timingSafeEqual(digest(a), digest(b));
}

/**
 * One short log line for a socket error: a client that went away is named as such,
 * anything else as a protocol error; the runtime's raw text is not repeated.
 */
export function socketTrouble(event: Event): string {
  const message = event instanceof ErrorEvent ? event.message : "";
  return /EOF|reset|broken pipe|closed/i.test(message)
    ? "the client dropped the connection without closing it"
    : "connection closed after a WebSocket protocol error from the client";
}

/**
 * Bytes sent on a socket and not yet written out: serve's sockets count them
 * (`queuedBytes`); a WebSocket, Deno's or the `ws` one of `@hono/node-ws`, has
 * `bufferedAmount`.
 */
function queuedBytes(raw: unknown): number {
  if (typeof raw !== "object" || raw === null) return 0;
  if ("queuedBytes" in raw) return Number(raw.queuedBytes);
  if ("bufferedAmount" in raw) return Number(raw.bufferedAmount);
  return 0;
}

/** Binary frames as ArrayBuffers, so a session need not read Blobs (Deno's default). */
function preferArrayBuffers(raw: unknown): void {
  if (typeof WebSocket !== "undefined" && raw instanceof WebSocket) raw.binaryType = "arraybuffer";
}

/**
 * The WebSocket client plumbing every wire mapping shares (RTVI in JSON or protobuf
 * frames, Twilio Media Streams): connect with a bounded number of attempts and a
 * doubling back-off, HTTP answers to the upgrade (401/403 `agent_unauthorized`, other
 * 4xx not retried), a connect timeout on the call's clock, a size bound on every frame
 * received, and a close that waits (briefly) for the closing handshake. What the frames
 * mean is the mapping's business (`./rtvi.ts`, `./twilio.ts`).
 *
 * The socket is the `ws` package's client, not Deno's built-in `WebSocket`: Deno's
 * client leaves Nagle's algorithm on (`TCP_NODELAY` 0) and writes a frame's header and
 * payload separately, so every frame between about 1.4 KB and 64 KB (tool results,
 * `update_system_prompt`) waits out the peer's delayed ACK, about 40 ms (still so on
 * Deno 2.9.6: a 10 KB frame's loopback round trip is 44 ms against 0.07 to 0.15 ms with
 * `ws`; `./ws_client_bench.ts`). What `ws` costs more is small: an audio frame sent and
 * received takes it 2 to 6 µs longer in the bench, 0.02 to 0.06 cores at 200 calls'
 * 10,000 frames a second. `ws` sets no-delay on its sockets. It reads
 * `WS_NO_BUFFER_UTIL` and `WS_NO_UTF_8_VALIDATE` when loaded, so every task that
 * connects allows those two variables; it is loaded on the first connection, so
 * commands that never connect do not pay for it.
 *
 * @module
 */
import { type Clock, ParticipantError } from "../bridge/call.ts";
import type { Side } from "../domains/domain.ts";
import { realTimeTicker } from "../audio/pacer.ts";

/**
 * What a mapping uses of a client WebSocket: the WHATWG interface, which both the
 * `ws` package's client and Deno's built-in one have.
 */
export interface ClientSocket {
  readonly readyState: number;
  binaryType: string;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number; reason: string }) => void) | null;
  onerror: ((event: { message?: string }) => void) | null;
  send(data: string | Uint8Array<ArrayBuffer>): void;
  close(code?: number, reason?: string): void;
}

/**
 * Opens a socket; `maxPayload` is the largest frame the socket itself accepts, `headers`
 * go with the upgrade request (an API key's `Authorization`, never in the URL).
 */
export type Connector = (
  url: string,
  maxPayload: number,
  headers?: Record<string, string>,
) => ClientSocket | Promise<ClientSocket>;

const OPEN = 1;
const CLOSED = 3;

/** Frames over this many bytes are refused by default (the reference bot's cap is ~1 MB). */
export const DEFAULT_MAX_FRAME_BYTES = 1 << 20;
const DEFAULT_ATTEMPTS = 3;
const DEFAULT_RETRY_MS = 250;
const DEFAULT_CONNECT_TIMEOUT_MS = 5000;
/** How long `close()` waits for the closing handshake. */
const CLOSE_WAIT_MS = 2000;

/**
 * URLs that failed every connection attempt: each later trial tries them once (no
 * back-off) until one connects, so an agent that is down costs a run one back-off,
 * not one per trial.
 */
const _unreachable = new Set<string>();

/** How to reach the peer, and what to do with what it sends. */
export interface WsClientOptions {
  /** The URL connected to (with any token). */
  url: string;
  /** The URL as messages show it (no token). */
  shownUrl: string;
  /** The side the peer plays, for messages. */
  side: Side;
  clock: Clock;
  /** Connection attempts before `agent_unreachable` (default 3). */
  connectAttempts?: number;
  /** Delay before the second attempt, doubling each time (default 250 ms). */
  retryDelayMs?: number;
  /** How long one attempt may take to open the socket (default 5000 ms). */
  connectTimeoutMs?: number;
  /** Frames over this many bytes are refused (default 1 MiB). */
  maxFrameBytes?: number;
  /** Opens the socket (tests; default the `ws` package's client). */
  connect?: Connector;
  /** Headers of the upgrade request (never shown in messages). */
  headers?: Record<string, string>;
  /**
   * One frame, text or bytes, within the size bound. The bytes may be a view of the
   * socket's read buffer: read them now, or copy them.
   */
  onFrame(data: string | Uint8Array): void;
  /** A frame that cannot be taken (wrong type, too large): the peer is broken. */
  onGarbage(what: string): void;
  /** The open socket closed (by either end). */
  onClosed(event: { code: number; reason: string }): void;
}

/** Why one connection attempt failed; `status` is the HTTP answer to the upgrade. */
interface AttemptFailure {
  error: string;
  status?: number;
}

/** One open connection to a peer. */
export class WsClient {
  readonly #ws: ClientSocket;
  readonly #closed: Promise<void>;

  /** An open socket and the promise of its close (use `WsClient.connect`). */
  constructor(ws: ClientSocket, closed: Promise<void>) {
    this.#ws = ws;
    this.#closed = closed;
  }

  /**
   * Connects, retrying as the options say. Throws `ParticipantError`:
   * `agent_unauthorized` (HTTP 401/403), `agent_unreachable` (every attempt failed, or
   * another HTTP 4xx, which is not retried).
   */
  static async connect(options: WsClientOptions): Promise<WsClient> {
    const { url, shownUrl, side } = options;
    const known = _unreachable.has(url);
    const attempts = known ? 1 : Math.max(1, options.connectAttempts ?? DEFAULT_ATTEMPTS);
    let delay = options.retryDelayMs ?? DEFAULT_RETRY_MS;
    let last: AttemptFailure = { error: "" };
    for (let attempt = 1; attempt <= attempts; attempt++) {
      if (attempt > 1) {
        await options.clock.sleep(delay);
        delay *= 2;
      }
      const result = await open(options);
      if (!("error" in result)) {
        _unreachable.delete(url);
        return result;
      }
      last = result;
      if (result.status === 401 || result.status === 403) {
        throw new ParticipantError(
          "agent_unauthorized",
          `the ${side} at ${shownUrl} refused the connection: HTTP ${result.status} (check the token)`,
        );
      }
      // The server answered and said no: asking again gets the same answer.
      if (result.status !== undefined && !retriedStatus(result.status)) {
        throw new ParticipantError(
          "agent_unreachable",
          `cannot connect to ${shownUrl} (${side}): HTTP ${result.status} ` +
            `to the WebSocket upgrade (not retried)`,
        );
      }
    }
    _unreachable.add(url);
    throw new ParticipantError(
      "agent_unreachable",
      `cannot connect to ${shownUrl} (${side}) after ${attempts} attempt(s)${
        known ? " (it was unreachable for an earlier trial)" : ""
      }: ${last.error}`,
    );
  }

  /** The socket is open (sending is possible). */
  get open(): boolean {
    return this.#ws.readyState === OPEN;
  }

  /** The socket is fully closed. */
  get closed(): boolean {
    return this.#ws.readyState === CLOSED;
  }

  /** Sends one frame; false when the socket is not open or refused it (the close handler reports why). */
  send(data: string | Uint8Array<ArrayBuffer>): boolean {
    if (!this.open) return false;
    try {
      this.#ws.send(data);
      return true;
    } catch {
      return false;
    }
  }

  /** Closes the socket and waits for the closing handshake, at most two seconds. */
  async close(code = 1000, reason = "call over"): Promise<void> {
    if (this.closed) return;
    try {
      this.#ws.close(code, reason);
    } catch { /* already closing */ }
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      this.#closed,
      new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS))),
    ]);
    clearTimeout(timer);
  }
}

/** One attempt: the open client, or why it failed. */
async function open(options: WsClientOptions): Promise<WsClient | AttemptFailure> {
  // Loading the client is no connection attempt: a failure there is the harness's.
  const connect = options.connect ?? await wsConnector();
  const maxFrameBytes = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
  let ws: ClientSocket;
  try {
    // Up to 4× the frame cap the frame reaches the size check, which names its size.
    ws = await connect(options.url, 4 * maxFrameBytes, options.headers);
  } catch (e) {
    return { error: (e as Error).message };
  }
  return new Promise((resolve) => {
    // The `ws` client's own Buffers (a view of what the socket read): "arraybuffer" would
    // copy each frame into a buffer of its own, and every buffer made brings the next full
    // GC nearer. A socket without that type (a browser-style one) gives ArrayBuffers.
    ws.binaryType = "nodebuffer";
    if (ws.binaryType !== "nodebuffer") ws.binaryType = "arraybuffer";
    const timeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    const cancel = options.clock.timer(timeoutMs, () => {
      settle({ error: `no connection within ${timeoutMs} ms` });
      try {
        ws.close();
      } catch { /* never opened */ }
    });
    let done = false;
    const settle = (outcome: WsClient | AttemptFailure) => {
      if (done) return;
      done = true;
      cancel();
      resolve(outcome);
    };
    let opened = false;
    const closed = new Promise<void>((resolveClosed) => {
      ws.onclose = (event) => {
        resolveClosed();
        if (opened) options.onClosed(event);
        else settle({ error: `closed before opening (code ${event.code})` });
      };
    });
    ws.onerror = (event) => {
      const message = event.message || "connection error";
      if (!done) return settle({ error: message, ...upgradeStatus(message) });
      if (!opened) return;
      // After the open: the frame cap enforced by the socket itself...
      if (/max payload/i.test(message)) {
        options.onGarbage(`a frame over the limit of ${maxFrameBytes} bytes`);
      } else if (/invalid websocket frame|utf-8/i.test(message)) {
        // ...and frames the socket cannot read (text that is not UTF-8, bad opcodes):
        // the peer's garbage, not a plain disconnect (the close that follows is 1006).
        options.onGarbage(`a broken WebSocket frame (${message})`);
      }
    };
    ws.onopen = () => {
      if (done) return; // timed out meanwhile: this socket is being closed
      opened = true;
      ws.onmessage = (event) => {
        // Frames come in batches: the chunks due meanwhile go out first.
        realTimeTicker.poll();
        const raw = event.data;
        const data = typeof raw === "string" || raw instanceof Uint8Array
          ? raw
          : raw instanceof ArrayBuffer
          ? new Uint8Array(raw)
          : undefined;
        if (data === undefined) return options.onGarbage("a frame of an unexpected type");
        const size = frameBytes(data, maxFrameBytes);
        if (size > maxFrameBytes) {
          return options.onGarbage(`frame too large: ${size} bytes (limit ${maxFrameBytes})`);
        }
        options.onFrame(data);
      };
      settle(new WsClient(ws, closed));
    };
  });
}

/** A frame's size in bytes, counted only when it may exceed `limit`. */
function frameBytes(data: string | Uint8Array, limit: number): number {
  if (typeof data !== "string") return data.byteLength;
  // UTF-8 takes at most three bytes per UTF-16 unit: most frames need no count.
  return data.length * 3 <= limit ? data.length : new TextEncoder().encode(data).length;
}

/** HTTP statuses worth asking again: 408 and 429 may pass later, and any 5xx. */
function retriedStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/** The HTTP status of a refused upgrade, from the `ws` client's error message. */
function upgradeStatus(message: string): { status?: number } {
  const m = /Unexpected server response: (\d{3})/.exec(message);
  return m ? { status: Number(m[1]) } : {};
}

/** The part of the `ws` package used here (it ships no types of its own). */
interface WsModule {
  WebSocket: new (
    url: string,
    options: { perMessageDeflate: boolean; maxPayload: number; headers?: Record<string, string> },
  ) => ClientSocket;
}

let _wsModule: Promise<WsModule> | undefined;

/**
 * The `ws` client (loaded on first use; see the module doc for why `ws`). Its sockets
 * refuse frames over `maxPayload` themselves.
 */
export async function wsConnector(): Promise<Connector> {
  let ws: WsModule;
  try {
    ws = await (_wsModule ??= import("ws") as Promise<WsModule>);
  } catch (e) {
    _wsModule = undefined;
    throw new Error(`cannot load the WebSocket client (npm:ws): ${(e as Error).message}`);
  }
  // Deno's client offers no compression either; deflate would only add latency.
  return (url, maxPayload, headers) =>
    new ws.WebSocket(url, {
      perMessageDeflate: false,
      maxPayload,
      ...(headers ? { headers } : {}),
    });
}

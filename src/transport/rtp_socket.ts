/**
 * UDP sockets for RTP, owned by one Worker shared by every SIP call in the process
 * (`./rtp_socket_worker.ts`): each datagram comes with the time it arrived, read on a
 * thread that does nothing else, so a call's measures do not take in the main thread's
 * own stalls (a timer, a GC pause or another call's work while the agent's first packet
 * waited to be read).
 *
 * @module
 */
import type { RtpSocketEvent, RtpSocketRequest } from "./rtp_socket_worker.ts";

/** Where a datagram came from. */
export interface RtpSource {
  address: string;
  port: number;
}

/** What a socket hears: each datagram, and the Worker's failure. */
export interface RtpSocketHandlers {
  /** `atMs`: when it arrived, as `performance.now()` on this thread. */
  message(bytes: Uint8Array, from: RtpSource, atMs: number): void;
  /** The socket is gone: a send it could not make (a bad port), or the Worker failed. */
  error(message: string): void;
}

/** One UDP socket of the shared Worker. */
export interface RtpSocket {
  /** The local port it is bound to. */
  readonly port: number;
  send(bytes: Uint8Array, port: number, address: string): void;
  close(): void;
}

interface Open {
  handlers: RtpSocketHandlers;
  opened?: (port: number) => void;
  failed?: (message: string) => void;
}

/**
 * One Worker's sockets. The Worker starts with the first socket and stops with the last.
 * Calls share {@link openRtpSocket}'s; a test's own agent has one of its own, so what it
 * sends goes out on time whatever this thread is doing.
 */
export class RtpSocketHost {
  #worker: Worker | undefined;
  #nextId = 1;
  readonly #open = new Map<number, Open>();

  /** Whether its Worker is running. */
  get running(): boolean {
    return this.#worker !== undefined;
  }

  /** Binds a UDP socket on `address` (any free port). Rejects when the bind fails. */
  open(address: string, handlers: RtpSocketHandlers): Promise<RtpSocket> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      const entry: Open = {
        handlers,
        opened: (port) => {
          entry.opened = entry.failed = undefined;
          let closed = false;
          resolve({
            port,
            send: (bytes, to, host) => {
              if (!closed) this.#request({ t: "send", id, bytes, port: to, address: host });
            },
            close: () => {
              if (closed) return;
              closed = true;
              this.#request({ t: "close", id });
              this.#open.delete(id);
              this.#stopIfIdle();
            },
          });
        },
        failed: (message) =>
          reject(new Error(`Cannot bind a UDP socket on ${address}: ${message}`)),
      };
      this.#open.set(id, entry);
      this.#start();
      this.#request({ t: "open", id, address });
    });
  }

  #request(m: RtpSocketRequest): void {
    this.#worker?.postMessage(m);
  }

  #onEvent = (event: MessageEvent<RtpSocketEvent>): void => {
    const m = event.data;
    if (m.t === "datagrams") {
      for (const d of m.list) {
        this.#open.get(d.id)?.handlers.message(
          d.bytes,
          { address: d.address, port: d.port },
          d.at - performance.timeOrigin,
        );
      }
      return;
    }
    const s = this.#open.get(m.id);
    if (!s) return;
    if (m.t === "opened") return s.opened?.(m.port);
    // Its bind failed (the open rejects), or a send it could not make ended it.
    this.#open.delete(m.id);
    (s.failed ?? s.handlers.error)(m.message);
    this.#stopIfIdle();
  };

  #start(): void {
    if (this.#worker) return;
    const worker = new Worker(new URL("./rtp_socket_worker.ts", import.meta.url).href, {
      type: "module",
    });
    worker.onmessage = this.#onEvent;
    worker.onerror = (event) => {
      event.preventDefault();
      const sockets = [...this.#open.values()];
      this.#open.clear();
      this.#worker?.terminate();
      this.#worker = undefined;
      const message = `callbench's RTP Worker failed: ${event.message}`;
      for (const s of sockets) (s.failed ?? s.handlers.error)(message);
    };
    this.#worker = worker;
  }

  #stopIfIdle(): void {
    if (this.#open.size > 0 || !this.#worker) return;
    this.#worker.terminate();
    this.#worker = undefined;
  }
}

const shared = new RtpSocketHost();

/** Binds a UDP socket on `address` (any free port) in the Worker the calls share. */
export function openRtpSocket(address: string, handlers: RtpSocketHandlers): Promise<RtpSocket> {
  return shared.open(address, handlers);
}

/** Whether the calls' shared Worker is running (for tests: it stops with the last socket). */
export function rtpWorkerRunning(): boolean {
  return shared.running;
}

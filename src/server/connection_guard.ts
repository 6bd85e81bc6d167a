/**
 * What one client connection may cost its server, on the session's clock: refused
 * frames (a burst, then a rate), audio faster than real time (a multiple of it, past
 * a burst) and the processing time its audio takes (a share of a core), the time to
 * `client-ready`, and time without any frame. Past a bound the guard names the
 * violation once; the session answers it and closes the socket.
 *
 * @module
 */
import type { Clock } from "../clock/clock.ts";

/** How much one connection may ask of the server. */
export interface ConnectionLimits {
  /** Refused frames answered before the client is cut off (default 100). */
  refusalBurst?: number;
  /** Refused frames per second allowed past the burst (default 20). */
  refusalsPerSecond?: number;
  /** Audio received, as a multiple of real time, past the burst (default 4). */
  audioSpeed?: number;
  /** Audio that may come at once, ms of audio (default 5000). */
  audioBurstMs?: number;
  /** Share of one core hearing the client's audio may take, past the burst (default 0.25). */
  cpuShare?: number;
  /** Processing time that may be taken at once, ms (default 1000). */
  cpuBurstMs?: number;
  /** Bytes the client may send at once (default 16 MiB). */
  inboundBurstBytes?: number;
  /** Bytes per second the client may send past the burst (default 4 MiB). */
  inboundBytesPerSecond?: number;
  /** Bytes sent and not yet read by the client past which it is cut off (default 16 MiB). */
  maxQueuedBytes?: number;
  /** Bytes of replies (`server-response`) that may go at once (default 32 MiB). */
  replyBurstBytes?: number;
  /** Bytes of replies per second past the burst (default 8 MiB). */
  replyBytesPerSecond?: number;
  /** Time to `client-ready` after connecting, ms (default 10000; 0: no limit). */
  handshakeTimeoutMs?: number;
  /** Time without a frame from the client, ms (default 300000; 0: no limit). */
  idleTimeoutMs?: number;
}

/** Defaults of `ConnectionLimits`. */
export const DEFAULT_CONNECTION_LIMITS: Required<ConnectionLimits> = {
  refusalBurst: 100,
  refusalsPerSecond: 20,
  audioSpeed: 4,
  audioBurstMs: 5_000,
  cpuShare: 0.25,
  cpuBurstMs: 1_000,
  inboundBurstBytes: 16 * 2 ** 20,
  inboundBytesPerSecond: 4 * 2 ** 20,
  maxQueuedBytes: 16 * 2 ** 20,
  replyBurstBytes: 32 * 2 ** 20,
  replyBytesPerSecond: 8 * 2 ** 20,
  handshakeTimeoutMs: 10_000,
  idleTimeoutMs: 300_000,
};

/** Why a connection is cut off: the close code and a reason for the client. */
export interface Violation {
  code: number;
  reason: string;
}

/** A bucket of `capacity` tokens refilled at `perSecond` on a clock. */
class Bucket {
  readonly #capacity: number;
  readonly #perMs: number;
  #tokens: number;
  #at: number;

  constructor(capacity: number, perSecond: number, now: number) {
    this.#capacity = capacity;
    this.#perMs = perSecond / 1000;
    this.#tokens = capacity;
    this.#at = now;
  }

  /** Takes `n` tokens if there are; false (taking none) if not. */
  take(n: number, now: number): boolean {
    this.#refill(now);
    if (this.#tokens < n) return false;
    this.#tokens -= n;
    return true;
  }

  /** Takes `n` tokens, into debt if need be. */
  spend(n: number, now: number): void {
    this.#refill(now);
    this.#tokens -= n;
  }

  /** Whether any token is left (no debt). */
  left(now: number): boolean {
    this.#refill(now);
    return this.#tokens > 0;
  }

  #refill(now: number): void {
    this.#tokens = Math.min(this.#capacity, this.#tokens + (now - this.#at) * this.#perMs);
    this.#at = now;
  }
}

/** The bounds of one connection, from its first frame to its close. */
export class ConnectionGuard {
  readonly #clock: Clock;
  readonly #limits: Required<ConnectionLimits>;
  readonly #violated: (v: Violation) => void;
  readonly #refusals: Bucket;
  readonly #audio: Bucket;
  readonly #cpu: Bucket;
  readonly #replies: Bucket;
  readonly #inbound: Bucket;
  #lastFrameAt: number;
  #handshaken = false;
  #done = false;
  #cancelHandshake: () => void = () => {};
  #cancelIdle: () => void = () => {};
  /** Refused frames so far. */
  #refused = 0;

  constructor(clock: Clock, limits: ConnectionLimits, violated: (v: Violation) => void) {
    this.#clock = clock;
    this.#limits = { ...DEFAULT_CONNECTION_LIMITS, ...defined(limits) };
    this.#violated = violated;
    const now = clock.now();
    this.#lastFrameAt = now;
    const l = this.#limits;
    this.#refusals = new Bucket(l.refusalBurst, l.refusalsPerSecond, now);
    this.#audio = new Bucket(l.audioBurstMs, l.audioSpeed * 1000, now);
    this.#cpu = new Bucket(l.cpuBurstMs, l.cpuShare * 1000, now);
    this.#replies = new Bucket(l.replyBurstBytes, l.replyBytesPerSecond, now);
    this.#inbound = new Bucket(l.inboundBurstBytes, l.inboundBytesPerSecond, now);
    if (l.handshakeTimeoutMs > 0) {
      this.#cancelHandshake = clock.timer(l.handshakeTimeoutMs, () => {
        if (!this.#handshaken) {
          this.#violate({
            code: 1008,
            reason: `no client-ready within ${seconds(l.handshakeTimeoutMs)}`,
          });
        }
      });
    }
    this.#armIdle(l.idleTimeoutMs);
  }

  /**
   * A frame of `bytes` arrived (any frame keeps the connection from idling): the
   * violation once the client sends more bytes than the inbound bound, else undefined.
   */
  frame(bytes: number): Violation | undefined {
    const now = this.#clock.now();
    this.#lastFrameAt = now;
    if (this.#done || this.#inbound.take(bytes, now)) return undefined;
    return this.#over(
      `more than ${mib(this.#limits.inboundBurstBytes)} at once, then ` +
        `${mib(this.#limits.inboundBytesPerSecond)}/s, sent`,
    );
  }

  /** The client sent `client-ready`. */
  handshaken(): void {
    this.#handshaken = true;
    this.#cancelHandshake();
  }

  /** A frame is refused; false once refusals are past their bound (the client is cut off). */
  refuse(): boolean {
    this.#refused++;
    if (this.#done) return false;
    if (this.#refusals.take(1, this.#clock.now())) return true;
    this.#violate({
      code: 1008,
      reason: `too many refused frames (${this.#refused}; at most ${this.#limits.refusalBurst} ` +
        `at once, then ${this.#limits.refusalsPerSecond}/s)`,
    });
    return false;
  }

  /**
   * `ms` of the client's audio arrived: the violation once past the bound (the guard is
   * then done; the caller answers and cuts the client off), else undefined.
   */
  audio(ms: number): Violation | undefined {
    if (this.#done) return undefined;
    if (this.#audio.take(ms, this.#clock.now())) return undefined;
    return this.#over(`audio faster than ${this.#limits.audioSpeed}x real time`);
  }

  /** Hearing the client's audio took `ms` of processing: the violation once past the bound. */
  cpu(ms: number): Violation | undefined {
    if (this.#done) return undefined;
    if (this.#cpu.take(ms, this.#clock.now())) return undefined;
    return this.#over(
      `its audio took more than ${this.#limits.cpuShare * 100}% of a core to hear`,
    );
  }

  /**
   * Whether a request may be answered now: the replies sent so far are within the
   * reply byte rate (checked before the work of answering, which a reply's size follows).
   */
  mayReply(): boolean {
    return this.#replies.left(this.#clock.now());
  }

  /** A reply of `bytes` went out. */
  replied(bytes: number): void {
    this.#replies.spend(bytes, this.#clock.now());
  }

  /** Whether `bytes` more may be queued on top of `queued` unread ones. */
  roomToSend(queued: number, bytes: number): boolean {
    return queued + bytes <= this.#limits.maxQueuedBytes;
  }

  /** The client does not read what it is sent: the violation to cut it off with. */
  notReading(queued: number): Violation {
    return this.#over(`the client does not read its frames (${queued} bytes wait)`);
  }

  #over(reason: string): Violation {
    this.stop();
    return { code: 1008, reason };
  }

  /** The connection ended: no more timers. */
  stop(): void {
    this.#done = true;
    this.#cancelHandshake();
    this.#cancelIdle();
  }

  #armIdle(ms: number): void {
    if (this.#limits.idleTimeoutMs <= 0 || this.#done) return;
    this.#cancelIdle = this.#clock.timer(ms, () => {
      const quiet = this.#clock.now() - this.#lastFrameAt;
      const left = this.#limits.idleTimeoutMs - quiet;
      if (left > 0) return this.#armIdle(left);
      this.#violate({
        code: 1001,
        reason: `no frame for ${seconds(this.#limits.idleTimeoutMs)}`,
      });
    });
  }

  #violate(v: Violation): void {
    if (this.#done) return;
    this.stop();
    this.#violated(v);
  }
}

function mib(bytes: number): string {
  return `${+(bytes / 2 ** 20).toFixed(2)} MiB`;
}

function seconds(ms: number): string {
  return `${ms / 1000} s`;
}

function defined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

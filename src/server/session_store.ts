/**
 * Sessions kept across reconnects. The reference's bots keep their state (prompt,
 * tools, world, context, actions) when their one client disconnects, and its runner
 * relies on it: it configures a bot on one connection and runs the call on the next.
 * So a session whose client went away is kept under its key, and the next connection
 * with that key resumes it:
 *
 * - the key is the `session` query parameter when given; else the request's path and
 *   query (parameters sorted, `token` left out), so a client that always dials the
 *   same URL finds its session again, as with the reference's one-client bots;
 * - a kept session is freed after `idleMs` without a client (default 10 min), and at
 *   most `maxKept` are kept (default 64; past it the longest-idle one is freed), so
 *   memory stays bounded by the per-session byte budgets times that cap.
 *
 * @module
 */
import type { Clock } from "../bridge/call.ts";
import { RealClock } from "../clock/clock.ts";
import type { Session } from "./session.ts";

/** Default time a session without a client is kept, ms. */
export const DEFAULT_SESSION_IDLE_MS = 10 * 60_000;
/** Default number of sessions kept without a client. */
export const DEFAULT_MAX_KEPT_SESSIONS = 64;

/** How long and how many sessions without a client are kept. */
export interface SessionStoreOptions {
  /** How long a session without a client is kept (0: never kept). */
  idleMs?: number;
  /** Most sessions kept without a client. */
  maxKept?: number;
  /** The clock of the idle timers (tests inject a simulated one). */
  clock?: Clock;
  /** Diagnostics, one line each (a session freed, ...). */
  log?: (line: string) => void;
}

/** A session's key from its request: `session=NAME`, else the URL without the token. */
export function sessionKey(url: string): { key: string; named: boolean } {
  const u = new URL(url);
  const named = u.searchParams.get("session");
  if (named !== null) return { key: `session:${named}`, named: true };
  const params = [...u.searchParams].filter(([k]) => k !== "token")
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const query = new URLSearchParams(params).toString();
  return { key: `url:${u.pathname}${query ? `?${query}` : ""}`, named: false };
}

interface Kept {
  session: Session;
  cancelTimer: () => void;
}

/** The kept sessions of one server. */
export class SessionStore {
  readonly #idleMs: number;
  readonly #maxKept: number;
  readonly #clock: Clock;
  readonly #log: (line: string) => void;
  /** Kept sessions by key, longest idle first. */
  readonly #kept = new Map<string, Kept>();
  /** Sessions with a client now, by key. */
  readonly #attached = new Map<string, Set<Session>>();

  /** A store with these limits (default `DEFAULT_SESSION_IDLE_MS`, `DEFAULT_MAX_KEPT_SESSIONS`). */
  constructor(options: SessionStoreOptions = {}) {
    this.#idleMs = options.idleMs ?? DEFAULT_SESSION_IDLE_MS;
    this.#maxKept = options.maxKept ?? DEFAULT_MAX_KEPT_SESSIONS;
    this.#clock = options.clock ?? new RealClock();
    this.#log = options.log ?? (() => {});
  }

  /** Sessions kept without a client. */
  get kept(): number {
    return this.#kept.size;
  }

  /** The kept session of `key`, if any (it stays kept until `attach`). */
  peek(key: string): Session | undefined {
    return this.#kept.get(key)?.session;
  }

  /** Whether a client holds a session of `key` now. */
  inUse(key: string): boolean {
    return (this.#attached.get(key)?.size ?? 0) > 0;
  }

  /** Takes the kept session of `key` for a new client, if there is one. */
  take(key: string): Session | undefined {
    const kept = this.#kept.get(key);
    if (!kept) return undefined;
    this.#kept.delete(key);
    kept.cancelTimer();
    return kept.session;
  }

  /** Records that `session` of `key` has a client now. */
  attached(key: string, session: Session): void {
    let set = this.#attached.get(key);
    if (!set) this.#attached.set(key, set = new Set());
    set.add(session);
  }

  /**
   * The client of `session` went away: keep it under `key` (replacing, and freeing,
   * another kept there), unless it was freed already or nothing may be kept.
   */
  detached(key: string, session: Session): void {
    const set = this.#attached.get(key);
    set?.delete(session);
    if (set?.size === 0) this.#attached.delete(key);
    if (session.isClosed) return;
    if (this.#idleMs <= 0 || this.#maxKept <= 0) return void this.#free(session, "not kept");
    const previous = this.#kept.get(key);
    if (previous && previous.session !== session) {
      this.#kept.delete(key);
      previous.cancelTimer();
      this.#free(previous.session, "replaced by a newer session of the same key");
    }
    const cancelTimer = this.#clock.timer(this.#idleMs, () => {
      if (this.#kept.get(key)?.session !== session) return;
      this.#kept.delete(key);
      this.#free(session, `idle for ${this.#idleMs} ms`);
    });
    this.#kept.set(key, { session, cancelTimer });
    while (this.#kept.size > this.#maxKept) {
      const [oldestKey, oldest] = this.#kept.entries().next().value!;
      this.#kept.delete(oldestKey);
      oldest.cancelTimer();
      this.#free(oldest.session, `over the cap of ${this.#maxKept} kept sessions`);
    }
  }

  /** Frees every kept session (shutdown). */
  async freeAll(): Promise<void> {
    const all = [...this.#kept.values()];
    this.#kept.clear();
    for (const k of all) k.cancelTimer();
    await Promise.all(all.map((k) => k.session.closed()));
  }

  #free(session: Session, why: string): Promise<void> {
    this.#log(`freeing a kept session: ${why}`);
    return session.closed().catch((e) => this.#log(`freeing a session failed: ${e}`));
  }
}

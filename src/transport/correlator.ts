/**
 * Request correlation: a request waits for the reply that carries its id, on the
 * call's clock, at most a timeout. What counts as the reply (or a refusal) is the
 * mapping's decision, given as `accept`; the correlator only keeps the table.
 *
 * @module
 */
import type { Clock, ParticipantError } from "../bridge/call.ts";

/** What `accept` makes of a message delivered under the request's id. */
export type Verdict = "reply" | "ignore" | { refuse: ParticipantError };

export interface WaitOptions<M> {
  /** `null`: as long as the connection lasts. */
  timeoutMs: number | null;
  /** The error of a request that timed out. */
  timedOut: () => ParticipantError;
  accept: (message: M) => Verdict;
}

interface Pending<M> {
  deliver(message: M): void;
  reject(error: ParticipantError): void;
}

/** Pending requests by id. */
export class Correlator<M> {
  readonly #clock: () => Clock;
  readonly #pending = new Map<string, Pending<M>>();

  /** `clock` is read when a request starts (the line is known only once the call starts). */
  constructor(clock: () => Clock) {
    this.#clock = clock;
  }

  /** Waits for the reply to request `id` (register before sending it). */
  wait(id: string, options: WaitOptions<M>): Promise<M> {
    return new Promise((resolve, reject) => {
      const cancel = options.timeoutMs === null
        ? () => {}
        : this.#clock().timer(options.timeoutMs, () => {
          this.#pending.delete(id);
          reject(options.timedOut());
        });
      const settle = () => {
        cancel();
        this.#pending.delete(id);
      };
      this.#pending.set(id, {
        deliver: (message) => {
          const verdict = options.accept(message);
          if (verdict === "ignore") return;
          settle();
          if (verdict === "reply") resolve(message);
          else reject(verdict.refuse);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      });
    });
  }

  /** Hands `message` to the request `id`; false when none waits under that id. */
  deliver(id: string | undefined, message: M): boolean {
    const pending = id === undefined ? undefined : this.#pending.get(id);
    if (!pending) return false;
    pending.deliver(message);
    return true;
  }

  /** Fails every pending request (the connection closed). */
  rejectAll(error: ParticipantError): void {
    for (const pending of [...this.#pending.values()]) pending.reject(error);
  }
}

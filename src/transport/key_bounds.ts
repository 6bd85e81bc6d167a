/**
 * The bound on the keys a peer presses, for every wire that hears keys (RFC 4733
 * events, SIP INFO, in-band tones): a phone menu needs a few dozen keys in a call, and a
 * person presses a few a second; a peer that presses thousands would have callbench
 * keep each one (and its tone) until the record is written. Past the bound the call is
 * `protocol_error`, naming it.
 *
 * @module
 */
import type { Clock } from "../bridge/call.ts";
import { LeakyBucket } from "./flood_bounds.ts";

/** Keys a peer may press in one call... */
export const MAX_KEYS_PER_CALL = 500;
/** ...in a burst... */
export const MAX_KEY_BURST = 40;
/** ...and a second, on average, beyond the burst (RFC 4733 senders press about 5). */
export const KEYS_PER_SECOND = 10;

/** One call's keys: `add` says what bound a key passed, or undefined while within them. */
export class KeyBounds {
  readonly #rate: LeakyBucket;
  #count = 0;

  constructor(clock: Clock) {
    this.#rate = new LeakyBucket(clock, MAX_KEY_BURST, KEYS_PER_SECOND);
  }

  /** Keys counted so far. */
  get count(): number {
    return this.#count;
  }

  /** Counts one key; the bound it passed, in words, if any. */
  add(): string | undefined {
    this.#count++;
    if (this.#count > MAX_KEYS_PER_CALL) {
      return `pressed more than ${MAX_KEYS_PER_CALL} keys in one call`;
    }
    if (!this.#rate.add(1)) {
      return `pressed keys faster than ${KEYS_PER_SECOND} a second (more than ${MAX_KEY_BURST} at once)`;
    }
    return undefined;
  }
}

/**
 * The DTMF key alphabet, defined once: the sixteen keys a phone keypad can send
 * (`0-9 * # A-D`). Everything that checks keys (the bridge, the wire, scripts, flow
 * callers, the `send_dtmf` tool, tone generation) reads it from here. This module
 * imports nothing, so every layer may use it.
 *
 * @module
 */

/** The sixteen keys, digits first, as one string. */
export const DTMF_KEY_CHARS = "0123456789*#ABCD";

const CLASS = "[0-9*#A-D]";

/** Exactly one key. */
export const DTMF_KEY: RegExp = new RegExp(`^${CLASS}$`);

/** One or more keys, in order (`DTMF_KEYS.source` is the JSON Schema `pattern`). */
export const DTMF_KEYS: RegExp = new RegExp(`^${CLASS}+$`);

/** The alphabet as a person reads it, for messages. */
export const DTMF_KEYS_TEXT = "0-9, *, #, A-D";

/** Whether `keys` is a non-empty string of keys (upper-case letters only). */
export function isDtmfKeys(keys: unknown): keys is string {
  return typeof keys === "string" && DTMF_KEYS.test(keys);
}

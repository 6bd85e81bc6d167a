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

/** The keys as a regular-expression class, `[0-9*#A-D]` (none needs escaping in a class). */
const CLASS = `[${runs(DTMF_KEY_CHARS).map((r) => r.join("")).join("")}]`;

/** Exactly one key. */
export const DTMF_KEY: RegExp = new RegExp(`^${CLASS}$`);

/** One or more keys, in order (`DTMF_KEYS.source` is the JSON Schema `pattern`). */
export const DTMF_KEYS: RegExp = new RegExp(`^${CLASS}+$`);

/**
 * The alphabet as a person reads it, for messages (`0-9, *, #, A-D`): runs of three or
 * more consecutive characters are written as a range.
 */
export const DTMF_KEYS_TEXT: string = runs(DTMF_KEY_CHARS).map((r) => r.join("")).join(", ");

/** The characters in runs: three or more consecutive ones as `["0", "-", "9"]`, others alone. */
function runs(chars: string): string[][] {
  const out: string[][] = [];
  for (let i = 0; i < chars.length;) {
    let j = i;
    while (j + 1 < chars.length && chars.charCodeAt(j + 1) === chars.charCodeAt(j) + 1) j++;
    if (j - i >= 2) out.push([chars[i]!, "-", chars[j]!]);
    else for (let k = i; k <= j; k++) out.push([chars[k]!]);
    i = j + 1;
  }
  return out;
}

/** Whether `keys` is a non-empty string of keys (upper-case letters only). */
export function isDtmfKeys(keys: unknown): keys is string {
  return typeof keys === "string" && DTMF_KEYS.test(keys);
}

/**
 * Canonical JSON as the reference harness hashes a database (reference-harness §4):
 * `session` dropped at the top level, integral floats as integers, "none"/"null"
 * strings as null, arrays under the order-independent keys sorted, keys sorted by
 * code point, compact separators, Python `ensure_ascii` escaping and Python `repr`
 * float formatting.
 *
 * Frozen objects never change, so their canonical text is cached by identity: a
 * trial's world shares every untouched record with the loaded world, and hashing it
 * re-serialises only what the trial changed.
 *
 * @module
 */

/** Keys whose array values are compared as sets: sorted before serialising. */
export const ORDER_INDEPENDENT_KEYS: ReadonlySet<string> = new Set([
  "standby_list",
  "notifications",
  "bookings",
  "system_accounts",
  "group_memberships",
  "asset_recoveries",
]);

/** Top-level keys left out of the hash. */
export const EXCLUDED_TOP_LEVEL_KEYS: ReadonlySet<string> = new Set(["session"]);

const compactCache = new WeakMap<object, string>();
const spacedCache = new WeakMap<object, string>();

/** The canonical string of a database document (what is hashed). */
export function canonicalJson(doc: unknown): string {
  return canonicalPieces(doc).join("");
}

/**
 * The canonical string of a database document in pieces whose concatenation is
 * {@link canonicalJson}: the top-level punctuation and keys, and each top-level
 * value's text (flat, and cached when the value is frozen). A hash takes them one
 * by one, so the document's text is never built as one string.
 */
export function canonicalPieces(doc: unknown): string[] {
  if (!isPlainObject(doc)) return [_text(doc, false)];
  const keys = _sortedKeys(Object.keys(doc).filter((k) => !EXCLUDED_TOP_LEVEL_KEYS.has(k)));
  if (keys.length === 0) return ["{}"];
  const pieces: string[] = [];
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    pieces.push((i === 0 ? "{" : ",") + _keyText(k).text + ":", _valueText(k, doc[k], false));
  }
  pieces.push("}");
  return pieces;
}

/**
 * Python `json.dumps(x, sort_keys=True)` of the normalised value, with the default
 * `", "` and `": "` separators: the sort key of an order-independent array element.
 */
export function pythonSortKey(value: unknown): string {
  return _text(value, true);
}

function _text(value: unknown, spaced: boolean): string {
  switch (typeof value) {
    case "string":
      return _stringText(value);
    case "number":
      return formatPythonNumber(value);
    case "boolean":
      return value ? "true" : "false";
    case "object":
      if (value === null) return "null";
      if (Array.isArray(value)) return _arrayText(value, spaced);
      return _cachedObjectText(value as Record<string, unknown>, spaced);
    default:
      // undefined and functions do not occur in JSON documents.
      return "null";
  }
}

// Printable ASCII but `"` and `\\`: such a string needs no escaping at all.
const PLAIN_STRING = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

function _stringText(s: string): string {
  if (s.length >= 4 && _isNullWord(s)) return "null";
  if (PLAIN_STRING.test(s)) return '"' + s + '"';
  return escapeAscii(JSON.stringify(s));
}

const PY_SPACE_RUNS =
  // deno-lint-ignore no-control-regex
  /^[\t\n\v\f\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+|[\t\n\v\f\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/g;

/** The reference turns strings reading "none" or "null" (stripped, any case) into null. */
function _isNullWord(s: string): boolean {
  let t = s;
  if (s.length !== 4) {
    // Only a string with white space at either end can strip down to four letters.
    const first = s.charCodeAt(0);
    const last = s.charCodeAt(s.length - 1);
    if (first > 0x20 && first < 0x85 && last > 0x20 && last < 0x85) return false;
    t = s.replace(PY_SPACE_RUNS, "");
    if (t.length !== 4) return false;
  }
  const l = t.toLowerCase();
  return l === "none" || l === "null";
}

function _arrayText(a: readonly unknown[], spaced: boolean): string {
  if (a.length === 0) return "[]";
  const sep = spaced ? ", " : ",";
  let out = "[";
  for (let i = 0; i < a.length; i++) {
    if (i > 0) out += sep;
    out += _text(a[i], spaced);
  }
  return out + "]";
}

function _sortedArrayText(a: readonly unknown[], spaced: boolean): string {
  const keyed = a.map((v) => ({ key: _text(v, true), v }));
  keyed.sort((x, y) => compareCodePoints(x.key, y.key));
  if (spaced) return "[" + keyed.map((k) => k.key).join(", ") + "]";
  return "[" + keyed.map((k) => _text(k.v, false)).join(",") + "]";
}

function _cachedObjectText(o: Record<string, unknown>, spaced: boolean): string {
  const cache = spaced ? spacedCache : compactCache;
  const hit = cache.get(o);
  if (hit !== undefined) return hit;
  const text = _objectText(o, Object.keys(o), spaced);
  if (Object.isFrozen(o)) {
    // Flatten before caching: a text built by `+=` is a rope, and every later hash
    // of a world sharing this record would walk the rope's nodes again, and a
    // parent's text built from it would be a rope of ropes.
    _flatten(text);
    cache.set(o, text);
  }
  return text;
}

/** The cached canonical text of a frozen object, if any (tests check it is flat). */
export function cachedCanonicalText(o: object): string | undefined {
  return compactCache.get(o);
}

// Reading a char of a rope makes V8 flatten it in place. The read must be used: an
// unused `s.charCodeAt(0)` is dead code to the optimising compiler, which removes it
// (and the flatten with it). Keeping the result in a module variable keeps the read.
let _flatSink = 0;

/** Makes V8 flatten a rope in place. */
function _flatten(s: string): void {
  if (s.length > 0) _flatSink = (_flatSink + s.charCodeAt(0)) | 0;
}

/** A key's JSON text, and whether it holds chars whose UTF-16 order differs from Python's. */
const keyTexts = new Map<string, { text: string; astral: boolean }>();
const KEY_CACHE_LIMIT = 200_000;
const HIGH_CHAR = /[\ud800-\uffff]/;

function _keyText(k: string): { text: string; astral: boolean } {
  let hit = keyTexts.get(k);
  if (hit === undefined) {
    hit = { text: _stringTextOfKey(k), astral: HIGH_CHAR.test(k) };
    if (keyTexts.size >= KEY_CACHE_LIMIT) keyTexts.clear();
    keyTexts.set(k, hit);
  }
  return hit;
}

function _stringTextOfKey(k: string): string {
  return PLAIN_STRING.test(k) ? '"' + k + '"' : escapeAscii(JSON.stringify(k));
}

/** Keys in code-point order (sorted in place). */
function _sortedKeys(keys: string[]): string[] {
  // UTF-16 order is code-point order unless a key holds a surrogate or a char above
  // it; only then is the slower comparison needed.
  let astral = false;
  for (const k of keys) astral ||= _keyText(k).astral;
  return astral ? keys.sort(compareCodePoints) : keys.sort();
}

function _valueText(k: string, v: unknown, spaced: boolean): string {
  return Array.isArray(v) && ORDER_INDEPENDENT_KEYS.has(k)
    ? _sortedArrayText(v, spaced)
    : _text(v, spaced);
}

function _objectText(o: Record<string, unknown>, keys: string[], spaced: boolean): string {
  if (keys.length === 0) return "{}";
  _sortedKeys(keys);
  const sep = spaced ? ", " : ",";
  const colon = spaced ? ": " : ":";
  let out = "{";
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    if (i > 0) out += sep;
    out += _keyText(k).text + colon;
    out += _valueText(k, o[k], spaced);
  }
  return out + "}";
}

// deno-lint-ignore no-control-regex
const NON_ASCII = /[^\x00-\x7e]/;
// deno-lint-ignore no-control-regex
const NON_ASCII_GLOBAL = /[^\x00-\x7e]/g;

/** Python `ensure_ascii`: every char outside 0x00-0x7E as a lower-case `\uXXXX`. */
export function escapeAscii(jsonText: string): string {
  if (!NON_ASCII.test(jsonText)) return jsonText;
  return jsonText.replace(
    NON_ASCII_GLOBAL,
    (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"),
  );
}

/**
 * A number as Python prints it after the reference's normalisation: integral values
 * as integers, others as `repr(float)` (shortest round-trip digits; exponent form
 * below 1e-4 or from 1e16, with a sign and at least two exponent digits).
 */
export function formatPythonNumber(n: number): string {
  if (!Number.isFinite(n)) return Number.isNaN(n) ? "NaN" : n > 0 ? "Infinity" : "-Infinity";
  if (Number.isInteger(n)) {
    // Beyond 2^53 Python prints the float's exact integer value, not its shortest digits.
    return Math.abs(n) <= Number.MAX_SAFE_INTEGER ? String(n === 0 ? 0 : n) : BigInt(n).toString();
  }
  const abs = Math.abs(n);
  if (abs >= 1e-4 && abs < 1e16) return String(n);
  const [mantissa, exp] = n.toExponential().split("e") as [string, string];
  const sign = exp.startsWith("-") ? "-" : "+";
  const digits = exp.replace(/^[+-]/, "");
  return `${mantissa}e${sign}${digits.padStart(2, "0")}`;
}

/** Compare strings by Unicode code point, as Python does. */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    if (x < 0xd800 && y < 0xd800) return x - y;
    // A surrogate is involved: compare whole code points. A pair encodes one above
    // 0xFFFF; a lone surrogate (JSON allows "\ud800") is its own code point, as in
    // Python. The first difference may fall on the low half of a pair.
    const prev = i > 0 ? a.charCodeAt(i - 1) : 0;
    if (prev >= 0xd800 && prev <= 0xdbff) {
      const d = a.codePointAt(i - 1)! - b.codePointAt(i - 1)!;
      if (d !== 0) return d;
    }
    return a.codePointAt(i)! - b.codePointAt(i)!;
  }
  return a.length - b.length;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

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
  const pieces: string[] = [];
  canonicalStream(doc, (piece) => void pieces.push(piece));
  return pieces.join("");
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
    case "object": {
      if (value === null) return "null";
      const out = new Writer();
      _emit(value, spaced, out);
      return out.text;
    }
    default:
      // undefined and functions do not occur in JSON documents.
      return "null";
  }
}

/**
 * Where canonical text is written: a string grown by `+=`, handed to `flush` (a
 * hash) whenever it passes {@link FLUSH_CHARS}, so a streamed document's text is
 * never held whole and each rope that V8 flattens is small and still in cache.
 */
class Writer {
  text = "";
  constructor(readonly flush?: (text: string) => void) {}

  push(part: string): void {
    if (this.flush !== undefined && part.length >= FLUSH_CHARS) {
      // A big part (a cached table's flat text) goes on alone: joined to the buffer
      // it would become a rope that the hash must copy flat again.
      if (this.text.length > 0) this.flush(this.text);
      this.flush(part);
      this.text = "";
      return;
    }
    this.text += part;
    if (this.flush !== undefined && this.text.length >= FLUSH_CHARS) {
      this.flush(this.text);
      this.text = "";
    }
  }

  end(): void {
    if (this.flush !== undefined && this.text.length > 0) this.flush(this.text);
    this.text = "";
  }
}

/** How much text a streaming writer gathers before it is flushed. */
const FLUSH_CHARS = 1 << 15;

/**
 * Streams the canonical text of a database document to `write` in pieces (of about
 * 32 K chars, or a cached record's whole text) whose concatenation is
 * {@link canonicalJson}. What a hash uses: the whole text is never built.
 */
export function canonicalStream(doc: unknown, write: (text: string) => void): void {
  const out = new Writer(write);
  if (!isPlainObject(doc)) {
    _emit(doc, false, out);
  } else {
    const keys = _sortedKeys(Object.keys(doc).filter((k) => !EXCLUDED_TOP_LEVEL_KEYS.has(k)));
    if (keys.length === 0) out.push("{}");
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]!;
      out.push(i === 0 ? _keyText(k).first : _keyText(k).next);
      _emitValue(k, doc[k], false, out);
    }
    if (keys.length > 0) out.push("}");
  }
  out.end();
}

/** Appends the canonical text of `value` to `out`. */
function _emit(value: unknown, spaced: boolean, out: Writer): void {
  switch (typeof value) {
    case "string":
      out.push(_stringText(value));
      return;
    case "number":
      out.push(formatPythonNumber(value));
      return;
    case "boolean":
      out.push(value ? "true" : "false");
      return;
    case "object":
      if (value === null) out.push("null");
      else if (Array.isArray(value)) _emitArray(value, spaced, out);
      else _emitObject(value as Record<string, unknown>, spaced, out);
      return;
    default:
      out.push("null");
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

function _emitArray(a: readonly unknown[], spaced: boolean, out: Writer): void {
  if (a.length === 0) {
    out.push("[]");
    return;
  }
  const sep = spaced ? ", " : ",";
  out.push("[");
  for (let i = 0; i < a.length; i++) {
    if (i > 0) out.push(sep);
    _emit(a[i], spaced, out);
  }
  out.push("]");
}

function _emitSortedArray(a: readonly unknown[], spaced: boolean, out: Writer): void {
  const keyed = a.map((v) => ({ key: _text(v, true), v }));
  keyed.sort((x, y) => compareCodePoints(x.key, y.key));
  out.push("[");
  for (let i = 0; i < keyed.length; i++) {
    if (i > 0) out.push(spaced ? ", " : ",");
    if (spaced) out.push(keyed[i]!.key);
    else _emit(keyed[i]!.v, false, out);
  }
  out.push("]");
}

/**
 * Objects with more keys than this (a world's tables) are cached only the second
 * time they are written out. A table a trial changed is a new object, hashed once:
 * it is streamed from its records' cached texts, never copied flat into a cache
 * entry (that copy cost more than the hash). A table hashed again (the loaded
 * world's, shared by every trial that leaves it alone) is then cached.
 */
export const UNCACHED_OBJECT_KEYS = 256;

/** Big frozen objects written out once already. */
const seenOnce = new WeakSet<object>();

function _emitObject(o: Record<string, unknown>, spaced: boolean, out: Writer): void {
  const keys = Object.keys(o);
  if (keys.length > UNCACHED_OBJECT_KEYS && !seenOnce.has(o)) {
    // isFrozen walks a dictionary-mode object's properties: asked once per table.
    if (Object.isFrozen(o)) seenOnce.add(o);
    _emitObjectBody(o, keys, spaced, out);
    return;
  }
  // Only frozen objects are cached. isFrozen answers at once for an extensible
  // object, so a fresh document costs no cache lookup per object.
  if (!Object.isFrozen(o)) {
    _emitObjectBody(o, keys, spaced, out);
    return;
  }
  const cache = spaced ? spacedCache : compactCache;
  let text = cache.get(o);
  if (text === undefined) {
    const own = new Writer();
    _emitObjectBody(o, keys, spaced, own);
    text = own.text;
    // Flatten before caching: a text built by `+=` is a rope, and every later hash
    // of a world sharing this record would walk the rope's nodes again, and a
    // parent's text built from it would be a rope of ropes.
    _flatten(text);
    cache.set(o, text);
  }
  out.push(text);
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

/**
 * A key's JSON text, with the punctuation that goes around it in an object (`{` or
 * `,` before, `:` after; spaced for sort keys), and whether it holds chars whose
 * UTF-16 order differs from Python's.
 */
interface KeyText {
  text: string;
  astral: boolean;
  /** `{"k":`, `,"k":`, `{"k": `, `, "k": ` */
  first: string;
  next: string;
  firstSpaced: string;
  nextSpaced: string;
}
const keyTexts = new Map<string, KeyText>();
const KEY_CACHE_LIMIT = 200_000;
const HIGH_CHAR = /[\ud800-\uffff]/;

function _keyText(k: string): KeyText {
  let hit = keyTexts.get(k);
  if (hit === undefined) {
    const text = _stringTextOfKey(k);
    hit = {
      text,
      astral: HIGH_CHAR.test(k),
      first: `{${text}:`,
      next: `,${text}:`,
      firstSpaced: `{${text}: `,
      nextSpaced: `, ${text}: `,
    };
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
  // Objects parsed from sorted JSON arrive in order: checking costs less than sorting.
  let astral = false;
  let sorted = true;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    astral ||= _keyText(k).astral;
    if (i > 0 && keys[i - 1]! > k) sorted = false;
  }
  if (astral) return keys.sort(compareCodePoints);
  return sorted ? keys : keys.sort();
}

function _emitValue(k: string, v: unknown, spaced: boolean, out: Writer): void {
  if (Array.isArray(v) && ORDER_INDEPENDENT_KEYS.has(k)) _emitSortedArray(v, spaced, out);
  else _emit(v, spaced, out);
}

function _emitObjectBody(
  o: Record<string, unknown>,
  keys: string[],
  spaced: boolean,
  out: Writer,
): void {
  if (keys.length === 0) {
    out.push("{}");
    return;
  }
  _sortedKeys(keys);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    const t = _keyText(k);
    out.push(spaced ? (i === 0 ? t.firstSpaced : t.nextSpaced) : i === 0 ? t.first : t.next);
    _emitValue(k, o[k], spaced, out);
  }
  out.push("}");
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

// ---------------------------------------------------------------------------
// The same text as bytes, for a document hashed once (a fresh, unfrozen one).
// Built by `+=`, 2.8 MB of canonical text is a rope of ~10^5 small strings that the
// hash must flatten and encode again; written as ASCII bytes into one reused
// buffer, it is copied once and handed to the hash in blocks.

/** How many bytes a {@link ByteWriter} gathers before they go to its sink. */
const BYTE_BLOCK = 1 << 16;

/** Writes ASCII text into a reused buffer, handed to `sink` whenever it fills. */
class ByteWriter {
  readonly buf = new Uint8Array(BYTE_BLOCK);
  pos = 0;
  readonly #encoder = new TextEncoder();
  constructor(readonly sink: (bytes: Uint8Array) => void) {}

  /** Appends `s`, whose chars are all below 0x80 (canonical text is ASCII). */
  ascii(s: string): void {
    const n = s.length;
    if (this.pos + n > BYTE_BLOCK) {
      this.flush();
      if (n > BYTE_BLOCK) {
        for (let i = 0; i < n; i += BYTE_BLOCK) {
          const { written } = this.#encoder.encodeInto(s.slice(i, i + BYTE_BLOCK), this.buf);
          this.sink(this.buf.subarray(0, written));
        }
        return;
      }
    }
    const buf = this.buf;
    let pos = this.pos;
    for (let i = 0; i < n; i++) buf[pos++] = s.charCodeAt(i);
    this.pos = pos;
  }

  /** Appends a JSON string value: copied as is when plain, escaped otherwise. */
  string(s: string): void {
    const n = s.length;
    if (n >= 4 && _isNullWord(s)) {
      this.ascii("null");
      return;
    }
    if (this.pos + n + 2 <= BYTE_BLOCK) {
      const buf = this.buf;
      let pos = this.pos;
      buf[pos++] = 0x22;
      let i = 0;
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        // Printable ASCII but `"` and `\`, as PLAIN_STRING.
        if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) break;
        buf[pos++] = c;
      }
      if (i === n) {
        buf[pos++] = 0x22;
        this.pos = pos;
        return;
      }
    }
    this.ascii(_stringText(s));
  }

  flush(): void {
    if (this.pos > 0) this.sink(this.buf.subarray(0, this.pos));
    this.pos = 0;
  }
}

/**
 * Writes the bytes of {@link canonicalJson} of `doc` (ASCII, so its UTF-8) to
 * `sink` in blocks of up to 64 KiB. The block is a view of a reused buffer: the
 * sink must consume it before it returns. Nothing is cached; a frozen object's
 * cached text is used when there is one.
 */
export function canonicalBytes(doc: unknown, sink: (bytes: Uint8Array) => void): void {
  const out = new ByteWriter(sink);
  if (!isPlainObject(doc)) {
    _writeValue("", doc, out);
  } else {
    const keys = _sortedKeys(Object.keys(doc).filter((k) => !EXCLUDED_TOP_LEVEL_KEYS.has(k)));
    _writeBody(doc, keys, out);
  }
  out.flush();
}

function _writeValue(k: string, v: unknown, out: ByteWriter): void {
  switch (typeof v) {
    case "string":
      out.string(v);
      return;
    case "number":
      out.ascii(formatPythonNumber(v));
      return;
    case "boolean":
      out.ascii(v ? "true" : "false");
      return;
    case "object":
      if (v === null) out.ascii("null");
      else if (Array.isArray(v)) {
        if (ORDER_INDEPENDENT_KEYS.has(k)) _writeSortedArray(v, out);
        else _writeArray(v, out);
      } else _writeObject(v as Record<string, unknown>, out);
      return;
    default:
      out.ascii("null");
  }
}

function _writeArray(a: readonly unknown[], out: ByteWriter): void {
  if (a.length === 0) {
    out.ascii("[]");
    return;
  }
  out.ascii("[");
  for (let i = 0; i < a.length; i++) {
    if (i > 0) out.ascii(",");
    _writeValue("", a[i], out);
  }
  out.ascii("]");
}

function _writeSortedArray(a: readonly unknown[], out: ByteWriter): void {
  const keyed = a.map((v) => ({ key: _text(v, true), v }));
  keyed.sort((x, y) => compareCodePoints(x.key, y.key));
  out.ascii("[");
  for (let i = 0; i < keyed.length; i++) {
    if (i > 0) out.ascii(",");
    _writeValue("", keyed[i]!.v, out);
  }
  out.ascii("]");
}

function _writeObject(o: Record<string, unknown>, out: ByteWriter): void {
  // A frozen object may have its text cached already (a record shared with a
  // loaded world); isFrozen answers at once for an extensible one.
  if (Object.isFrozen(o)) {
    const text = compactCache.get(o);
    if (text !== undefined) {
      out.ascii(text);
      return;
    }
  }
  const keys = Object.keys(o);
  if (keys.length === 0) {
    out.ascii("{}");
    return;
  }
  if (keys.length > SHAPE_MAX_KEYS) {
    _writeBody(o, _sortedKeys(keys), out);
    return;
  }
  const shape = _shapeOf(keys);
  const { sorted, heads } = shape;
  for (let i = 0; i < sorted.length; i++) {
    const k = sorted[i]!;
    out.ascii(heads[i]!);
    _writeValue(k, o[k], out);
  }
  out.ascii("}");
}

/**
 * The keys of records of one kind, in the order an object holds them, sorted, with
 * each one's text and punctuation: records of a kind share it, so their keys are
 * sorted and looked up once.
 */
interface Shape {
  keys: readonly string[];
  sorted: readonly string[];
  /** `{"k":` for the first sorted key, `,"k":` for the others. */
  heads: readonly string[];
}

/** Objects with more keys than this (tables) are sorted each time. */
const SHAPE_MAX_KEYS = 24;
const SHAPE_CACHE_LIMIT = 10_000;
/** The last shape seen per first key. */
const shapes = new Map<string, Shape>();

function _shapeOf(keys: string[]): Shape {
  const hit = shapes.get(keys[0]!);
  if (hit !== undefined && hit.keys.length === keys.length) {
    let i = 0;
    while (i < keys.length && hit.keys[i] === keys[i]) i++;
    if (i === keys.length) return hit;
  }
  const sorted = _sortedKeys(keys.slice());
  const shape: Shape = {
    keys,
    sorted,
    heads: sorted.map((k, i) => i === 0 ? _keyText(k).first : _keyText(k).next),
  };
  if (shapes.size >= SHAPE_CACHE_LIMIT) shapes.clear();
  shapes.set(keys[0]!, shape);
  return shape;
}

function _writeBody(o: Record<string, unknown>, keys: readonly string[], out: ByteWriter): void {
  if (keys.length === 0) {
    out.ascii("{}");
    return;
  }
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    const t = _keyText(k);
    out.ascii(i === 0 ? t.first : t.next);
    _writeValue(k, o[k], out);
  }
  out.ascii("}");
}

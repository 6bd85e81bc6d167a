/**
 * Values as the reference's Python prints them into the banking tools' answers and
 * ids: `str(value)` in f-strings, `f"{x:.2f}"`, `str.title()`, truthiness, and
 * `json.dumps` (default or indented).
 *
 * Ints and floats: JSON keeps no difference, Python prints them differently
 * (`5` / `5.0`). Every number the bank's data and the tools' JSON arguments hold
 * is a float (the reference parses arguments with `parse_int=float`), except the
 * counter and limit fields below, which the data and the tools hold as ints.
 *
 * @module
 */
import { pyFixed, pyFloat, pyRepr } from "../tau2_telecom/python_text.ts";

export { pyFixed, pyFloat };

/** Fields whose numbers are Python ints in the bank's data. */
const INT_FIELDS = new Set([
  "daily_atm_limit",
  "daily_atm_used",
  "daily_purchase_limit",
  "daily_purchase_used",
  "chip_verification_failures",
  "pin_attempts_remaining",
  "pin_locks_last_90_days",
  "request_number",
  "requested_increase_amount",
  "original_atm_limit",
  "original_purchase_limit",
]);

/** A Python int held where JSON would lose the difference (a tool's own int value). */
export class PyInt {
  constructor(readonly value: number) {}
  toJSON(): number {
    return this.value;
  }
}

/**
 * Python `str(value)`; `field` names the record field a number came from, and `int`
 * says the value is known to be an int there.
 */
export function pyStr(value: unknown, field?: string, int = false): string {
  if (typeof value === "string") return value;
  if (int && typeof value === "number" && Number.isInteger(value)) return String(value);
  return pyReprOf(value, field);
}

/** Python `repr(value)` of a JSON value, numbers as floats unless an int field. */
export function pyReprOf(value: unknown, field?: string): string {
  if (value instanceof PyInt) return String(value.value);
  if (typeof value === "number") {
    return field !== undefined && INT_FIELDS.has(field) && Number.isInteger(value)
      ? String(value)
      : pyFloat(value);
  }
  if (Array.isArray(value)) return `[${value.map((v) => pyReprOf(v, field)).join(", ")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>);
    return `{${entries.map(([k, v]) => `${pyRepr(k)}: ${pyReprOf(v, k)}`).join(", ")}}`;
  }
  return pyRepr(value);
}

/** Python's truthiness of a JSON value. */
export function truthy(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === 0 || value === "") {
    return false;
  }
  if (Array.isArray(value)) return value.length > 0;
  if (value instanceof PyInt) return value.value !== 0;
  if (typeof value === "object") return Object.keys(value as object).length > 0;
  return true;
}

/** `s.replace("_", " ").title()`. */
export function titled(s: string): string {
  return pyTitle(s.replaceAll("_", " "));
}

/** Python `str.title()`: a letter after a non-letter is upper-cased, the rest lowered. */
export function pyTitle(s: string): string {
  let out = "";
  let previousCased = false;
  for (const ch of s) {
    const cased = ch.toLowerCase() !== ch.toUpperCase();
    out += cased ? (previousCased ? ch.toLowerCase() : ch.toUpperCase()) : ch;
    previousCased = cased;
  }
  return out;
}

/** `f"{x:,}"` of an int. */
export function pyThousands(n: number): string {
  const sign = n < 0 ? "-" : "";
  return sign + String(Math.abs(Math.trunc(n))).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/**
 * Python `json.dumps(value, indent=?, sort_keys=?)`: `", "` and `": "` separators
 * (`","` at line ends when indented), non-ASCII escaped, numbers as in {@link pyReprOf}.
 */
export function pyJsonDumps(
  value: unknown,
  options: { indent?: number; sortKeys?: boolean } = {},
): string {
  const { indent, sortKeys = false } = options;
  const write = (v: unknown, depth: number, field?: string): string => {
    if (v instanceof PyInt) return String(v.value);
    if (v === null || v === undefined) return "null";
    if (typeof v === "boolean") return v ? "true" : "false";
    if (typeof v === "number") {
      if (Number.isNaN(v)) return "NaN";
      if (!Number.isFinite(v)) return v > 0 ? "Infinity" : "-Infinity";
      return pyReprOf(v, field);
    }
    if (typeof v === "string") return jsonString(v);
    const items: [string | undefined, unknown][] = Array.isArray(v)
      ? v.map((x) => [undefined, x])
      : Object.entries(v as Record<string, unknown>);
    if (sortKeys && !Array.isArray(v)) items.sort(([a], [b]) => (a! < b! ? -1 : a! > b! ? 1 : 0));
    const [open, close] = Array.isArray(v) ? ["[", "]"] : ["{", "}"];
    if (items.length === 0) return open + close;
    const parts = items.map(([k, x]) =>
      (k === undefined ? "" : `${jsonString(k)}: `) + write(x, depth + 1, k ?? field)
    );
    if (indent === undefined) return open + parts.join(", ") + close;
    const pad = "\n" + " ".repeat(indent * (depth + 1));
    return open + pad + parts.join("," + pad) + "\n" + " ".repeat(indent * depth) + close;
  };
  return write(value, 0);
}

function jsonString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const ch = s[i]!;
    if (ch === '"') out += '\\"';
    else if (ch === "\\") out += "\\\\";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (ch === "\b") out += "\\b";
    else if (ch === "\f") out += "\\f";
    else if (c < 0x20 || c > 0x7e) out += "\\u" + c.toString(16).padStart(4, "0");
    else out += ch;
  }
  return out + '"';
}

/**
 * How Python prints values, for the few tool messages and validation errors whose text
 * the reference builds with f-strings (`$188.0 travel credit issued`, `Invalid
 * passenger_id 'None'`). JSON cannot tell `188` from `188.0`, so callers say which
 * numbers are Python floats.
 *
 * @module
 */
import { formatPythonNumber } from "../../canonical/canonical_json.ts";

/** Python `str(float(n))`: `188.0`, `74.98`, `1e-05`, `1e+16`. */
export function pyFloat(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e16) return `${n === 0 ? 0 : n}.0`;
  if (Number.isInteger(n)) {
    // repr switches to exponent form from 1e16 on: shortest digits, signed exponent.
    const [mantissa, exp] = n.toExponential().split("e") as [string, string];
    const digits = exp.replace(/^[+-]/, "");
    return `${mantissa}e${exp.startsWith("-") ? "-" : "+"}${digits.padStart(2, "0")}`;
  }
  return formatPythonNumber(n);
}

/** Python `str(x)` of a JSON value: strings as they are, everything else as `repr`. */
export function pyStr(value: unknown): string {
  return typeof value === "string" ? value : pyRepr(value);
}

/** Python `repr(x)` of a JSON value (integral numbers print as ints). */
export function pyRepr(value: unknown): string {
  if (value === null || value === undefined) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (typeof value === "number") return formatPythonNumber(value);
  if (typeof value === "string") return _reprString(value);
  if (Array.isArray(value)) return `[${value.map(pyRepr).join(", ")}]`;
  if (typeof value === "object") {
    const items = Object.entries(value).map(([k, v]) => `${_reprString(k)}: ${pyRepr(v)}`);
    return `{${items.join(", ")}}`;
  }
  return String(value);
}

function _reprString(s: string): string {
  // Python prefers single quotes, switching to double when only `'` occurs inside.
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === "\\") out += "\\\\";
    else if (ch === quote) out += "\\" + quote;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) {
      out += "\\x" + cp.toString(16).padStart(2, "0");
    } else out += ch;
  }
  return out + quote;
}

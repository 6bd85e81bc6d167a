/**
 * Values as the reference's Python prints them into tool results and bill line
 * items: `str(float)`, `f"{x:.2f}"`, `round(x, 2)` and `repr` of small dicts and
 * lists. Telecom amounts are floats in the benchmark's models, so a whole number
 * prints as `2.0`, not `2`.
 *
 * @module
 */
import { formatPythonNumber } from "../../canonical/canonical_json.ts";

/** Python `str(float(x))`: `2.0`, `0.1`, `1e-05`. */
export function pyFloat(x: number): string {
  if (Number.isInteger(x) && Math.abs(x) < 1e16) return `${x === 0 ? 0 : x}.0`;
  return formatPythonNumber(x);
}

/**
 * Python `f"{x:.{digits}f}"`. JavaScript's `toFixed` rounds exact ties away from
 * zero where Python rounds them to even (`0.125` → `0.12`); ties are only possible
 * when the binary value is exactly halfway, which this checks without rounding.
 */
export function pyFixed(x: number, digits: number): string {
  const text = x.toFixed(digits);
  // A binary value exactly halfway between two results is a multiple of
  // 2^-(digits+1) (multiplying by a power of two is exact); only then can the
  // scaled value's .5 be real rather than a rounding artefact (1.115 * 100).
  if (!Number.isInteger(x * 2 ** (digits + 1))) return text;
  const scaled = x * 10 ** digits;
  if (Math.abs(scaled % 1) !== 0.5) return text;
  const down = Math.trunc(scaled);
  const even = down % 2 === 0 ? down : down + Math.sign(scaled);
  return (even / 10 ** digits).toFixed(digits);
}

/** Python `round(x, digits)` for a float. */
export function pyRound(x: number, digits: number): number {
  return Number(pyFixed(x, digits));
}

/** Python `repr` of a JSON value (dicts keep insertion order). */
export function pyRepr(value: unknown): string {
  if (value === null || value === undefined) return "None";
  if (typeof value === "boolean") return value ? "True" : "False";
  if (typeof value === "number") return formatPythonNumber(value);
  if (typeof value === "string") return _reprString(value);
  if (Array.isArray(value)) return `[${value.map(pyRepr).join(", ")}]`;
  const entries = Object.entries(value as Record<string, unknown>);
  return `{${entries.map(([k, v]) => `${_reprString(k)}: ${pyRepr(v)}`).join(", ")}}`;
}

function _reprString(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = "";
  for (const ch of s) {
    if (ch === "\\") out += "\\\\";
    else if (ch === quote) out += `\\${quote}`;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (ch < " " || ch === "\x7f") {
      out += `\\x${ch.charCodeAt(0).toString(16).padStart(2, "0")}`;
    } else out += ch;
  }
  return quote + out + quote;
}

/**
 * Python's float rounding and printing, for the tau2 values whose bytes land in a
 * database or a tool result: `round(x, 2)` on gift-card balances and price
 * differences, and `str(float)` in `calculate`.
 *
 * @module
 */
import { formatPythonNumber } from "../../canonical/canonical_json.ts";

/**
 * Python `round(x, ndigits)` for a float: the decimal nearest to the exact binary
 * value, exact ties to even (`round(0.125, 2)` is `0.12`, `round(2.675, 2)` is
 * `2.67` because 2.675 is stored just below). The sign of zero is kept.
 */
export function pythonRound(x: number, ndigits: number): number {
  if (!Number.isFinite(x) || Math.abs(x) >= 2 ** 52) return x;
  const negative = x < 0 || Object.is(x, -0);
  const abs = Math.abs(x);
  // 80 fraction digits spell every double from 2^-27 up exactly, so a tie shows as
  // "5" then zeros; anything smaller rounds to zero at two digits anyway.
  const exact = abs.toFixed(80);
  const point = exact.indexOf(".");
  const rest = exact.slice(point + 1 + ndigits);
  let text: string;
  if (/^50*$/.test(rest)) {
    const kept = exact.slice(0, point + 1 + ndigits);
    const lastDigit = Number(kept.replace(".", "").at(-1));
    text = lastDigit % 2 === 0 ? kept : abs.toFixed(ndigits);
  } else {
    text = abs.toFixed(ndigits);
  }
  const rounded = Number(text);
  return negative ? -rounded : rounded;
}

/** Python `str(x)` of a float: `10.0`, `0.3`, `1e-05`, `1e+16`, `inf`, `-0.0`. */
export function pythonFloatText(x: number): string {
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  if (Object.is(x, -0)) return "-0.0";
  if (Number.isInteger(x)) {
    if (Math.abs(x) < 1e16) return `${x}.0`;
    const [mantissa, exp] = x.toExponential().split("e") as [string, string];
    const digits = exp.replace(/^[+-]/, "");
    return `${mantissa}e${exp.startsWith("-") ? "-" : "+"}${digits.padStart(2, "0")}`;
  }
  return formatPythonNumber(x);
}

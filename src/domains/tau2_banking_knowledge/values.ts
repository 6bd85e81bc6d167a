/**
 * Python conversions the banking tools apply to their arguments and records:
 * `float(x)`, `int(x)`, and the `$2,850.00`-style balances.
 *
 * @module
 */
import { pyReprOf } from "./python_format.ts";

const FLOAT_TEXT = /^[+-]?(\d[\d_]*(\.[\d_]*)?|\.\d[\d_]*)([eE][+-]?\d+)?$/;

/** Python `float(x)`, or undefined where it raises. */
export function toFloat(x: unknown): number | undefined {
  if (typeof x === "number") return x;
  if (typeof x === "boolean") return x ? 1 : 0;
  if (typeof x !== "string") return undefined;
  const t = x.trim();
  if (FLOAT_TEXT.test(t) && !/__|_$|^_|_\.|\._/.test(t)) return Number(t.replaceAll("_", ""));
  const word = t.toLowerCase().replace(/^[+-]/, "");
  if (word === "inf" || word === "infinity") return t.startsWith("-") ? -Infinity : Infinity;
  if (word === "nan") return NaN;
  return undefined;
}

/** A balance that may be a number or a string like `$2,850.00` (raises like Python). */
export function parseBalance(value: unknown): number {
  if (typeof value === "number") return value;
  if (typeof value === "boolean") return value ? 1 : 0;
  if (typeof value === "string") {
    const n = toFloat(value.replaceAll("$", "").replaceAll(",", ""));
    if (n === undefined) {
      throw new Error(`could not convert string to float: ${pyReprOf(value)}`);
    }
    return n;
  }
  return 0;
}

/** `_get_account_balance`: `current_holdings`, else `balance`, else 0. */
export function accountBalance(account: Record<string, unknown>): number {
  const v = Object.hasOwn(account, "current_holdings")
    ? account.current_holdings
    : Object.hasOwn(account, "balance")
    ? account.balance
    : 0;
  return parseBalance(v);
}

/** `dict.get(key, fallback)`. */
export function get(record: Record<string, unknown>, key: string, fallback: unknown = null) {
  return Object.hasOwn(record, key) ? record[key] : fallback;
}

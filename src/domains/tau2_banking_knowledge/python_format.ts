/**
 * Values as the reference's Python prints them into the banking tools' answers:
 * `f"{x:.2f}"`, `str(float)` and `repr` (shared with telecom), and `str(value)` of a
 * record field in a query listing, where every number the world holds is a float.
 *
 * @module
 */
import { pyFixed, pyFloat, pyRepr } from "../tau2_telecom/python_text.ts";

export { pyFixed, pyFloat, pyRepr };

/**
 * Python `str(value)` of a JSON value: a string as itself, anything else as its
 * repr; numbers as floats (`100.0`) unless `ints` says the value was an int.
 */
export function pyStr(value: unknown, ints = false): string {
  if (typeof value === "string") return value;
  return pyReprFloats(value, ints);
}

/** `repr`, with numbers printed as floats unless `ints`. */
export function pyReprFloats(value: unknown, ints = false): string {
  if (typeof value === "number") return ints ? pyRepr(value) : pyFloat(value);
  if (Array.isArray(value)) return `[${value.map((v) => pyReprFloats(v, ints)).join(", ")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>);
    return `{${entries.map(([k, v]) => `${pyRepr(k)}: ${pyReprFloats(v, ints)}`).join(", ")}}`;
  }
  return pyRepr(value);
}

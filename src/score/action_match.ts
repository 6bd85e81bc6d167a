/**
 * The reference harness's recursive action comparator (reference-harness §3.3), and the
 * greedy list matching it is built on.
 *
 * - A list holding exactly one object becomes that object; an object becomes a
 *   one-element list (both sides). If the reference then has one element and the
 *   prediction more, only the prediction's last element is kept.
 * - Objects match when every reference key exists in the prediction with a matching
 *   value (extra prediction keys are allowed); lists match when every reference item
 *   matches a distinct prediction item, order-free, first unused match wins.
 * - Scalars match as numbers when both convert as Python's `float()` does (booleans and
 *   numeric strings included: `"1.0"` matches `1`, `true` matches `1`), compared with
 *   numpy-style `isclose` (rtol 1e-5, atol 1e-8, relative to the reference value);
 *   otherwise as strings (`null` is `"None"`), optionally lower-cased and stripped of
 *   every character that is neither a word character nor whitespace.
 *
 * @module
 */

/** ACTION_MATCH options, as a scenario gives them. */
export interface ActionMatchOptions {
  ignore_capitalization?: boolean;
  ignore_punctuation?: boolean;
  disallow_extra_items?: boolean;
}

const RTOL = 1e-5;
const ATOL = 1e-8;

/** Whether `prediction` matches `reference` under the §3.3 comparator. */
export function actionsMatch(
  reference: unknown,
  prediction: unknown,
  options: ActionMatchOptions = {},
): boolean {
  const ref = _asList(_unwrapSingle(reference));
  const predicted = _asList(_unwrapSingle(prediction));
  if (!Array.isArray(ref) || !Array.isArray(predicted)) {
    return valuesMatch(ref, predicted, options);
  }
  let pred: unknown[] = predicted;
  if (ref.length === 1 && pred.length > 1) pred = [pred[pred.length - 1]];
  if (options.disallow_extra_items && ref.length !== pred.length) return false;
  return matchList(ref, pred, options).every((i) => i !== null);
}

/**
 * Greedy list matching: for each reference item in order, the index of the first
 * prediction item not yet used that matches it, or `null` when none does.
 */
export function matchList(
  reference: readonly unknown[],
  prediction: readonly unknown[],
  options: ActionMatchOptions = {},
): (number | null)[] {
  const used = new Uint8Array(prediction.length);
  return reference.map((item) => {
    for (let j = 0; j < prediction.length; j++) {
      if (used[j] === 0 && valuesMatch(item, prediction[j], options)) {
        used[j] = 1;
        return j;
      }
    }
    return null;
  });
}

/** Whether one value matches a reference value (objects, lists, scalars). */
export function valuesMatch(
  reference: unknown,
  prediction: unknown,
  options: ActionMatchOptions = {},
): boolean {
  if (_isObject(reference)) {
    if (!_isObject(prediction)) return false;
    for (const key of Object.keys(reference)) {
      if (!Object.hasOwn(prediction, key)) return false;
      if (!valuesMatch(reference[key], prediction[key], options)) return false;
    }
    return true;
  }
  if (Array.isArray(reference)) {
    if (!Array.isArray(prediction)) return false;
    return matchList(reference, prediction, options).every((i) => i !== null);
  }
  return scalarsMatch(reference, prediction, options);
}

/** Scalar comparison: as floats when both convert, else as normalised strings. */
export function scalarsMatch(
  reference: unknown,
  prediction: unknown,
  options: ActionMatchOptions = {},
): boolean {
  const a = pythonFloat(reference);
  const b = pythonFloat(prediction);
  if (a !== undefined && b !== undefined) {
    if (a === b) return true; // equal infinities
    if (!Number.isFinite(a) || !Number.isFinite(b)) return false;
    return Math.abs(b - a) <= ATOL + RTOL * Math.abs(a);
  }
  return _normalise(_pythonStr(reference), options) === _normalise(_pythonStr(prediction), options);
}

const FLOAT_TEXT =
  /^[+-]?(?:(?:\d(?:_?\d)*(?:\.(?:\d(?:_?\d)*)?)?|\.\d(?:_?\d)*)(?:[eE][+-]?\d(?:_?\d)*)?|inf|infinity|nan)$/i;

/** What Python's `float(x)` gives for a JSON value, or `undefined` where it raises. */
export function pythonFloat(value: unknown): number | undefined {
  if (typeof value === "number") return value;
  if (typeof value === "boolean") return value ? 1 : 0;
  if (typeof value !== "string") return undefined;
  const text = value.trim();
  if (!FLOAT_TEXT.test(text)) return undefined;
  const lower = text.toLowerCase().replace(/^\+/, "");
  if (lower.endsWith("nan")) return NaN;
  if (lower.endsWith("inf") || lower.endsWith("infinity")) {
    return lower.startsWith("-") ? -Infinity : Infinity;
  }
  return Number(text.replaceAll("_", ""));
}

function _pythonStr(value: unknown): string {
  if (value === null || value === undefined) return "None";
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return value ? "True" : "False";
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

const NON_WORD = /[^\p{L}\p{N}_\s]/gu;

function _normalise(text: string, options: ActionMatchOptions): string {
  let out = text;
  if (options.ignore_capitalization) out = out.toLowerCase();
  if (options.ignore_punctuation) out = out.replace(NON_WORD, "");
  return out;
}

function _unwrapSingle(value: unknown): unknown {
  return Array.isArray(value) && value.length === 1 && _isObject(value[0]) ? value[0] : value;
}

function _asList(value: unknown): unknown {
  return _isObject(value) ? [value] : value;
}

function _isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

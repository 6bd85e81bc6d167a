/**
 * What a JSON document read from a file must be for callbench to hash it as the
 * reference does: nested no deeper than Python's own recursion allows, and holding
 * no integer that a JavaScript number cannot hold exactly. The reference keeps
 * Python ints, so `12345678901234567890` hashes as those digits there; here it
 * would be rounded. Such a document is refused, never hashed rounded.
 *
 * @module
 */

/**
 * Deepest nesting of a document read from a file (`{}` is depth 1): Python's
 * default recursion limit, past which the reference's `json` module fails too.
 */
export const MAX_DOCUMENT_DEPTH = 1000;

/** Why a document is too deep to hash as the reference would. */
export const TOO_DEEP =
  `nested deeper than ${MAX_DOCUMENT_DEPTH} levels (the reference's recursion limit)`;

/** Why `value` (parsed from `text`) cannot be hashed as the reference would, or undefined. */
export function documentProblem(value: unknown, text: string): string | undefined {
  return _depthProblem(value) ?? bigIntegerProblem(text);
}

function _depthProblem(value: unknown): string | undefined {
  // Iterative: a deep document must not overflow the stack while it is checked.
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== "object" || v === null) continue;
    if (depth + 1 > MAX_DOCUMENT_DEPTH) return TOO_DEEP;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (typeof child === "object" && child !== null) stack.push([child, depth + 1]);
    }
  }
  return undefined;
}

/** Sixteen or more digits in a row: the only way to spell an integer over 2^53. */
const LONG_DIGITS = /\d{16,}/;

/** Why `text` holds an integer a JavaScript number would round, or undefined. */
export function bigIntegerProblem(text: string): string | undefined {
  if (!LONG_DIGITS.test(text)) return undefined; // the common case costs one scan
  let found: string | undefined;
  JSON.parse(text, function (this: unknown, key, v, context?: { source?: string }) {
    const source = context?.source;
    if (
      found === undefined && typeof v === "number" && source !== undefined &&
      /^-?\d+$/.test(source) && !Number.isSafeInteger(v)
    ) {
      found = `${source.length > 40 ? `${source.slice(0, 40)}…` : source} (key "${key}")`;
    }
    return v;
  });
  return found === undefined ? undefined : `the integer ${found} is beyond 2^53: ` +
    "a JavaScript number cannot hold it exactly, so its hash would differ from the reference's";
}

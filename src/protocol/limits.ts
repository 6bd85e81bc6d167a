/**
 * Bounds on what a peer may send: nesting depth and size of a decoded value. A value
 * nested a few hundred thousand levels deep parses (`JSON.parse` is iterative) but
 * breaks every recursive walk after it: `JSON.stringify` of the trial record, zod,
 * structured clone. So everything received from a participant or a client is checked
 * here, once, before anything else looks at it; the check itself never recurses.
 *
 * @example
 * ```ts
 * import { checkValueLimits } from "./limits.ts";
 * const problem = checkValueLimits(JSON.parse(frameText));
 * if (problem) throw new Error(problem); // "nested deeper than 64 levels at data.arguments.a"
 * ```
 *
 * @module
 */

/** Deepest nesting of objects and arrays accepted from a peer (`{}` is depth 1). */
export const MAX_VALUE_DEPTH = 64;

/**
 * Largest value accepted from a peer, in bytes of its JSON text (strings counted in
 * UTF-16 units, close to bytes for the ASCII most messages are). Matches the frame cap,
 * so a value decoded from one frame, or from a JSON string inside it, fits.
 */
export const MAX_VALUE_BYTES = 1 << 20;

/** The bounds `checkValueLimits` applies. */
export interface ValueLimits {
  /** Deepest nesting accepted (default `MAX_VALUE_DEPTH`). */
  maxDepth?: number;
  /** Largest JSON size accepted (default `MAX_VALUE_BYTES`). */
  maxBytes?: number;
}

interface Pending {
  value: unknown;
  depth: number;
  key: string | number;
  parent: Pending | undefined;
}

/**
 * Checks a decoded value against the depth and size bounds, without recursion: the
 * work stops at the first node past a bound, so it costs at most the bounded size.
 * Returns `undefined` when the value is within bounds, else why not (one line,
 * naming where, e.g. `nested deeper than 64 levels at data.arguments.a.b…`).
 * Cyclic values end as oversized rather than looping.
 */
export function checkValueLimits(value: unknown, limits: ValueLimits = {}): string | undefined {
  const maxDepth = limits.maxDepth ?? MAX_VALUE_DEPTH;
  const maxBytes = limits.maxBytes ?? MAX_VALUE_BYTES;
  let bytes = 0;
  const stack: Pending[] = [{ value, depth: 0, key: "", parent: undefined }];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const v = node.value;
    if (typeof v === "string") bytes += v.length + 2;
    else if (typeof v === "number") bytes += 8;
    else if (typeof v === "boolean" || v === null) bytes += 5;
    else if (typeof v === "object") {
      const depth = node.depth + 1;
      if (depth > maxDepth) return `nested deeper than ${maxDepth} levels${_where(node)}`;
      if (Array.isArray(v)) {
        bytes += 2 + v.length;
        for (let i = v.length - 1; i >= 0; i--) {
          stack.push({ value: v[i], depth, key: i, parent: node });
        }
      } else {
        bytes += 2;
        const keys = Object.keys(v);
        for (let i = keys.length - 1; i >= 0; i--) {
          const key = keys[i]!;
          bytes += key.length + 4;
          stack.push({ value: (v as Record<string, unknown>)[key], depth, key, parent: node });
        }
      }
    }
    if (bytes > maxBytes) return `larger than ${maxBytes} bytes${_where(node)}`;
  }
  return undefined;
}

/** ` at a.b[3].c` for the node's path (the first few steps), or nothing at the top. */
function _where(node: Pending): string {
  const steps: (string | number)[] = [];
  for (let n: Pending | undefined = node; n?.parent; n = n.parent) steps.push(n.key);
  if (steps.length === 0) return "";
  steps.reverse();
  const shown = steps.slice(0, 6).map((s, i) =>
    typeof s === "number"
      ? `[${s}]`
      : `${i === 0 ? "" : "."}${s.length > 40 ? `${s.slice(0, 40)}…` : s}`
  ).join("");
  return ` at ${shown}${steps.length > 6 ? "…" : ""}`;
}

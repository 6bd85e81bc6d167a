/**
 * Where two worlds differ: the JSON paths at which a final database differs from the
 * expected one (added, removed, changed, with both values), so a failed
 * `db_state_match` reads "reservations.ABC123.status: expected "cancelled", got
 * "confirmed"" instead of two hashes. Bounded: at most `maxEntries` paths are kept (the
 * total is counted on), and each value's JSON text is clipped at `maxValueChars`.
 *
 * Cheap on a large world: records a trial left alone are shared by identity between
 * the two worlds (both start from the same frozen world), so they are skipped unread.
 *
 * @module
 */
import { z } from "zod";

export const StateDiffEntrySchema = z.object({
  path: z.string().describe("where the worlds differ: keys joined by '.', array indices in []"),
  kind: z.enum(["added", "removed", "changed"]).describe(
    "added: only in the final world; removed: only in the expected one; changed: in both, unequal",
  ),
  expected: z.string().optional().describe("the expected value as JSON text (clipped)"),
  actual: z.string().optional().describe("the final value as JSON text (clipped)"),
});
export type StateDiffEntry = z.infer<typeof StateDiffEntrySchema>;

export const StateDiffSchema = z.object({
  entries: z.array(StateDiffEntrySchema).describe("the first differing paths, in key order"),
  total: z.number().int().nonnegative().describe("how many paths differ in all"),
});
/** Where a final world differs from the expected one (see `StateDiffSchema`). */
export type StateDiff = z.infer<typeof StateDiffSchema>;

/** Bounds of a diff. */
export interface StateDiffOptions {
  /** Paths kept. Default 20. */
  maxEntries?: number;
  /** Characters of each value's JSON text kept. Default 200. */
  maxValueChars?: number;
}

/** The paths where `actual` differs from `expected`, depth first, keys sorted. */
export function diffState(
  expected: unknown,
  actual: unknown,
  options: StateDiffOptions = {},
): StateDiff {
  const maxEntries = options.maxEntries ?? 20;
  const maxChars = options.maxValueChars ?? 200;
  const entries: StateDiffEntry[] = [];
  let total = 0;
  const add = (path: string, kind: StateDiffEntry["kind"], e: unknown, a: unknown) => {
    total++;
    if (entries.length >= maxEntries) return;
    entries.push({
      path: path || "(root)",
      kind,
      ...(kind !== "added" ? { expected: _clip(e, maxChars) } : {}),
      ...(kind !== "removed" ? { actual: _clip(a, maxChars) } : {}),
    });
  };
  const walk = (path: string, e: unknown, a: unknown): void => {
    if (e === a) return;
    if (Array.isArray(e) && Array.isArray(a)) {
      const n = Math.max(e.length, a.length);
      for (let i = 0; i < n; i++) {
        const p = `${path}[${i}]`;
        if (i >= a.length) add(p, "removed", e[i], undefined);
        else if (i >= e.length) add(p, "added", undefined, a[i]);
        else walk(p, e[i], a[i]);
      }
      return;
    }
    if (_isObject(e) && _isObject(a)) {
      const keys = [...new Set([...Object.keys(e), ...Object.keys(a)])].sort();
      for (const key of keys) {
        const p = path ? `${path}.${_key(key)}` : _key(key);
        if (!Object.hasOwn(a, key)) add(p, "removed", e[key], undefined);
        else if (!Object.hasOwn(e, key)) add(p, "added", undefined, a[key]);
        else walk(p, e[key], a[key]);
      }
      return;
    }
    add(path, "changed", e, a);
  };
  walk("", expected, actual);
  return { entries, total };
}

/** One entry as a line: `path: expected X, got Y` (or `missing`, `not expected`). */
export function stateDiffLine(entry: StateDiffEntry): string {
  if (entry.kind === "added") return `${entry.path}: not expected, got ${entry.actual}`;
  if (entry.kind === "removed") return `${entry.path}: missing, expected ${entry.expected}`;
  return `${entry.path}: expected ${entry.expected}, got ${entry.actual}`;
}

function _isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

/** A key as a path step: bare when it reads as a name or id, else as a JSON string. */
function _key(key: string): string {
  return /^[\w-]+$/.test(key) ? key : JSON.stringify(key);
}

function _clip(value: unknown, max: number): string {
  const text = JSON.stringify(value) ?? "null";
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} chars)`;
}

/**
 * zod's issues as problems a person can act on, for every file format that is read
 * through a zod schema (scenario files, flow files): each issue becomes the path of
 * the value it is about, the field as text, a message and, where one helps, a hint
 * (the known name an unknown field most likely meant, the closest allowed choice).
 * Locating a path in its file (line numbers) stays with the format's reader.
 *
 * @module
 */
import { z } from "zod";
import { closest, fieldText } from "../problem/problem.ts";

/** Keys from the root of a parsed value to one of its parts. */
export type ValuePath = (string | number)[];

/** One zod issue (or one unknown key of an issue), ready to be located. */
export interface SchemaProblem {
  /** Where the value is; for an unknown field, the path of the key itself. */
  path: ValuePath;
  /** Whether `path` names a key (an unknown field) rather than a value. */
  key: boolean;
  /** `routes[0].to`; empty for the root. */
  field: string;
  message: string;
  hint?: string;
}

/** How a format words its problems. */
export interface SchemaProblemOptions {
  /**
   * Whether messages name their field (`missing field "to"`); otherwise the field is
   * shown beside the message and a missing one is just `missing field`.
   */
  namedFields?: boolean;
  /** Whether an unknown field with no likely meaning lists the known names as hint. */
  listKnown?: boolean;
}

/**
 * Every issue of `error` (from parsing `value` with `schema`) as a problem: unknown
 * fields one by one with the name they probably misspell, missing and empty fields,
 * wrong kinds of value (`expected a string, got a list`), and choices with the
 * allowed values and the closest of them.
 */
export function zodProblems(
  error: z.ZodError,
  value: unknown,
  schema: z.ZodType,
  options: SchemaProblemOptions = {},
): SchemaProblem[] {
  const out: SchemaProblem[] = [];
  for (const issue of error.issues) {
    const path = issuePath(issue);
    if (issue.code === "unrecognized_keys") {
      const known = knownKeys(schema, path);
      for (const key of issue.keys) out.push(unknownFieldProblem([...path, key], known, options));
      continue;
    }
    const v = valueAt(value, path);
    const name = path.length ? `"${path.at(-1)}"` : "it";
    let message: string;
    let hint: string | undefined;
    if (v === undefined && path.length > 0) {
      message = options.namedFields ? `missing field ${name}` : "missing field";
    } else if (v === null && path.length > 0) {
      message = `${name} is empty`;
    } else if (issue.code === "invalid_type") {
      message = `expected ${_article(issue.expected)}, got ${_kind(v)}`;
    } else if (issue.code === "invalid_value") {
      message = `must be one of ${issue.values.map((c) => JSON.stringify(c)).join(", ")}`;
      const near = typeof v === "string"
        ? closest(v, issue.values.filter((c): c is string => typeof c === "string"))
        : undefined;
      if (near !== undefined) hint = `did you mean "${near}"?`;
    } else {
      message = issue.message;
    }
    out.push({ path, key: false, field: fieldText(path), message, ...(hint ? { hint } : {}) });
  }
  return out;
}

/** `unknown field "x"`, with the known name it most likely meant as hint. */
export function unknownFieldProblem(
  path: readonly (string | number)[],
  known: readonly string[],
  options: SchemaProblemOptions = {},
): SchemaProblem {
  const key = String(path.at(-1));
  const meant = suggestName(key, known);
  const hint = meant
    ? `did you mean "${meant}"?`
    : options.listKnown
    ? `known: ${known.join(", ")}`
    : undefined;
  return {
    path: [...path],
    key: true,
    field: fieldText(path),
    message: `unknown field "${key}"`,
    ...(hint ? { hint } : {}),
  };
}

/**
 * The known name an unknown one most likely meant: the closest by edit distance,
 * else the one it abbreviates (`msg` for `message`: same first letter, its letters
 * in order), if only one does.
 */
export function suggestName(key: string, known: readonly string[]): string | undefined {
  const near = closest(key, known);
  if (near !== undefined || key.length < 2) return near;
  const k = key.toLowerCase();
  const abbreviated = known.filter((name) => {
    const n = name.toLowerCase();
    if (n[0] !== k[0] || n.length <= k.length) return false;
    let i = 0;
    for (const c of n) if (c === k[i]) i++;
    return i === k.length;
  });
  return abbreviated.length === 1 ? abbreviated[0] : undefined;
}

/** An issue's path, without the symbol keys zod allows. */
export function issuePath(issue: z.core.$ZodIssue): ValuePath {
  return issue.path.filter((k): k is string | number => typeof k !== "symbol");
}

/** The part of `value` at `path`, or `undefined` where there is none. */
export function valueAt(value: unknown, path: readonly (string | number)[]): unknown {
  let v = value;
  for (const k of path) {
    if (typeof v !== "object" || v === null) return undefined;
    v = (v as Record<string | number, unknown>)[k];
  }
  return v;
}

/** The field names the object schemas at `path` (inside `schema`, through unions) know. */
export function knownKeys(schema: z.ZodType, path: readonly (string | number)[]): string[] {
  let current = _unwrap(schema);
  for (const k of path) {
    current = current.flatMap((s) => {
      if (s instanceof z.ZodObject && typeof k === "string") {
        const field = (s.shape as Record<string, z.ZodType>)[k];
        return field ? _unwrap(field) : [];
      }
      if (s instanceof z.ZodArray && typeof k === "number") return _unwrap(s.element as z.ZodType);
      if (s instanceof z.ZodRecord && typeof k === "string") {
        return _unwrap(s._zod.def.valueType as z.ZodType);
      }
      return [];
    });
  }
  const objects = current.filter((s): s is z.ZodObject => s instanceof z.ZodObject);
  return [...new Set(objects.flatMap((o) => Object.keys(o.shape)))];
}

/** A schema without its optional/default/nullable wrappers; a union as its options. */
function _unwrap(s: z.ZodType): z.ZodType[] {
  if (s instanceof z.ZodOptional || s instanceof z.ZodNullable || s instanceof z.ZodDefault) {
    return _unwrap(s._zod.def.innerType as z.ZodType);
  }
  if (s instanceof z.ZodUnion) return (s.options as z.ZodType[]).flatMap(_unwrap);
  return [s];
}

function _kind(v: unknown): string {
  if (v === null) return "nothing";
  if (Array.isArray(v)) return "a list";
  if (typeof v === "object") return "a mapping";
  return `${typeof v} ${JSON.stringify(v)}`;
}

function _article(expected: string): string {
  return expected === "object" ? "a mapping" : expected === "array" ? "a list" : `a ${expected}`;
}

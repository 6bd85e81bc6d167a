/**
 * The eva tools' `validation_error_response`: the first failing field that has an
 * `error_type` decides (`Invalid employee_id 'E1': must be EMP followed by 6 digits
 * (e.g. EMP048271)`, or pydantic's own message where the field has no description,
 * then the field's hint); otherwise `invalid_parameter` quotes the first failure,
 * with the hint of a field its message names.
 *
 * @module
 */
import { z } from "zod";
import type { ToolDef, ToolErrorResult } from "../domain.ts";
import { pyStr } from "../eva_airline/python_text.ts";
import { fieldDoc, shapeOf } from "./pydantic.ts";

/** A domain's field-to-error tables (`FIELD_ERROR_TYPES`, `FIELD_ERROR_HINTS`). */
export interface ErrorTables {
  /** Field name -> [error_type, label]. */
  types: Readonly<Record<string, readonly [string, string]>>;
  /** Field name -> hint, in the reference's order. */
  hints: Readonly<Record<string, string>>;
  /**
   * The message when no failing field has an error type, where a domain words it its
   * own way (`loc` is the first failure's field, or "parameter").
   */
  fallback?(loc: string, msg: string): string;
}

/** One failure as pydantic lists it: where, what was given, and its message. */
export interface PyError {
  loc: readonly (string | number)[];
  input: unknown;
  msg: string;
}

/** pydantic's errors for a zod failure of these arguments, in field order. */
export function pyErrors(error: z.ZodError, args: unknown): PyError[] {
  return error.issues.map((issue) => ({
    loc: issue.path.filter((p): p is string | number => typeof p !== "symbol"),
    input: inputAt(args, issue.path),
    msg: issue.message,
  }));
}

/** The reference's response to failing arguments. */
export function validationErrorResponse(
  tables: ErrorTables,
  shape: Readonly<Record<string, z.ZodType>>,
  errors: readonly PyError[],
): ToolErrorResult {
  for (const e of errors) {
    const field = e.loc[0];
    if (typeof field !== "string" || !Object.hasOwn(tables.types, field)) continue;
    const [errorType, label] = tables.types[field]!;
    let message = `Invalid ${label} '${pyStr(e.input ?? "")}'`;
    const doc = Object.hasOwn(shape, field) ? fieldDoc(shape[field]!) : undefined;
    if (doc?.description) {
      message += `: must be ${doc.description}`;
      if (doc.examples?.length) message += ` (e.g. ${doc.examples.join(", ")})`;
    } else if (e.msg) {
      message += `: ${e.msg}`;
    }
    const hint = Object.hasOwn(tables.hints, field) ? tables.hints[field] : undefined;
    if (hint) message += `. ${hint}`;
    return { status: "error", error_type: errorType, message };
  }
  const first = errors[0];
  const loc = first?.loc ?? ["parameter"];
  const rawMsg = first?.msg ?? "";
  if (tables.fallback) {
    const field = loc.length > 0 ? String(loc[0]) : "parameter";
    return {
      status: "error",
      error_type: "invalid_parameter",
      message: tables.fallback(field, rawMsg),
    };
  }
  let base = `Invalid '${loc.length > 0 ? loc[0] : "parameter"}': ${rawMsg}`;
  for (const [field, hint] of Object.entries(tables.hints)) {
    if (rawMsg.includes(field) && !base.includes(hint)) {
      base += ` ${hint}`;
      break;
    }
  }
  return { status: "error", error_type: "invalid_parameter", message: base };
}

/** A domain's `validationError`: its tables applied to a tool's zod failure. */
export function domainValidationError(tables: ErrorTables) {
  return (tool: ToolDef, error: z.ZodError, args: unknown): ToolErrorResult => {
    const shape = shapeOf(tool.args) ??
      (tool.args instanceof z.ZodObject ? tool.args.shape as Record<string, z.ZodType> : {});
    return validationErrorResponse(tables, shape, pyErrors(error, args));
  };
}

/**
 * What pydantic reports as a failure's input: the value at its place, or for a
 * missing field the object that lacks it.
 */
function inputAt(args: unknown, path: readonly PropertyKey[]): unknown {
  let v: unknown = args ?? {};
  for (const key of path) {
    if (typeof v !== "object" || v === null) return v;
    const next = (v as Record<PropertyKey, unknown>)[key];
    if (next === undefined) return v;
    v = next;
  }
  return v;
}

/**
 * The eva tool error for arguments that fail validation, worded as the reference
 * words it: the first failing field that has an eva `error_type` decides
 * (`Invalid journey_id 'FL_1': must be FL_<flight>_<YYYYMMDD> (e.g. FL_SK621_20260320)`);
 * otherwise `invalid_parameter` names the first failing field.
 *
 * @module
 */
import { z } from "zod";
import type { ToolDef, ToolErrorResult } from "../domain.ts";
import { FIELD_ERROR_TYPES, fieldDoc } from "./params.ts";
import { pyStr } from "./python_text.ts";

export function evaValidationError(
  tool: ToolDef,
  error: z.ZodError,
  args: unknown,
): ToolErrorResult {
  const shape = tool.args instanceof z.ZodObject
    ? tool.args.shape as Record<string, z.ZodType>
    : {};
  for (const issue of error.issues) {
    const field = issue.path[0];
    if (typeof field !== "string") continue;
    const errorType = FIELD_ERROR_TYPES[field];
    if (!errorType) continue;
    let message = `Invalid ${field} '${pyStr(_input(args, issue.path))}'`;
    const doc = shape[field] && fieldDoc(shape[field]);
    if (doc) {
      message += `: must be ${doc.description}`;
      if (doc.examples) message += ` (e.g. ${doc.examples.join(", ")})`;
    } else {
      message += `: ${issue.message}`;
    }
    return { status: "error", error_type: errorType, message };
  }
  const first = error.issues[0];
  const field = typeof first?.path[0] === "string" ? first.path[0] : "parameter";
  return {
    status: "error",
    error_type: "invalid_parameter",
    message: `Invalid or missing parameter '${field}': ${first?.message ?? "invalid arguments"}`,
  };
}

/**
 * The value pydantic reports as the input of a failing field: the value itself, or
 * for a missing field the whole argument object.
 */
function _input(args: unknown, path: readonly PropertyKey[]): unknown {
  let v: unknown = args;
  for (const key of path) {
    if (typeof v !== "object" || v === null) return args;
    const next = (v as Record<PropertyKey, unknown>)[key];
    if (next === undefined) return v;
    v = next;
  }
  return v;
}

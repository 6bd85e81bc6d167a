/**
 * The tau2 validation error: what a tool returns when its arguments do not fit its
 * schema. Each zod issue becomes a pydantic-style detail `{field, error, type}`
 * (`missing` / "Field required", `extra_forbidden` / "Extra inputs are not
 * permitted", ...), so a model sees the same kind of message from this harness as
 * from the reference.
 *
 * @module
 */
import type { z } from "zod";
import type { ToolErrorResult } from "../domain.ts";
import { INT_MESSAGE } from "./lax_numbers.ts";

export interface ValidationDetail {
  field: string;
  error: string;
  type: string;
}

export function tau2ValidationError(error: z.ZodError, args: unknown): ToolErrorResult {
  return {
    status: "error",
    error_type: "validation_error",
    message: "Tool arguments failed validation.",
    details: validationDetails(error, args),
  };
}

/** Pydantic-style details of a zod error over `args` (the raw input). */
export function validationDetails(error: z.ZodError, args: unknown): ValidationDetail[] {
  const details: ValidationDetail[] = [];
  for (const issue of error.issues) {
    const path = issue.path.map(String);
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        details.push({
          field: [...path, key].join("."),
          error: "Extra inputs are not permitted",
          type: "extra_forbidden",
        });
      }
      continue;
    }
    const field = path.join(".");
    const input = _at(args, issue.path);
    if (issue.code === "invalid_type") {
      const expected = issue.message === INT_MESSAGE ? "int" : issue.expected;
      details.push({ field, ..._typeDetail(expected, input, path.length === 0) });
    } else if (issue.code === "invalid_value") {
      const options = issue.values.map((v) => `'${String(v)}'`);
      const list = options.length > 1
        ? `${options.slice(0, -1).join(", ")} or ${options.at(-1)}`
        : options[0] ?? "";
      details.push({ field, error: `Input should be ${list}`, type: "enum" });
    } else {
      details.push({ field, error: issue.message, type: issue.code });
    }
  }
  return details;
}

function _typeDetail(
  expected: string,
  input: unknown,
  atRoot: boolean,
): { error: string; type: string } {
  if (input === undefined && !atRoot) return { error: "Field required", type: "missing" };
  switch (expected) {
    case "string":
      return { error: "Input should be a valid string", type: "string_type" };
    case "number":
      return typeof input === "string"
        ? {
          error: "Input should be a valid number, unable to parse string as a number",
          type: "float_parsing",
        }
        : { error: "Input should be a valid number", type: "float_type" };
    case "int":
      if (typeof input === "number" && Number.isFinite(input)) {
        return {
          error: "Input should be a valid integer, got a number with a fractional part",
          type: "int_from_float",
        };
      }
      return typeof input === "string"
        ? {
          error: "Input should be a valid integer, unable to parse string as an integer",
          type: "int_parsing",
        }
        : { error: "Input should be a valid integer", type: "int_type" };
    case "boolean":
      return { error: "Input should be a valid boolean", type: "bool_type" };
    case "object":
    case "record":
      return atRoot
        ? { error: "Input should be a valid dictionary or object", type: "model_type" }
        : { error: "Input should be a valid dictionary", type: "dict_type" };
    case "array":
      return { error: "Input should be a valid list", type: "list_type" };
    default:
      return { error: `Input should be a valid ${expected}`, type: `${expected}_type` };
  }
}

function _at(value: unknown, path: readonly PropertyKey[]): unknown {
  let v = value;
  for (const key of path) {
    if (typeof v !== "object" || v === null) return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}

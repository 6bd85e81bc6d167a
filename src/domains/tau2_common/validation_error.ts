/**
 * The tau2 tool error for arguments that fail validation: one detail per failing
 * field, `{field, error, type}` with pydantic's location (`passengers.0.dob`),
 * message and error type, so an agent sees what the reference's agent would see.
 *
 * @module
 */
import type { z } from "zod";
import type { ToolErrorResult } from "../domain.ts";

export interface ValidationDetail {
  field: string;
  error: string;
  type: string;
}

/**
 * Builds the error from a zod failure. `args` is the raw input (to tell a missing
 * field from a wrong one); `modelName` names the nested model a path points into,
 * for pydantic's "valid dictionary or instance of X" wording.
 */
export function validationError(
  error: z.ZodError,
  args: unknown,
  modelName: (path: readonly PropertyKey[]) => string,
): ToolErrorResult {
  return {
    status: "error",
    error_type: "validation_error",
    message: "Tool arguments failed validation.",
    details: error.issues.flatMap((issue) => validationDetails(issue, args, modelName)),
  };
}

export function validationDetails(
  issue: z.core.$ZodIssue,
  args: unknown,
  modelName: (path: readonly PropertyKey[]) => string,
): ValidationDetail[] {
  const field = issue.path.map(String).join(".");
  switch (issue.code) {
    case "unrecognized_keys":
      return issue.keys.map((key) => ({
        field: field ? `${field}.${key}` : key,
        error: "Extra inputs are not permitted",
        type: "extra_forbidden",
      }));
    case "invalid_value":
      return [{
        field,
        error: `Input should be ${_alternatives(issue.values)}`,
        type: "enum",
      }];
    case "invalid_type": {
      const raw = _at(args, issue.path);
      if (raw === undefined && issue.path.length > 0) {
        return [{ field, error: "Field required", type: "missing" }];
      }
      return [_wrongType(field, issue.expected, raw, () => modelName(issue.path))];
    }
    default:
      return [{ field, error: issue.message, type: issue.code }];
  }
}

function _wrongType(
  field: string,
  expected: string,
  raw: unknown,
  model: () => string,
): ValidationDetail {
  switch (expected) {
    case "string":
      return { field, error: "Input should be a valid string", type: "string_type" };
    case "number":
    case "int":
      if (typeof raw === "string") {
        return {
          field,
          error: "Input should be a valid integer, unable to parse string as an integer",
          type: "int_parsing",
        };
      }
      if (typeof raw === "number" && Number.isFinite(raw)) {
        return {
          field,
          error: "Input should be a valid integer, got a number with a fractional part",
          type: "int_from_float",
        };
      }
      return { field, error: "Input should be a valid integer", type: "int_type" };
    case "array":
      return { field, error: "Input should be a valid list", type: "list_type" };
    case "object":
      return {
        field,
        error: `Input should be a valid dictionary or instance of ${model()}`,
        type: "model_type",
      };
    default:
      return { field, error: `Input should be a valid ${expected}`, type: `${expected}_type` };
  }
}

/** Pydantic lists choices as `'a', 'b' or 'c'`. */
function _alternatives(values: readonly unknown[]): string {
  const quoted = values.map((v) => typeof v === "string" ? `'${v}'` : String(v));
  if (quoted.length <= 1) return quoted.join("");
  return `${quoted.slice(0, -1).join(", ")} or ${quoted.at(-1)}`;
}

function _at(value: unknown, path: readonly PropertyKey[]): unknown {
  let v = value;
  for (const key of path) {
    if (typeof v !== "object" || v === null) return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}

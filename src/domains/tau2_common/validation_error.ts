/**
 * The tau2 tool error for arguments that fail validation, for every tau2 domain: one
 * detail per failing field, `{field, error, type}` with pydantic's location
 * (`passengers.0.dob`), message and error type, so an agent sees what the reference's
 * agent would see. The domains' argument models differ in two ways pydantic shows,
 * and a `PydanticDialect` says which: what a plain number is (airline and retail
 * declare integers; telecom floats) and how a wrong object reads (airline and retail
 * name the nested model; telecom's arguments are plain dictionaries).
 *
 * @module
 */
import type { z } from "zod";
import type { ToolErrorResult } from "../domain.ts";

/** One pydantic error detail. */
export interface ValidationDetail {
  field: string;
  error: string;
  type: string;
}

/** How a domain's argument models read in pydantic's errors. */
export interface PydanticDialect {
  /** What a zod `number` is in the reference's model: `int` or `float`. */
  number: "int" | "float";
  /** The error for a value that should be an object (or record) at `path`. */
  object(path: readonly PropertyKey[]): { error: string; type: string };
  /** A zod message that marks an integer field whatever its zod type (lax parsing). */
  intMessage?: string;
}

/** The reference's envelope around the details of `error` over the raw `args`. */
export function validationError(
  error: z.ZodError,
  args: unknown,
  dialect: PydanticDialect,
): ToolErrorResult {
  return {
    status: "error",
    error_type: "validation_error",
    message: "Tool arguments failed validation.",
    details: validationDetails(error, args, dialect),
  };
}

/** Pydantic-style details of a zod error over `args` (the raw input), in issue order. */
export function validationDetails(
  error: z.ZodError,
  args: unknown,
  dialect: PydanticDialect,
): ValidationDetail[] {
  return error.issues.flatMap((issue) => _issueDetails(issue, args, dialect));
}

function _issueDetails(
  issue: z.core.$ZodIssue,
  args: unknown,
  dialect: PydanticDialect,
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
      return [{ field, error: `Input should be ${_alternatives(issue.values)}`, type: "enum" }];
    case "invalid_type": {
      const raw = _at(args, issue.path);
      if (raw === undefined && issue.path.length > 0) {
        return [{ field, error: "Field required", type: "missing" }];
      }
      const expected = dialect.intMessage !== undefined && issue.message === dialect.intMessage
        ? "int"
        : issue.expected;
      return [{ field, ..._wrongType(expected, raw, issue.path, dialect) }];
    }
    default:
      return [{ field, error: issue.message, type: issue.code }];
  }
}

function _wrongType(
  expected: string,
  raw: unknown,
  path: readonly PropertyKey[],
  dialect: PydanticDialect,
): { error: string; type: string } {
  switch (expected === "number" ? dialect.number : expected) {
    case "string":
      return { error: "Input should be a valid string", type: "string_type" };
    case "float":
      return typeof raw === "string"
        ? {
          error: "Input should be a valid number, unable to parse string as a number",
          type: "float_parsing",
        }
        : { error: "Input should be a valid number", type: "float_type" };
    case "int":
      if (typeof raw === "string") {
        return {
          error: "Input should be a valid integer, unable to parse string as an integer",
          type: "int_parsing",
        };
      }
      if (typeof raw === "number" && Number.isFinite(raw)) {
        return {
          error: "Input should be a valid integer, got a number with a fractional part",
          type: "int_from_float",
        };
      }
      return { error: "Input should be a valid integer", type: "int_type" };
    case "boolean":
      return { error: "Input should be a valid boolean", type: "bool_type" };
    case "array":
      return { error: "Input should be a valid list", type: "list_type" };
    case "object":
    case "record":
      return dialect.object(path);
    default:
      return { error: `Input should be a valid ${expected}`, type: `${expected}_type` };
  }
}

/** Pydantic lists choices as `'a', 'b' or 'c'` (strings quoted, numbers not). */
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

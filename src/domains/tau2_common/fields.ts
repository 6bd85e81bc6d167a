/**
 * Argument fields of the tau2 tools, accepting what the reference's pydantic models
 * accept: strings as they are, integers in pydantic's lax mode (`"2"`, `2.0` and
 * `true` become numbers), string enums, lists, and nested models that drop unknown
 * keys (only the top-level argument object rejects them). The JSON Schema an LLM
 * sees comes from these (zod's default output mode shows the validated type).
 *
 * @module
 */
import { z } from "zod";

/** A string field. */
export function text(description: string) {
  return z.string().describe(description);
}

const INTEGER_TEXT = /^\s*[+-]?\d+\s*$/;

/** Pydantic's lax integer input: integral strings and booleans become numbers. */
function _laxInteger(v: unknown): unknown {
  if (typeof v === "boolean") return v ? 1 : 0;
  if (typeof v === "string" && INTEGER_TEXT.test(v)) return Number(v);
  return v;
}

/** An integer field (pydantic `int`, lax mode). */
export function integer(description: string) {
  return z.preprocess(_laxInteger, z.number().int()).describe(description);
}

/** A string enum field (pydantic `StrEnum`). */
export function choice<const T extends readonly [string, ...string[]]>(
  values: T,
  description: string,
) {
  return z.enum(values).describe(description);
}

/** A list field. */
export function list<T extends z.ZodType>(item: T, description: string) {
  return z.array(item).describe(description);
}

/** A nested model: unknown keys are dropped, as a pydantic model does by default. */
export function model<S extends z.ZodRawShape>(shape: S) {
  return z.object(shape);
}

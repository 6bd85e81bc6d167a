/**
 * Numeric tool arguments as the reference's pydantic models accept them (lax mode):
 * a number, or a string that spells one. A model asked for "2" GB is not an error.
 *
 * @module
 */
import { z } from "zod";

function _fromNumericString(v: unknown): unknown {
  if (typeof v !== "string" || v.trim() === "") return v;
  const n = Number(v.trim());
  return Number.isFinite(n) ? n : v;
}

/** A float argument: numbers and numeric strings. */
export function laxFloat(): z.ZodType<number> {
  return z.preprocess(_fromNumericString, z.number()) as unknown as z.ZodType<number>;
}

/**
 * The message of every integer failure: zod reports a string given for an integer
 * as "expected number", and this message is how the validation error tells the
 * two apart.
 */
export const INT_MESSAGE = "Input should be a valid integer";

/** An integer argument: integers, integral floats and integer strings. */
export function laxInt(): z.ZodType<number> {
  return z.preprocess(_fromNumericString, z.int({ error: INT_MESSAGE })) as unknown as z.ZodType<
    number
  >;
}

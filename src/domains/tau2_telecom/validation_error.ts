/**
 * Telecom's validation errors: the shared tau2 translator
 * (`../tau2_common/validation_error.ts`) in telecom's dialect: numbers are floats
 * unless lax-integer, and a wrong object is a plain dictionary ("valid dictionary or
 * object" for the whole arguments, "valid dictionary" inside them).
 *
 * @module
 */
import type { z } from "zod";
import type { ToolErrorResult } from "../domain.ts";
import {
  type PydanticDialect,
  type ValidationDetail,
  validationDetails as tau2Details,
  validationError,
} from "../tau2_common/validation_error.ts";
import { INT_MESSAGE } from "./lax_numbers.ts";

export type { ValidationDetail };

/** How telecom's argument models read in pydantic's errors. */
export const TELECOM_DIALECT: PydanticDialect = {
  number: "float",
  intMessage: INT_MESSAGE,
  object: (path) =>
    path.length === 0
      ? { error: "Input should be a valid dictionary or object", type: "model_type" }
      : { error: "Input should be a valid dictionary", type: "dict_type" },
};

/** The reference's validation-error envelope for telecom's tools. */
export function tau2ValidationError(error: z.ZodError, args: unknown): ToolErrorResult {
  return validationError(error, args, TELECOM_DIALECT);
}

/** Pydantic-style details of a zod error over `args` (the raw input). */
export function validationDetails(error: z.ZodError, args: unknown): ValidationDetail[] {
  return tau2Details(error, args, TELECOM_DIALECT);
}

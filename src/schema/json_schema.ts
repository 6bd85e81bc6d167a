/**
 * The JSON Schema of a tool's arguments, as an LLM or a remote agent sees it, made
 * from the tool's zod schema (never written by hand): the input side of the schema
 * (defaults optional), without `$schema`, anything JSON Schema cannot say left open.
 * Cached per schema object, since every trial lists the same tools.
 *
 * @module
 */
import { z } from "zod";

const cache = new WeakMap<z.ZodType, Record<string, unknown>>();

/** JSON Schema of the arguments `args` accepts. Callers must not change the result. */
export function argumentsJsonSchema(args: z.ZodType): Record<string, unknown> {
  let parameters = cache.get(args);
  if (!parameters) {
    const { $schema: _ignored, ...rest } = z.toJSONSchema(args, {
      io: "input",
      unrepresentable: "any",
    }) as Record<string, unknown>;
    parameters = rest;
    cache.set(args, parameters);
  }
  return parameters;
}

/** The arguments of a tool that takes none (any object is accepted). */
export const NO_ARGUMENTS: z.ZodObject = z.object({});

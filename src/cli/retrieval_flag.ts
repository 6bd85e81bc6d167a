/** `--retrieval V`: the banking retrieval variant, checked and put in use before scenarios load. */
import {
  DEFAULT_VARIANT,
  resolveVariant,
  useRetrievalVariant,
  VARIANT_NAMES,
} from "../domains/tau2_banking_knowledge/mod.ts";
import { InputError } from "./problem.ts";

/**
 * The variant's canonical name for the config hash, or undefined when the flag is
 * absent or names the default (the same configuration as no flag).
 */
export function retrievalFromFlag(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  let name: string;
  try {
    name = resolveVariant(value).name;
  } catch {
    throw new InputError({
      field: "--retrieval",
      message: `unknown retrieval variant "${value}"`,
      hint: `one of ${VARIANT_NAMES.join(", ")}`,
    });
  }
  useRetrievalVariant(name);
  return name === DEFAULT_VARIANT ? undefined : name;
}

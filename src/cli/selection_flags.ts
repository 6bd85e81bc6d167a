/**
 * The scenario-selection flags shared by `list`, `eval` and `gold` (a flag table; see
 * `args.ts`). Commands may override a row's description by spreading.
 *
 * @module
 */
import { type FlagTable, listFlag } from "./args.ts";
import type { Selection } from "../scenario/suites.ts";
import { InputError } from "./problem.ts";

/** `--data-root`, `--domain` (repeatable) and `--scenarios` (comma-separated or repeated). */
export const SELECTION_FLAGS = {
  "data-root": {
    type: "string",
    value: "DIR",
    description: "data laid out as <domain>/... (else EVAL_DATA_ROOT, else the bundled fixtures)",
  },
  domain: { type: "string", value: "X", multiple: true, description: "a suite (repeatable)" },
  scenarios: {
    type: "string",
    value: "a,b",
    multiple: true,
    description: "exact scenario names",
  },
  language: {
    type: "string",
    value: "L",
    description:
      "the culture of suites that have several (EVA-Bench: en, es, fr, fr-CA, de, hi, ko; default en)",
  },
} as const satisfies FlagTable;

/** A selection from those flags (comma-separated or repeated) and scenario files. */
export function selectionFromFlags(
  values: { domain?: string[]; scenarios?: string[]; language?: string },
  files: string[] = [],
): Selection {
  return {
    domains: listFlag(values.domain),
    scenarios: listFlag(values.scenarios),
    files,
    ...(values.language !== undefined ? { language: languageFlag(values.language) } : {}),
  };
}

/** A language tag as BCP 47 spells one (`fr`, `fr-CA`), or an input error. */
function languageFlag(value: string): string {
  if (/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(value)) return value;
  throw new InputError({
    field: "--language",
    message: `expected a language tag such as fr or fr-CA, got ${JSON.stringify(value)}`,
  });
}

/**
 * The scenario-selection flags shared by `list`, `eval` and `gold` (a flag table; see
 * `args.ts`). Commands may override a row's description by spreading.
 *
 * @module
 */
import { type FlagTable, listFlag } from "./args.ts";
import type { Selection } from "../scenario/suites.ts";

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
} as const satisfies FlagTable;

/** A selection from those flags (comma-separated or repeated) and scenario files. */
export function selectionFromFlags(
  values: { domain?: string[]; scenarios?: string[] },
  files: string[] = [],
): Selection {
  return { domains: listFlag(values.domain), scenarios: listFlag(values.scenarios), files };
}

/**
 * The flags that select scenarios (`--data-root`, `--domain`, `--scenarios`) of
 * `list`, `gold` and `eval`, and the selection they make (src/scenario/suites.ts).
 *
 * @module
 */
import { listFlag } from "./args.ts";
import type { Selection } from "../scenario/suites.ts";

/** The flags that select scenarios, shared by `list`, `gold` and `eval`. */
export const SELECTION_FLAGS = {
  "data-root": { type: "string" },
  domain: { type: "string", multiple: true },
  scenarios: { type: "string", multiple: true },
} as const;

/** A selection from those flags (comma-separated or repeated) and scenario files. */
export function selectionFromFlags(
  values: { domain?: string[]; scenarios?: string[] },
  files: string[] = [],
): Selection {
  return { domains: listFlag(values.domain), scenarios: listFlag(values.scenarios), files };
}

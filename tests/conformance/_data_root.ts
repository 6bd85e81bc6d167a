/** The real benchmark data root for conformance tests, and a clear failure when it is missing. */
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const FROM_ENV = Deno.env.get("EVAL_DATA_ROOT");

export const DATA_ROOT: string = FROM_ENV ??
  fileURLToPath(new URL("../../../shared/datasets", import.meta.url));

/** What every conformance test reads, relative to the data root. */
export const REQUIRED = [
  "eva_airline/eva_airline_dataset.jsonl",
  "tau2_airline/tasks.json",
  "tau2_retail/tasks.json",
  "tau2_telecom/tasks.json",
];

/**
 * Why the data root cannot serve the conformance tests (missing, or without a
 * benchmark), or undefined when it can.
 */
export function dataRootProblem(root = DATA_ROOT): string | undefined {
  const via = FROM_ENV !== undefined && root === DATA_ROOT
    ? "EVAL_DATA_ROOT"
    : "the default ../shared/datasets";
  const missing = REQUIRED.filter((rel) => {
    try {
      return !Deno.statSync(join(root, rel)).isFile;
    } catch {
      return true;
    }
  });
  if (missing.length === 0) return undefined;
  return `the benchmark data root is missing: ${root} (from ${via}) lacks ${missing.join(", ")}; ` +
    "set EVAL_DATA_ROOT to a folder laid out as <domain>/... (see PROVENANCE.md)";
}

/** Throws the missing data root's explanation; call first in tests that need the data. */
export function requireDataRoot(): void {
  const problem = dataRootProblem();
  if (problem) throw new Error(problem);
}

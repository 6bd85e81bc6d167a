/**
 * The hash benchmarks' input: the text of tau2_retail's `db.json` (the largest
 * reference world) from the data root (`EVAL_DATA_ROOT`, else `../shared/datasets`),
 * or undefined when there is none (the benchmarks are then skipped).
 *
 * @module
 */
import { fileURLToPath } from "node:url";

export function retailDbText(): string | undefined {
  const root = Deno.env.get("EVAL_DATA_ROOT") ??
    fileURLToPath(new URL("../../../shared/datasets", import.meta.url));
  try {
    return Deno.readTextFileSync(`${root}/tau2_retail/db.json`);
  } catch {
    return undefined;
  }
}

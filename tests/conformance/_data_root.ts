/** The real benchmark data root for conformance tests. */
import { fileURLToPath } from "node:url";

export const DATA_ROOT: string = Deno.env.get("EVAL_DATA_ROOT") ??
  fileURLToPath(new URL("../../../shared/datasets", import.meta.url));

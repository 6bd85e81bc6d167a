/**
 * The callbench version, read from `deno.json` when the module graph is built (a JSON
 * import: one place to bump it, no file read at run time, no permission needed).
 *
 * @module
 */
import config from "../../deno.json" with { type: "json" };

/** The version of this callbench, as `deno.json` declares it. */
export const CALLBENCH_VERSION: string = config.version;

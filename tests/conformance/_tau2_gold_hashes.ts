/**
 * Prints `{scenario name: [db hash, user db hash]}` for every tau2 scenario of the
 * data root, one JSON document on stdout. The tau2 conformance test runs it in two
 * separate processes to show gold hashes do not depend on the process.
 *
 *   deno run --allow-read --allow-env=NODE_ENV,EVAL_DATA_ROOT tests/conformance/_tau2_gold_hashes.ts
 */
import { DataRoot } from "../../src/scenario/data_root.ts";
import { suites } from "../../src/scenario/tau2/suites.ts";
import { DATA_ROOT } from "./_data_root.ts";

const root = new DataRoot(DATA_ROOT);
const hashes: Record<string, [string | null, string | null]> = {};
for (const suite of suites) {
  for (const scenario of (await suite.load(root)).scenarios) {
    const gold = await suite.gold(root, scenario);
    hashes[scenario.name] = [gold.expected_db_sha256, gold.expected_user_db_sha256 ?? null];
  }
}
console.log(JSON.stringify(hashes));

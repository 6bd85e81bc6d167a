/**
 * Prints `{scenario name: gold db hash}` for every banking scenario of the data
 * root, one JSON document on stdout. The banking conformance test runs it in two
 * separate processes to show gold hashes do not depend on the process.
 *
 *   deno run --allow-read --allow-env tests/conformance/_banking_gold_hashes.ts
 */
import { DataRoot } from "../../src/scenario/data_root.ts";
import { bankingSuite } from "../../src/scenario/tau2/banking_suite.ts";
import { DATA_ROOT } from "./_data_root.ts";

const root = new DataRoot(DATA_ROOT);
const suite = bankingSuite();
const hashes: Record<string, string | null> = {};
for (const scenario of (await suite.load(root, { expected: false })).scenarios) {
  hashes[scenario.name] = (await suite.gold(root, scenario)).expected_db_sha256;
}
console.log(JSON.stringify(hashes));

/**
 * `dbHash` on the largest reference world (tau2_retail `db.json`, from the data
 * root; skipped when absent) against `JSON.parse` of the same text. Cold runs hash
 * a freshly parsed document, so the canonical-text cache of frozen objects cannot
 * help; warm runs re-hash one frozen document, as a trial's end state shares every
 * untouched record with the loaded world.
 *
 *   deno bench --allow-read --allow-env=EVAL_DATA_ROOT src/canonical/hash_bench.ts
 */
import { fileURLToPath } from "node:url";
import { dbHash } from "./hash.ts";
import { deepFreeze } from "../env/deep_freeze.ts";

const root = Deno.env.get("EVAL_DATA_ROOT") ??
  fileURLToPath(new URL("../../../shared/datasets", import.meta.url));

let text: string | undefined;
try {
  text = Deno.readTextFileSync(`${root}/tau2_retail/db.json`);
} catch {
  text = undefined;
}
const ignore = text === undefined;
const frozen = text === undefined ? {} : deepFreeze(JSON.parse(text));

// Warm first: the cold runs leave much garbage whose collection would be billed here.
Deno.bench({ name: "dbHash of one frozen document (warm cache)", group: "warm", ignore }, () => {
  dbHash(frozen);
});

Deno.bench({ name: "JSON.parse (cold baseline)", group: "cold", baseline: true, ignore }, () => {
  JSON.parse(text!);
});

// The figure that matters: hashing a fresh document costs this many JSON.parses.
Deno.bench({ name: "dbHash alone (cold: fresh document)", group: "cold", ignore }, (b) => {
  const doc = JSON.parse(text!);
  b.start();
  dbHash(doc);
  b.end();
});

Deno.bench({ name: "JSON.parse + dbHash (cold: fresh document)", group: "cold", ignore }, () => {
  dbHash(JSON.parse(text!));
});

Deno.bench(
  { name: "JSON.parse + deepFreeze + dbHash (cold, frozen)", group: "cold", ignore },
  () => {
    dbHash(deepFreeze(JSON.parse(text!)));
  },
);

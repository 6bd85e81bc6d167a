/**
 * The cold hash's goal, in a process of its own (the scaled worlds of
 * `hash_bench.ts` make every garbage collection there dearer): `dbHash` of a freshly
 * parsed tau2_retail `db.json` costs at most 1.5 `JSON.parse`s of its text, at the
 * median of interleaved runs. Skipped when the data root is absent.
 *
 *   deno bench --allow-read --allow-env=EVAL_DATA_ROOT,NODE_ENV src/canonical/hash_cold_bench.ts
 */
import { retailDbText } from "./_retail_text.ts";
import { dbHash } from "./hash.ts";

const text = retailDbText();

/** Medians of `n` interleaved JSON.parse and cold dbHash runs, in ms. */
function coldMedians(n: number): { parse: number; hash: number } {
  const parse: number[] = [];
  const hash: number[] = [];
  for (let i = 0; i < n; i++) {
    let t = performance.now();
    const doc = JSON.parse(text!);
    parse.push(performance.now() - t);
    t = performance.now();
    dbHash(doc);
    hash.push(performance.now() - t);
  }
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[xs.length >> 1]!;
  return { parse: median(parse), hash: median(hash) };
}

// Measured about 1.35 on 2 shared cores; 2.1 to 2.2 before a fresh document was
// written as bytes.
const MAX_COLD_RATIO = 1.5;
Deno.bench({
  name: `cold dbHash / JSON.parse median stays at most ${MAX_COLD_RATIO}`,
  ignore: text === undefined,
  n: 1,
  warmup: 0,
}, () => {
  const { parse, hash } = coldMedians(61);
  if (hash / parse > MAX_COLD_RATIO) {
    throw new Error(`cold dbHash costs ${(hash / parse).toFixed(2)} JSON.parses at the median`);
  }
});

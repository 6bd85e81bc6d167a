/**
 * `dbHash` on the largest reference world (tau2_retail `db.json`, from the data
 * root; skipped when absent) against `JSON.parse` of the same text. Cold runs hash
 * a freshly parsed document, so the canonical-text cache of frozen objects cannot
 * help; warm runs re-hash one frozen document, as a trial's end state shares every
 * untouched record with the loaded world.
 *
 * Then the end of a trial on worlds 1 and 16 times as big, and a check that the
 * cost grows linearly.
 *
 *   deno bench --allow-read --allow-env=EVAL_DATA_ROOT,NODE_ENV src/canonical/hash_bench.ts
 */
import { retailDbText } from "./_retail_text.ts";
import { dbHash } from "./hash.ts";
import { deepFreeze } from "../env/deep_freeze.ts";
import { scaledWorld } from "./_scaled_world.ts";

const text = retailDbText();
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

// ---------------------------------------------------------------------------
// The end of a trial on a world 1 and 16 times the retail world: one order changed
// (as a tool call leaves it: a new frozen root sharing every other record), then
// hashed; and the same world hashed again (its digest is cached).

const SCALES = [1, 16] as const;
const scaled = new Map<number, ReturnType<typeof scaledWorld>>(
  SCALES.map((k) => [k, scaledWorld(k)]),
);
let serial = 0;

/**
 * A world with one order's status changed, as a committed call leaves it: new frozen
 * objects on the path to the order, every other record shared.
 */
function afterOneWrite(k: number): unknown {
  const { world, orderId } = scaled.get(k)!;
  const old = world.orders![orderId] as Record<string, unknown>;
  const order = Object.freeze({ ...old, status: `changed ${serial++}` });
  const orders = Object.freeze({ ...world.orders, [orderId]: order });
  return Object.freeze({ ...world, orders });
}

for (const k of SCALES) {
  dbHash(scaled.get(k)!.world);
  Deno.bench({ name: `dbHash after one write, retail x${k}`, group: "scaled" }, (b) => {
    const world = afterOneWrite(k);
    b.start();
    dbHash(world);
    b.end();
  });
  Deno.bench({ name: `dbHash of an unchanged world, retail x${k}`, group: "scaled" }, () => {
    dbHash(scaled.get(k)!.world);
  });
}

/** Least time of `n` hashes after one write, in ms. */
function leastHashMs(k: number, n: number): number {
  let least = Infinity;
  for (let i = 0; i < n; i++) {
    const world = afterOneWrite(k);
    const t = performance.now();
    dbHash(world);
    least = Math.min(least, performance.now() - t);
  }
  return least;
}

// Fails when hashing grows more than linearly with the world: x16 may cost at most
// 48 times x1. Linear is 16; JSON.parse itself measures about 20 (caches, garbage
// collection of a bigger heap), and a busy machine adds noise. Before the flatten
// was real, x16 cost about 100 times x1.
const MAX_RATIO = 48;
Deno.bench({
  name: `dbHash cost x16 / x1 stays linear (fails above ${MAX_RATIO})`,
  group: "linear",
}, () => {
  const ratio = leastHashMs(16, 9) / leastHashMs(1, 40);
  if (ratio > MAX_RATIO) throw new Error(`dbHash x16 costs ${ratio.toFixed(1)} times x1`);
});

/**
 * Run with `--v8-flags=--allow-natives-syntax` (by `canonical_json_test.ts`): hashes
 * enough frozen worlds for the optimising compiler to take over, then prints how
 * many of the last world's cached record texts V8 holds flat.
 *
 * @module
 */
import { cachedCanonicalText, canonicalJson } from "./canonical_json.ts";
import { deepFreeze } from "../env/deep_freeze.ts";

// Natives syntax only parses with the flag, so it is compiled at run time.
const isFlat = new Function("s", "return %StringIsFlat(s);") as (s: string) => boolean;

function world(seed: number): Record<string, Record<string, unknown>> {
  const orders: Record<string, unknown> = {};
  for (let i = 0; i < 200; i++) {
    orders[`#W${seed}_${i}`] = {
      status: "pending",
      items: [{ item_id: `${i}`, price: i + 0.5, options: { color: "red", size: String(i) } }],
      address: { city: "Testville", zip: `${10000 + i}` },
    };
  }
  return deepFreeze({ orders });
}

let last = world(0);
for (let n = 0; n < 300; n++) {
  last = world(n);
  canonicalJson(last);
}
const texts = Object.values(last.orders!).map((o) => cachedCanonicalText(o as object));
const cached = texts.filter((t) => t !== undefined) as string[];
console.log(JSON.stringify({
  records: texts.length,
  cached: cached.length,
  flat: cached.filter(isFlat).length,
  tableFlat: isFlat(cachedCanonicalText(last.orders!) ?? ""),
}));

import assert from "node:assert/strict";
import { current, seal, Transaction } from "./transaction.ts";
import { deepFreeze } from "./deep_freeze.ts";

type Json = Record<string, unknown>;

/** A frozen world with a table big enough to be overlaid. */
function world(): Json {
  const orders: Json = {};
  for (let i = 0; i < 200; i++) {
    orders[`#W${i}`] = { id: `#W${i}`, status: "pending", items: [{ n: i }] };
  }
  return deepFreeze({ db: { orders, meta: { count: 200 } }, counters: {} });
}

function orders(root: object): Record<string, Json> {
  return (root as { db: { orders: Record<string, Json> } }).db.orders;
}

Deno.test("a read copies nothing and leaves the world identical", () => {
  const base = world();
  const tx = new Transaction(base);
  const d = tx.draft as { db: { orders: Record<string, Json> } };
  assert.equal(d.db.orders["#W3"]!.status, "pending");
  assert.equal(Object.keys(d.db.orders).length, 200);
  assert.equal(d.db.orders, d.db.orders, "one proxy per place");
  assert.equal(current(d.db.orders), orders(base));
  assert.equal(tx.changed, false);
  assert.equal(tx.commit(), base);
});

Deno.test("a write shares every untouched record and never touches the base", () => {
  const base = world();
  const before = JSON.stringify(base);
  const tx = new Transaction(base);
  const d = tx.draft as { db: { orders: Record<string, Json> } };
  d.db.orders["#W3"]!.status = "cancelled";
  (d.db.orders["#W3"]!.items as Json[]).push({ n: -1 });
  const next = seal(tx.commit());
  assert.equal(JSON.stringify(base), before);
  assert.ok(Object.isFrozen(next) && Object.isFrozen(orders(next)));
  assert.ok(Object.isFrozen(orders(next)["#W3"]!.items));
  assert.notEqual(next, base);
  assert.equal(orders(next)["#W4"], orders(base)["#W4"]);
  assert.equal((next as { db: Json }).db.meta, (base as { db: Json }).db.meta);
  assert.deepEqual(orders(next)["#W3"], {
    id: "#W3",
    status: "cancelled",
    items: [{ n: 3 }, { n: -1 }],
  });
  assert.deepEqual(Object.keys(orders(next)), Object.keys(orders(base)));
});

Deno.test("rollback undoes nested writes, pushes and deletes, on owned and overlaid objects", () => {
  const base = world();
  // First a committed call, so later calls write to objects the trial owns.
  const t1 = new Transaction(base);
  const d1 = t1.draft as { db: { orders: Record<string, Json> } };
  d1.db.orders["#W1"]!.status = "x";
  d1.db.orders["#new"] = { id: "#new" };
  const owned = t1.commit();
  const text = JSON.stringify(owned);
  const keys = Object.keys(orders(owned));

  const t2 = new Transaction(owned);
  const d2 = t2.draft as { db: { orders: Record<string, Json>; meta: Json }; counters: Json };
  d2.db.orders["#W1"]!.status = "y";
  (d2.db.orders["#W1"]!.items as Json[]).splice(0, 1, { n: 9 }, { n: 10 });
  delete d2.db.orders["#W2"];
  delete d2.db.orders["#new"];
  d2.db.orders["#new"] = { id: "#new", again: true };
  d2.db.orders["#W0"] = d2.db.orders["#W5"]!;
  d2.db.meta.count = 1;
  delete d2.db.meta.count;
  d2.counters.c = 1;
  t2.rollback();
  assert.equal(JSON.stringify(owned), text);
  assert.deepEqual(Object.keys(orders(owned)), keys);
});

Deno.test("an overlaid table lists its keys as a plain object would", () => {
  const base = world();
  const plain = structuredClone(base) as Json;
  const tx = new Transaction(base);
  const d = tx.draft as { db: { orders: Record<string, unknown> } };
  for (const o of [d.db.orders, orders(plain)]) {
    o["#zz"] = 1;
    delete o["#W7"];
    o["12"] = "index";
    o["#W7"] = "back";
    o["#W8"] = "same place";
    delete o["#zz"];
    o["#zz"] = 2;
  }
  assert.deepEqual(Object.keys(d.db.orders), Object.keys(orders(plain)));
  const next = seal(tx.commit());
  assert.deepEqual(Object.keys(orders(next)), Object.keys(orders(plain)));
  assert.equal(JSON.stringify(next), JSON.stringify(plain));
});

Deno.test("objects a tool builds from drafts hold plain values after commit", () => {
  const base = world();
  const tx = new Transaction(base);
  const d = tx.draft as { db: { orders: Record<string, Json> } };
  const built: Json = { copy: { ...d.db.orders["#W1"]! } };
  d.db.orders["#W9"]!.extra = built;
  built.later = d.db.orders["#W2"];
  const next = seal(tx.commit());
  const extra = orders(next)["#W9"]!.extra as { copy: Json; later: Json };
  assert.equal(extra.copy.items, orders(base)["#W1"]!.items);
  assert.equal(extra.later, orders(base)["#W2"]);
  assert.ok(Object.isFrozen(extra.copy));
});

Deno.test("a write through a reference the world no longer holds fails", () => {
  const tx = new Transaction(world());
  const d = tx.draft as { db: { orders: Record<string, Json> } };
  const stale = d.db.orders["#W1"]!;
  d.db.orders["#W1"] = { id: "#W1" };
  assert.throws(() => stale.status = "x", /no longer holds/);
});

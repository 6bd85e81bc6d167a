/**
 * A retail-shaped world `k` times as big, for benchmarks: every table's records
 * repeated with suffixed ids. From the data root's `tau2_retail/db.json` when
 * present, else from a small synthetic world of the same shape.
 *
 * @module
 */
import { retailDbText } from "./_retail_text.ts";
import { deepFreeze } from "../env/deep_freeze.ts";

type Tables = Record<string, Record<string, unknown>>;

function _source(): Tables {
  const text = retailDbText();
  if (text !== undefined) return JSON.parse(text);
  const orders: Record<string, unknown> = {};
  const users: Record<string, unknown> = {};
  for (let i = 0; i < 1000; i++) {
    orders[`#W${1000000 + i}`] = {
      order_id: `#W${1000000 + i}`,
      user_id: `user_${i % 500}`,
      status: i % 3 ? "delivered" : "pending",
      items: [{ item_id: `${i}`, price: 10 + i / 7, options: { color: "red", size: "M" } }],
      address: { address1: `${i} Test Way`, city: "Testville", zip: `${10000 + i}` },
      payment_history: [{ transaction_type: "payment", amount: 10 + i / 7 }],
    };
    if (i < 500) users[`user_${i}`] = { user_id: `user_${i}`, email: `u${i}@example.test` };
  }
  return { orders, users, products: {} };
}

/** The source world's tables repeated `k` times (frozen), and an order id in it. */
export function scaledWorld(k: number): { world: Tables; orderId: string; orders: number } {
  const source = _source();
  const world: Tables = {};
  for (const [table, rows] of Object.entries(source)) {
    const out: Record<string, unknown> = {};
    for (let i = 0; i < k; i++) {
      for (const [id, row] of Object.entries(rows)) {
        out[i ? `${id}_${i}` : id] = structuredClone(row);
      }
    }
    world[table] = out;
  }
  const orderId = Object.keys(world.orders ?? {})[7]!;
  return { world: deepFreeze(world), orderId, orders: Object.keys(world.orders ?? {}).length };
}

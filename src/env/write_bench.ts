/**
 * What one tool call costs the Environment on a 1,000-order (retail) and a
 * 16,000-order world: a write (one order's status), and a read of one order through
 * the draft. Both grow with the table: immer copies a parent object the first time
 * a child is read through the draft (so it can hold the child's draft), and a
 * write also freezes that copy. A plain-object table is copied whole, which is
 * about 0.3 ms per 1,000 keys (a dictionary-mode object's spread) plus the freeze.
 *
 *   deno bench --allow-read --allow-env src/env/write_bench.ts
 */
import { Environment } from "./environment.ts";
import { scaledWorld } from "../canonical/_scaled_world.ts";
import type { Domain, ToolDef } from "../domains/domain.ts";
import { z } from "zod";

const setStatus: ToolDef<{ id: string; status: string }> = {
  name: "set_status",
  side: "agent",
  kind: "write",
  description: "Set one order's status.",
  args: z.object({ id: z.string(), status: z.string() }),
  run({ id, status }, { db }) {
    ((db.orders as Record<string, Record<string, unknown>>)[id]!).status = status;
    return { ok: true, result: "ok", record: { action_type: "set_status", id, status } };
  },
};

const readStatus: ToolDef<{ id: string }> = {
  name: "read_status",
  side: "agent",
  kind: "read",
  description: "Read one order's status.",
  args: z.object({ id: z.string() }),
  run: ({ id }, { db }) => ({
    ok: true,
    result: ((db.orders as Record<string, Record<string, unknown>>)[id]!).status,
  }),
};

const domain: Domain = {
  id: "bench_orders",
  tools: [setStatus, readStatus],
  validationError: () => ({ status: "error", error_type: "validation_error", message: "bad" }),
};

for (const k of [1, 16]) {
  const { world, orderId, orders } = scaledWorld(k);
  const env = new Environment(domain, { db: world }, { today: "2025-01-01", seed: "bench" });
  let n = 0;
  Deno.bench({ name: `one write, ${orders} orders`, group: "write" }, () => {
    env.call("agent", "set_status", { id: orderId, status: `s${n++}` });
  });
  Deno.bench({ name: `one read, ${orders} orders`, group: "read" }, () => {
    env.call("agent", "read_status", { id: orderId });
  });
}

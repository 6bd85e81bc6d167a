import assert from "node:assert/strict";
import { Environment } from "./environment.ts";
import { counterDomain } from "../testing/counter_domain.ts";
import { testEnvironment } from "../domains/tau2_telecom/_testing.ts";
import type { Domain, Side, ToolDef } from "../domains/domain.ts";
import { deepFreeze } from "./deep_freeze.ts";
import { z } from "zod";

/** Names every plain object answers through its prototype. */
const PROTOTYPE_NAMES = [
  "constructor",
  "__proto__",
  "toString",
  "hasOwnProperty",
  "valueOf",
  "__defineGetter__",
];

function counterEnvironment(): Environment {
  return new Environment(counterDomain, { db: { count: 0 }, user_db: { pressed: [] } }, {
    today: "2025-01-01",
    seed: "s",
  });
}

Deno.test("tool names from input are own names only: prototype names are unknown tools", () => {
  const env = counterEnvironment();
  for (const name of PROTOTYPE_NAMES) {
    for (const side of ["agent", "user"] as const) {
      assert.equal(env.tool(side, name), undefined, name);
      const out = env.call(side, name, {});
      assert.equal(out.ok, false);
      assert.equal((out.result as { error_type: string }).error_type, "unknown_tool", name);
    }
  }
  assert.equal(env.tool("agent", "add")?.name, "add");
  assert.equal(env.tool("agent", "EndConversationTool")?.name, "end_conversation");
  assert.equal(env.tool("user", "add"), undefined);
});

Deno.test("init function names and sides from input are own names only", () => {
  const env = testEnvironment();
  for (const name of PROTOTYPE_NAMES) {
    for (const side of ["agent", "user"] as const) {
      const out = env.initialize([{ side, func_name: name }]);
      assert.deepEqual(out, {
        success: false,
        errors: [`${name}: unknown ${side} initialization function`],
      });
    }
    // A side that is not one: unknown as well, never a crash.
    const out = env.initialize([{ side: name as Side, func_name: "turn_airplane_mode_on" }]);
    assert.equal(out.success, false, name);
  }
  assert.deepEqual(env.initialize([{ side: "user", func_name: "turn_airplane_mode_on" }]), {
    success: true,
    errors: [],
  });
});

Deno.test("predicate names and sides from input are own names only", () => {
  const env = testEnvironment();
  for (const name of PROTOTYPE_NAMES) {
    for (const side of ["agent", "user"] as const) {
      const [v] = env.evaluate([{ side, func_name: name, assert_value: true }]);
      assert.equal(v?.passed, false);
      assert.equal(v?.error, `unknown predicate ${name}`);
    }
    const [v] = env.evaluate([{
      side: name as Side,
      func_name: "assert_airplane_mode_on",
      assert_value: true,
    }]);
    assert.equal(v?.passed, false);
    assert.match(v?.error ?? "", /^unknown side/);
  }
});

Deno.test("a sync delta cannot walk into or replace a prototype", () => {
  const paths = [
    "__proto__.polluted",
    "constructor.prototype.polluted",
    "count.__proto__.polluted",
    "__proto__",
  ];
  for (const path of paths) {
    const env = counterEnvironment();
    const out = env.applyDelta("agent", { [path]: { polluted: true } });
    // As the reference's setter: the failing path is skipped (logged), not raised.
    assert.match(out.skipped ?? "", /path not (found|settable)/, path);
    assert.deepEqual(env.db, { count: 0 }, path);
  }
  const telecom = testEnvironment();
  for (const path of [...paths, "surroundings.__proto__", "bills[B1].__proto__"]) {
    telecom.applyDelta("user", { [path]: { polluted: true } });
    telecom.applyDelta("agent", { [path]: { polluted: true } });
  }
  assert.equal(Object.getPrototypeOf(telecom.userDb!.surroundings), Object.prototype);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.equal((Object.prototype as Record<string, unknown>).polluted, undefined);
});

Deno.test("a failing call changes nothing; a committed one shares every untouched record", () => {
  type Orders = Record<string, { status: string; items: number[] }>;
  const orders: Orders = {};
  for (let i = 0; i < 300; i++) orders[`o${i}`] = { status: "new", items: [i] };
  const base = deepFreeze({ orders, meta: { n: 300 } });
  const tool = (name: string, fail: "no" | "result" | "throw"): ToolDef<{ id: string }> => ({
    name,
    side: "agent",
    kind: "write",
    description: name,
    args: z.object({ id: z.string() }),
    run({ id }, { db, next }) {
      const table = db.orders as Orders;
      table[id]!.status = "changed";
      table[id]!.items.push(next("n"));
      delete table.o0;
      (db.meta as { n: number }).n = 0;
      if (fail === "throw") throw new Error("boom");
      if (fail === "result") {
        return { ok: false, result: { status: "error", error_type: "x", message: "" } };
      }
      return { ok: true, result: table[id], record: { action_type: name } };
    },
  });
  const domain: Domain = {
    id: "orders_test",
    tools: [tool("ok", "no"), tool("fails", "result"), tool("throws", "throw")],
    validationError: () => ({ status: "error", error_type: "validation_error", message: "" }),
  };
  const env = new Environment(domain, { db: base }, { today: "2025-01-01", seed: "s" });
  const initial = env.hashes().db_sha256;
  for (const name of ["fails", "throws"]) {
    assert.equal(env.call("agent", name, { id: "o5" }).ok, false);
    assert.equal(env.db, base, name);
  }
  const ok = env.call("agent", "ok", { id: "o5" });
  assert.deepEqual(ok.result, { status: "changed", items: [5, 1] }, "counters rolled back too");
  const after = env.db;
  assert.ok(Object.isFrozen(after) && Object.isFrozen(after.orders));
  assert.equal(Object.isFrozen((after.orders as Orders).o5!.items), true);
  assert.equal((after.orders as Orders).o6, orders.o6, "untouched records are shared");
  assert.equal(Object.hasOwn(after.orders as Orders, "o0"), false);
  assert.equal(env.hashes().db_sha256 === initial, false);
  // Failing calls on a world the trial owns change nothing either.
  const text = JSON.stringify(after);
  for (const name of ["fails", "throws"]) {
    env.call("agent", name, { id: "o7" });
    assert.equal(env.db, after, name);
  }
  env.call("agent", "ok", { id: "o8" });
  env.call("agent", "fails", { id: "o9" });
  assert.equal(JSON.stringify(after), text, "a sealed world is never written");
  assert.equal((env.db.orders as Orders).o9!.status, "new");
  assert.deepEqual((env.db.orders as Orders).o8, { status: "changed", items: [8, 2] });
  assert.equal(JSON.stringify(base.orders.o5), '{"status":"new","items":[5]}');
});

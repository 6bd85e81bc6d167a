import assert from "node:assert/strict";
import { Environment } from "./environment.ts";
import { counterDomain } from "../testing/counter_domain.ts";
import { testEnvironment } from "../domains/tau2_telecom/_testing.ts";
import type { Side } from "../domains/domain.ts";

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
    assert.equal(out.success, false, path);
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

import assert from "node:assert/strict";
import { z } from "zod";
import { Environment } from "../../env/environment.ts";
import { domain } from "./mod.ts";
import { testEnvironment, TODAY } from "./_testing.ts";

/** Schema-valid arguments for every tool that takes any. */
const VALID_ARGS: Record<string, Record<string, unknown>> = {
  get_customer_by_phone: { phone_number: "555-000-1001" },
  get_customer_by_id: { customer_id: "C1" },
  get_customer_by_name: { full_name: "Ada Testcase", dob: "1990-01-02" },
  get_details_by_id: { id: "L1" },
  get_bills_for_customer: { customer_id: "C1" },
  get_data_usage: { customer_id: "C1", line_id: "L1" },
  suspend_line: { customer_id: "C1", line_id: "L1", reason: "test" },
  resume_line: { customer_id: "C1", line_id: "L2" },
  enable_roaming: { customer_id: "C1", line_id: "L1" },
  disable_roaming: { customer_id: "C2", line_id: "L3" },
  send_payment_request: { customer_id: "C1", bill_id: "B2" },
  refuel_data: { customer_id: "C1", line_id: "L1", gb_amount: 1 },
  transfer_to_human_agents: { summary: "test" },
  check_app_status: { app_name: "messaging" },
  check_app_permissions: { app_name: "messaging" },
  set_network_mode_preference: { mode: "4g_only" },
  set_apn_settings: { apn_settings: { apn_name: "internet" } },
  grant_app_permission: { app_name: "messaging", permission: "sms" },
};

/** Writes that have nothing to change on the default synthetic phone. */
const NOTHING_TO_DO = new Set(["disconnect_vpn", "make_payment"]);

const isStructured = (r: unknown) =>
  typeof r === "string" ? r.length > 0 : typeof r === "object" && r !== null;

Deno.test("the domain has 13 agent tools, 30 phone tools and the end-of-call tool", () => {
  const agent = domain.tools.filter((t) => t.side === "agent").map((t) => t.name);
  const user = domain.tools.filter((t) => t.side === "user").map((t) => t.name);
  assert.equal(agent.length, 14);
  assert.ok(agent.includes("end_conversation"));
  assert.equal(user.length, 30);
  assert.equal(
    user.filter((n) => n.startsWith("check_") || n === "can_send_mms" || n === "run_speed_test")
      .length,
    15,
  );
  assert.equal(new Set(domain.tools.map((t) => t.name)).size, domain.tools.length);
  for (const t of domain.tools) {
    assert.match(t.name, /^[a-z][a-z0-9_]*$/);
    assert.ok(t.description.length > 10, t.name);
  }
  assert.equal(domain.id, "tau2_telecom");
});

Deno.test("every telecom tool's arguments give a JSON Schema that forbids extras", () => {
  for (const t of domain.tools) {
    const schema = z.toJSONSchema(t.args, { io: "input" }) as Record<string, unknown>;
    assert.equal(schema.type, "object", t.name);
    assert.equal(schema.additionalProperties, false, t.name);
    const required = (schema.required as string[] | undefined) ?? [];
    assert.deepEqual(required.sort(), Object.keys(VALID_ARGS[t.name] ?? {}).sort(), t.name);
  }
});

Deno.test("every telecom tool works on the synthetic worlds with valid arguments", () => {
  for (const t of domain.tools) {
    const env = testEnvironment();
    const out = env.call(t.side, t.name, VALID_ARGS[t.name] ?? {});
    assert.equal(out.ok, true, `${t.name}: ${JSON.stringify(out.result)}`);
    assert.ok(isStructured(out.result), t.name);
    assert.equal(
      out.record !== undefined,
      t.kind === "write" && !NOTHING_TO_DO.has(t.name),
      t.name,
    );
  }
});

Deno.test("error matrix: unknown arguments are refused by every tool, and nothing changes", () => {
  for (const t of domain.tools) {
    const env = testEnvironment();
    const before = env.hashes();
    const out = env.call(t.side, t.name, { ...VALID_ARGS[t.name], surprise: 1 });
    assert.equal(out.ok, false, t.name);
    assert.deepEqual((out.result as { details: unknown[] }).details.at(-1), {
      field: "surprise",
      error: "Extra inputs are not permitted",
      type: "extra_forbidden",
    });
    assert.deepEqual(env.hashes(), before, t.name);
    assert.equal(env.actions.length, 0);
  }
});

Deno.test("error matrix: empty arguments give a validation error or a result, never a throw", () => {
  for (const t of domain.tools) {
    const out = testEnvironment().call(t.side, t.name, {});
    assert.ok(isStructured(out.result), t.name);
    if (VALID_ARGS[t.name]) {
      assert.equal((out.result as { error_type: string }).error_type, "validation_error", t.name);
    }
  }
});

Deno.test("error matrix: empty databases give db_not_initialized, never a throw", () => {
  const empty = new Environment(domain, { db: {}, user_db: {} }, { today: TODAY, seed: "x" });
  const missing = new Environment(domain, { db: {} }, { today: TODAY, seed: "x" });
  for (const t of domain.tools) {
    for (const env of [empty, missing]) {
      const out = env.call(t.side, t.name, VALID_ARGS[t.name] ?? {});
      assert.ok(isStructured(out.result), t.name);
      if (t.name === "transfer_to_human_agents" || t.name === "end_conversation") {
        assert.equal(out.ok, true, t.name);
      } else {
        assert.equal(
          (out.result as { error_type: string }).error_type,
          "db_not_initialized",
          t.name,
        );
      }
    }
  }
});

Deno.test("error matrix: malformed databases give structured errors, never a throw", () => {
  const worlds = [
    { db: { customers: "nope", lines: 3 }, user_db: { device: {} } },
    { db: { customers: [{ customer_id: "C1" }] }, user_db: { surroundings: null } },
    // Writes succeed here and the sync then meets rows that are not records.
    {
      db: { customers: [null, 7], lines: [null, { line_id: "L1", phone_number: "555" }] },
      user_db: { surroundings: { phone_number: "555", payment_request: "paid?" } },
    },
  ];
  for (const world of worlds) {
    for (const t of domain.tools) {
      const env = new Environment(domain, world, { today: TODAY, seed: "x" });
      const out = env.call(t.side, t.name, VALID_ARGS[t.name] ?? {});
      assert.ok(isStructured(out.result), t.name);
    }
  }
});

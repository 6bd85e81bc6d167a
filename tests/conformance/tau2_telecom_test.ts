/**
 * The telecom domain against the real benchmark data: every base task's
 * initialisation and reference actions replay without error and leave the world its
 * assertions expect; replays are deterministic; the shipped worlds hash as the
 * reference says. Reads the data root from `EVAL_DATA_ROOT`, else
 * `../shared/datasets`; skips when neither holds the telecom data.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { dbHash } from "../../src/canonical/hash.ts";
import type { Db, Side } from "../../src/domains/domain.ts";
import { domain, TELECOM_TODAY } from "../../src/domains/tau2_telecom/mod.ts";
import { TelecomDbSchema, TelecomUserDbSchema } from "../../src/domains/tau2_telecom/data_model.ts";
import { deepFreeze } from "../../src/env/deep_freeze.ts";
import { Environment } from "../../src/env/environment.ts";
import { DATA_ROOT } from "./_data_root.ts";

const DIR = join(DATA_ROOT, "tau2_telecom");
const present = (() => {
  try {
    return Deno.statSync(join(DIR, "tasks.json")).isFile;
  } catch {
    return false;
  }
})();

const AGENT_DB_SHA256 = "4833e8dc608e1b5ff53fbb6efc0222d0b1b7c8eb659a4afd9724094301160eb1";
const USER_DB_SHA256 = "5021b231bbb2d8dd3dbcc2d880da4321e8da83a55f31c2dd91c05fc7632d3e35";

interface EnvRecord {
  env_type: "user" | "assistant";
  func_name: string;
  arguments?: Record<string, unknown>;
  assert_value?: unknown;
  message?: string | null;
}
interface Task {
  id: string;
  initial_state?: { initialization_actions?: EnvRecord[] | null } | null;
  evaluation_criteria: {
    actions?: { requestor: string; name: string; arguments: Record<string, unknown> }[] | null;
    env_assertions?: EnvRecord[] | null;
  };
}

const readJson = <T>(name: string): T => JSON.parse(Deno.readTextFileSync(join(DIR, name)));
const side = (envType: string): Side => envType === "user" ? "user" : "agent";

function load() {
  const tasks = readJson<Task[]>("tasks.json");
  const base = new Set(readJson<{ base: string[] }>("split_tasks.json").base);
  const voice = readJson<{ configs: Record<string, unknown> }>("tasks_voice.json").configs;
  return {
    tasks: tasks.filter((t) => base.has(t.id) && Object.hasOwn(voice, t.id)),
    db: deepFreeze(readJson<Db>("db.json")),
    userDb: deepFreeze(readJson<Db>("user_db.json")),
  };
}

/** Replays one task as the reference's gold replay does (§5.2). */
function replay(task: Task, db: Db, userDb: Db, { seed = "conformance", actions = true } = {}) {
  const env = new Environment(domain, { db, user_db: userDb }, { today: TELECOM_TODAY, seed });
  const init = env.initialize(
    (task.initial_state?.initialization_actions ?? []).map((a) => ({
      side: side(a.env_type),
      func_name: a.func_name,
      arguments: a.arguments ?? {},
    })),
  );
  env.sync();
  const calls = (actions ? task.evaluation_criteria.actions ?? [] : []).map((a) =>
    env.call(a.requestor === "user" ? "user" : "agent", a.name, a.arguments)
  );
  const verdicts = env.evaluate(
    (task.evaluation_criteria.env_assertions ?? []).map((a) => ({
      side: side(a.env_type),
      func_name: a.func_name,
      arguments: a.arguments ?? {},
      assert_value: a.assert_value,
      message: a.message ?? null,
    })),
  );
  return { env, init, calls, verdicts };
}

Deno.test({
  name: "telecom shipped worlds hash as the reference and validate against the data model",
  ignore: !present,
  fn() {
    const { db, userDb } = load();
    assert.equal(dbHash(db), AGENT_DB_SHA256);
    assert.equal(dbHash(userDb), USER_DB_SHA256);
    TelecomDbSchema.parse(db);
    TelecomUserDbSchema.parse(userDb);
    // The default phone of the data model is the shipped one.
    assert.equal(dbHash(TelecomUserDbSchema.parse({})), USER_DB_SHA256);
  },
});

Deno.test({
  name: "every telecom base task replays cleanly and meets all its assertions",
  ignore: !present,
  fn() {
    const { tasks, db, userDb } = load();
    assert.equal(tasks.length, 114);
    const failures: string[] = [];
    let assertions = 0;
    for (const task of tasks) {
      const { init, calls, verdicts } = replay(task, db, userDb);
      if (!init.success) failures.push(`${task.id}: init ${init.errors.join("; ")}`);
      calls.forEach((c, i) => {
        if (!c.ok) failures.push(`${task.id}: action ${i} ${c.tool} ${JSON.stringify(c.result)}`);
      });
      for (const v of verdicts) {
        assertions++;
        if (!v.passed) failures.push(`${task.id}: ${v.func_name} ${JSON.stringify(v)}`);
      }
    }
    assert.deepEqual(failures, []);
    assert.ok(assertions >= 114);
  },
});

Deno.test({
  name: "a telecom replay is deterministic across environments",
  ignore: !present,
  fn() {
    const { tasks, db, userDb } = load();
    for (const task of tasks) {
      const a = replay(task, db, userDb);
      const b = replay(task, db, userDb);
      assert.deepEqual(a.env.hashes(), b.env.hashes(), task.id);
      assert.deepEqual(a.env.actions, b.env.actions, task.id);
    }
  },
});

/** Arguments for every tool that takes any, on the shipped worlds. */
const SHIPPED_ARGS: Record<string, Record<string, unknown>> = {
  get_customer_by_phone: { phone_number: "555-123-2002" },
  get_customer_by_id: { customer_id: "C1001" },
  get_customer_by_name: { full_name: "John Smith", dob: "1985-06-15" },
  get_details_by_id: { id: "B1002" },
  get_bills_for_customer: { customer_id: "C1001", limit: 2 },
  get_data_usage: { customer_id: "C1001", line_id: "L1002" },
  suspend_line: { customer_id: "C1001", line_id: "L1001", reason: "conformance" },
  resume_line: { customer_id: "C1001", line_id: "L1003" },
  enable_roaming: { customer_id: "C1001", line_id: "L1001" },
  disable_roaming: { customer_id: "C1001", line_id: "L1002" },
  send_payment_request: { customer_id: "C1001", bill_id: "B1002" },
  refuel_data: { customer_id: "C1001", line_id: "L1002", gb_amount: 2 },
  transfer_to_human_agents: { summary: "conformance" },
  check_app_status: { app_name: "messaging" },
  check_app_permissions: { app_name: "browser" },
  set_network_mode_preference: { mode: "4g_only" },
  set_apn_settings: { apn_settings: { apn_name: "internet" } },
  grant_app_permission: { app_name: "messaging", permission: "network" },
};

Deno.test({
  name: "every telecom tool answers on the shipped worlds",
  ignore: !present,
  fn() {
    const { db, userDb } = load();
    for (const tool of domain.tools) {
      const env = new Environment(domain, { db, user_db: userDb }, {
        today: TELECOM_TODAY,
        seed: "tools",
      });
      env.initialize([{
        side: "user",
        func_name: "set_user_info",
        arguments: { name: "John Smith", phone_number: "555-123-2002" },
      }]);
      env.sync();
      const out = env.call(tool.side, tool.name, SHIPPED_ARGS[tool.name] ?? {});
      assert.equal(out.ok, true, `${tool.name}: ${JSON.stringify(out.result)}`);
      assert.ok(out.result !== null && out.result !== "", tool.name);
    }
  },
});

Deno.test({
  name: "telecom reads on the shipped agent world find the records the tasks rely on",
  ignore: !present,
  fn() {
    const { db, userDb } = load();
    const env = new Environment(domain, { db, user_db: userDb }, {
      today: TELECOM_TODAY,
      seed: "reads",
    });
    const read = (name: string) => env.call("agent", name, SHIPPED_ARGS[name]!).result;
    assert.equal((read("get_customer_by_phone") as { customer_id: string }).customer_id, "C1001");
    assert.deepEqual(
      (read("get_bills_for_customer") as { bill_id: string }[]).map((b) => b.bill_id),
      ["B1003", "B1002"],
    );
    assert.equal(
      (read("get_data_usage") as { cycle_end_date: string }).cycle_end_date,
      "2025-02-28",
    );
    // The customer has a draft bill, so refuelling mints no id: the hash needs no seed.
    const refuel = env.call("agent", "refuel_data", SHIPPED_ARGS.refuel_data!);
    assert.equal(
      (refuel.result as { message: string }).message,
      "Successfully added 2.0 GB of data for line L1002 for $4.00",
    );
    assert.equal((env.db as { bills: unknown[] }).bills.length, 6);
  },
});

Deno.test({
  name: "telecom assertions fail before the reference actions are replayed",
  ignore: !present,
  fn() {
    const { tasks, db, userDb } = load();
    // A task whose fix changes the world starts out broken; the others end in a
    // transfer and assert a state that already holds (no service).
    const fixes = (t: Task) =>
      (t.evaluation_criteria.actions ?? []).some((a) => a.name !== "transfer_to_human_agents");
    let fixTasks = 0;
    for (const task of tasks) {
      const { verdicts } = replay(task, db, userDb, { actions: false });
      const holds = verdicts.every((v) => v.passed);
      assert.equal(holds, !fixes(task), task.id);
      if (fixes(task)) fixTasks++;
    }
    assert.equal(fixTasks, 94);
  },
});

/** Prints each task's final hashes (the child side of the two-process check). */
function printHashes(): void {
  const { tasks, db, userDb } = load();
  const out = Object.fromEntries(tasks.map((t) => [t.id, replay(t, db, userDb).env.hashes()]));
  console.log(JSON.stringify(out));
}

const canRun = Deno.permissions.querySync({ name: "run", command: Deno.execPath() }).state ===
  "granted";

Deno.test({
  name: "a telecom replay gives the same hashes in another process",
  ignore: !present || !canRun,
  async fn() {
    const child = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--allow-read",
        "--allow-env=NODE_ENV,EVAL_DATA_ROOT",
        new URL(import.meta.url).pathname,
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(child.code, 0, new TextDecoder().decode(child.stderr));
    const theirs = JSON.parse(new TextDecoder().decode(child.stdout));
    const { tasks, db, userDb } = load();
    for (const task of tasks) {
      assert.deepEqual(theirs[task.id], replay(task, db, userDb).env.hashes(), task.id);
    }
  },
});

const suitesFile = new URL("../../src/scenario/tau2/suites.ts", import.meta.url);
const hasSuites = (() => {
  try {
    return Deno.statSync(suitesFile).isFile;
  } catch {
    return false;
  }
})();

Deno.test({
  name: "through the tau2 suites, every telecom scenario's gold meets its assertions",
  ignore: !present || !hasSuites,
  async fn() {
    const { DataRoot } = await import("../../src/scenario/data_root.ts");
    const { suites } = await import(suitesFile.href) as {
      suites: import("../../src/scenario/suite.ts").Suite[];
    };
    const root = new DataRoot(DATA_ROOT);
    const telecom = suites.filter((s) => s.domain === "tau2_telecom");
    assert.ok(telecom.length >= 1);
    let checked = 0;
    for (const suite of telecom) {
      const { scenarios, problems } = await suite.load(root);
      assert.deepEqual(problems, []);
      assert.equal(scenarios.length, 114, suite.id);
      for (const scenario of scenarios) {
        const gold = await suite.gold(root, scenario);
        assert.deepEqual(gold.errors ?? [], [], scenario.name);
        assert.ok((gold.assertions ?? []).length > 0, scenario.name);
        for (const a of gold.assertions ?? []) {
          assert.ok(a.passed, `${scenario.name}: ${a.func_name}`);
        }
        checked++;
      }
    }
    assert.ok(checked >= 228);
  },
});

if (import.meta.main) printHashes();

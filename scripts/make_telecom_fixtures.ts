/**
 * Writes the bundled tau2_telecom fixtures (`fixtures/tau2_telecom/`): a small
 * telecom world of our own (two customers, two lines, a phone) and three tasks in
 * the tau2 format, so both telecom suites (`tau2_telecom` with the manual,
 * `tau2_telecom_workflow` with the workflow) run offline. Everything here is
 * written for callbench; only the file formats are the benchmark's. Each task's
 * reference calls are replayed with callbench's own tools and its state assertions
 * must hold on the result, so the fixture cannot drift from the tools.
 *
 *   deno run --allow-read --allow-write=fixtures/tau2_telecom --allow-env=NODE_ENV \
 *     scripts/make_telecom_fixtures.ts            # write
 *   ... scripts/make_telecom_fixtures.ts --check  # exit 1 if the files on disk differ
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { domain, TELECOM_TODAY } from "../src/domains/tau2_telecom/mod.ts";
import { TelecomDbSchema, TelecomUserDbSchema } from "../src/domains/tau2_telecom/data_model.ts";
import { Environment } from "../src/env/environment.ts";
import type { Db, Side } from "../src/domains/domain.ts";
import { fixtureJson, writeFixtures } from "./_fixtures.ts";

export const FIXTURE_DIR = fileURLToPath(new URL("../fixtures/tau2_telecom/", import.meta.url));

type Obj = Record<string, unknown>;

const MARA = { name: "Mara Lindqvist", phone_number: "555-010-4402" };
const TOMAS = { name: "Tomas Reyes", phone_number: "555-010-7719" };

function bill(id: string, customer: string, month: string, total: number, status: string): Obj {
  return {
    bill_id: id,
    customer_id: customer,
    period_start: `${month}-01`,
    period_end: `${month}-28`,
    issue_date: `${month}-01`,
    total_due: total,
    due_date: `${month}-15`,
    line_items: [{
      description: "Monthly plan",
      amount: total,
      date: `${month}-01`,
      item_type: "Plan Charge",
    }],
    status,
  };
}

/** The agent's records. */
const DB = TelecomDbSchema.parse({
  plans: [
    {
      plan_id: "P_LITE",
      name: "Lite 5 GB",
      data_limit_gb: 5,
      price_per_month: 25,
      data_refueling_price_per_gb: 4,
    },
    {
      plan_id: "P_MAX",
      name: "Max 40 GB",
      data_limit_gb: 40,
      price_per_month: 60,
      data_refueling_price_per_gb: 1.5,
    },
  ],
  customers: [
    {
      customer_id: "C2001",
      full_name: MARA.name,
      date_of_birth: "1988-07-14",
      email: "mara.lindqvist@example.test",
      phone_number: MARA.phone_number,
      address: { street: "12 Birch Lane", city: "Northfield", state: "MN", zip_code: "55057" },
      account_status: "Active",
      payment_methods: [
        { method_type: "Credit Card", account_number_last_4: "4417", expiration_date: "09/2027" },
      ],
      line_ids: ["L3001"],
      bill_ids: ["B5001"],
    },
    {
      customer_id: "C2002",
      full_name: TOMAS.name,
      date_of_birth: "1975-02-03",
      email: "tomas.reyes@example.test",
      phone_number: TOMAS.phone_number,
      address: { street: "80 Harbor Road", city: "Port Ellis", state: "ME", zip_code: "04101" },
      account_status: "Active",
      payment_methods: [
        { method_type: "Debit Card", account_number_last_4: "0932", expiration_date: "03/2026" },
      ],
      line_ids: ["L3002"],
      bill_ids: ["B5002"],
    },
  ],
  lines: [
    {
      line_id: "L3001",
      phone_number: MARA.phone_number,
      status: "Active",
      plan_id: "P_LITE",
      device_id: "D4001",
      data_used_gb: 1.2,
      contract_end_date: "2026-01-31",
    },
    {
      line_id: "L3002",
      phone_number: TOMAS.phone_number,
      status: "Active",
      plan_id: "P_MAX",
      device_id: "D4002",
      data_used_gb: 8.5,
      contract_end_date: "2027-05-31",
    },
  ],
  bills: [
    bill("B5001", "C2001", "2025-01", 25, "Paid"),
    bill("B5002", "C2002", "2025-01", 60, "Paid"),
  ],
  devices: [
    { device_id: "D4001", device_type: "phone", model: "Orbit S3", is_esim_capable: true },
    { device_id: "D4002", device_type: "phone", model: "Orbit S1", is_esim_capable: false },
  ],
});

/** The caller's phone before a task sets it up. */
const USER_DB = TelecomUserDbSchema.parse({});

const user = (func_name: string, args: Obj = {}) => ({
  env_type: "user",
  func_name,
  arguments: args,
});
const agent = (func_name: string, args: Obj = {}) => ({
  env_type: "assistant",
  func_name,
  arguments: args,
});
const call = (requestor: "user" | "assistant", name: string, args: Obj = {}, n = 0) => ({
  action_id: `${name}_${n}`,
  requestor,
  name,
  arguments: args,
  info: null,
  compare_args: null,
});
const check = (env_type: "user" | "assistant", func_name: string, args: Obj) => ({
  env_type,
  func_name,
  arguments: args,
  assert_value: true,
  message: null,
});

interface Task {
  id: string;
  persona: string;
  purpose: string;
  instructions: Obj;
  init: Obj[];
  actions: Obj[];
  assertions: Obj[];
}

const TASKS: Task[] = [
  {
    id: "[service_issue]airplane_mode_on[PERSONA:None]",
    persona: "steady_caller",
    purpose: "No service because airplane mode is on.",
    instructions: {
      domain: "telecom",
      reason_for_call: "Your phone shows no service since this morning and you cannot make calls.",
      known_info: `You are ${MARA.name} and your phone number is ${MARA.phone_number}.`,
      unknown_info: null,
      task_instructions:
        "Do what the agent asks on your phone and report what the phone shows. The issue is fixed once the status bar shows a signal.",
    },
    init: [user("set_user_info", MARA), user("turn_airplane_mode_on")],
    actions: [call("user", "toggle_airplane_mode")],
    assertions: [check("user", "assert_service_status", { expected_status: "connected" })],
  },
  {
    id: "[mobile_data_issue]data_usage_exceeded[PERSONA:Easy]",
    persona: "patient_caller",
    purpose: "Mobile data stopped: the plan's data is used up; one gigabyte is added.",
    instructions: {
      domain: "telecom",
      reason_for_call:
        "Mobile data stopped working on your phone a few days before the month ends.",
      known_info: `You are ${MARA.name} and your phone number is ${MARA.phone_number}.`,
      unknown_info: null,
      task_instructions:
        "You accept adding 1 GB of data if the agent offers it, but you do not want to change plans.",
    },
    init: [
      user("set_user_info", MARA),
      agent("set_data_usage", { customer_id: "C2001", line_id: "L3001", data_used_gb: 5.3 }),
    ],
    actions: [
      call("assistant", "refuel_data", { customer_id: "C2001", line_id: "L3001", gb_amount: 1.0 }),
    ],
    assertions: [
      check("user", "assert_mobile_data_status", { expected_status: true }),
      check("assistant", "assert_data_refueling_amount", {
        customer_id: "C2001",
        line_id: "L3001",
        expected_amount: 1.0,
      }),
    ],
  },
  {
    id: "[service_issue]overdue_bill_suspension[PERSONA:None]",
    persona: "steady_caller",
    purpose: "The line is suspended for an overdue bill; the caller pays and the line resumes.",
    instructions: {
      domain: "telecom",
      reason_for_call: "Your phone has had no service for two days.",
      known_info: `You are ${TOMAS.name} and your phone number is ${TOMAS.phone_number}.`,
      unknown_info: null,
      task_instructions:
        "You are willing to pay what you owe today. Restart the phone if the agent asks.",
    },
    init: [
      user("set_user_info", TOMAS),
      agent("suspend_line_for_overdue_bill", {
        customer_id: "C2002",
        line_id: "L3002",
        new_bill_id: "B5900",
        contract_ended: false,
      }),
      user("simulate_network_search"),
    ],
    actions: [
      call("assistant", "send_payment_request", { customer_id: "C2002", bill_id: "B5900" }, 0),
      call("user", "make_payment", {}, 1),
      call("assistant", "resume_line", { customer_id: "C2002", line_id: "L3002" }, 2),
      call("user", "reboot_device", {}, 3),
    ],
    assertions: [
      check("user", "assert_service_status", { expected_status: "connected" }),
      check("assistant", "assert_no_overdue_bill", { overdue_bill_id: "B5900" }),
    ],
  },
];

const MAIN_POLICY = `# Telecom support policy (callbench fixture)

You are a phone support agent for a mobile carrier. Today is ${TELECOM_TODAY}.

- Identify the customer first: by the phone number they call about, by customer id, or by
  full name and date of birth. Do not act on an account before it is identified.
- Explain what you are about to change and get the customer's yes before any change.
- Data refuels cost the plan's refuelling price per GB and are added to the current bill.
- A line suspended for an overdue bill resumes once that bill is paid: send the payment
  request, let the customer pay on their phone, then resume the line.
- Transfer to a human agent only when nothing in this policy or the manual helps.
`;

const MANUAL = `# Technical support manual (callbench fixture)

Work from the phone's status bar: ask the customer to read it out or check it.

## No service
1. Airplane mode on: ask the customer to turn it off.
2. Line suspended: check the account; an overdue bill must be paid before the line resumes.
3. After any change, ask the customer to restart the phone if service does not return.

## Mobile data not working
1. Mobile data switched off: ask the customer to turn it on.
2. Data allowance used up (data used at or above the plan's limit): offer a refuel of
   1 or 2 GB, or a plan change; do what the customer chooses.
`;

const WORKFLOW = `# Technical support workflow (callbench fixture)

Follow the steps in order and stop as soon as the issue is fixed.

1. Ask what the status bar shows.
2. If it shows airplane mode, have the customer turn airplane mode off. Fixed? Stop.
3. Look the line up. If it is suspended for an overdue bill: send the payment request,
   wait for the customer to pay, resume the line, have the customer restart. Stop.
4. If mobile data is off, have the customer turn it on. Fixed? Stop.
5. If the data allowance is used up, offer a 1 GB refuel and apply it if accepted. Stop.
6. Otherwise transfer to a human agent.
`;

/** Replays a task's calls with callbench's tools; throws unless every assertion holds. */
function _replayed(task: Task): void {
  const env = new Environment(domain, {
    db: structuredClone(DB) as Db,
    user_db: structuredClone(USER_DB) as Db,
  }, { today: TELECOM_TODAY, seed: "fixture" });
  const side = (t: unknown): Side => t === "user" ? "user" : "agent";
  const init = env.initialize(task.init.map((a) => ({
    side: side(a.env_type),
    func_name: a.func_name as string,
    arguments: a.arguments as Obj,
  })));
  if (!init.success) throw new Error(`${task.id}: init failed: ${JSON.stringify(init.errors)}`);
  env.sync();
  for (const a of task.actions) {
    const r = env.call(side(a.requestor), a.name as string, a.arguments as Obj);
    if (!r.ok) throw new Error(`${task.id}: ${a.name} failed: ${JSON.stringify(r.result)}`);
    if (!r.record) env.sync();
  }
  const verdicts = env.evaluate(task.assertions.map((a) => ({
    side: side(a.env_type),
    func_name: a.func_name as string,
    arguments: a.arguments as Obj,
    assert_value: a.assert_value,
  })));
  const failed = verdicts.filter((v) => !v.passed);
  if (failed.length > 0) throw new Error(`${task.id}: assertions fail: ${JSON.stringify(failed)}`);
}

/** Every fixture file, name -> text. */
export function telecomFixtureFiles(): Record<string, string> {
  for (const t of TASKS) _replayed(t);
  const json = fixtureJson;
  const tasks = TASKS.map((t) => ({
    id: t.id,
    description: { purpose: t.purpose, relevant_policies: null, notes: null },
    user_scenario: { persona: null, instructions: t.instructions },
    initial_state: {
      initialization_data: null,
      initialization_actions: t.init,
      message_history: null,
    },
    evaluation_criteria: {
      actions: t.actions,
      env_assertions: t.assertions,
      communicate_info: [],
      nl_assertions: null,
    },
  }));
  const ids = TASKS.map((t) => t.id);
  return {
    "db.json": json(DB),
    "user_db.json": json(USER_DB),
    "tasks.json": json(tasks),
    "tasks_voice.json": json({
      base_seed: 11,
      configs: Object.fromEntries(
        TASKS.map((t) => [t.id, { configs: { control: { persona_name: t.persona } } }]),
      ),
    }),
    "split_tasks.json": json({ base: ids, test: ids }),
    "main_policy.md": MAIN_POLICY,
    "tech_support_manual.md": MANUAL,
    "tech_support_workflow.md": WORKFLOW,
  };
}

if (import.meta.main) writeFixtures(FIXTURE_DIR, telecomFixtureFiles());

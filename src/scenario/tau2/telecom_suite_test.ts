import { deepEqual, equal, ok } from "node:assert/strict";
import { TELECOM_TODAY, TelecomUserDbSchema } from "../../domains/tau2_telecom/mod.ts";
import { suites, TAU2_TELECOM_TODAY } from "./suites.ts";
import { MemoryDataRoot } from "./_testing.ts";

const manual = suites.find((s) => s.id === "tau2_telecom")!;
const workflow = suites.find((s) => s.id === "tau2_telecom_workflow")!;

const AIRPLANE = "[service_issue]airplane_mode_on[PERSONA:None]";
const AIRPLANE_HARD = "[service_issue]airplane_mode_on[PERSONA:Hard]";

function task(id: string, extraActions: unknown[] = []) {
  return {
    id,
    user_scenario: {
      instructions: {
        task_instructions: "You are calm.",
        reason_for_call: "You mobile phone shows no service.",
        known_info: "You are Ola Berg with phone number 555-000-1111.",
        unknown_info: null,
      },
    },
    initial_state: {
      initialization_actions: [
        {
          env_type: "user",
          func_name: "set_user_info",
          arguments: { name: "Ola Berg", phone_number: "555-000-1111" },
        },
        { env_type: "user", func_name: "turn_airplane_mode_on", arguments: {} },
      ],
    },
    evaluation_criteria: {
      actions: [
        {
          action_id: "a0",
          requestor: "user",
          name: "toggle_airplane_mode",
          arguments: {},
          compare_args: null,
        },
        ...extraActions,
      ],
      env_assertions: [{
        env_type: "user",
        func_name: "assert_service_status",
        arguments: { expected_status: "connected" },
        assert_value: true,
        message: null,
      }],
      nl_assertions: null,
    },
  };
}

function telecomRoot(): MemoryDataRoot {
  const tasks = [
    task(AIRPLANE_HARD, [{
      requestor: "assistant",
      name: "transfer_to_human_agents",
      arguments: { summary: "x" },
    }]),
    task(AIRPLANE),
  ];
  return new MemoryDataRoot({
    "tau2_telecom/db.json": JSON.stringify({
      plans: [],
      customers: [],
      lines: [],
      bills: [],
      devices: [],
    }),
    "tau2_telecom/user_db.json": JSON.stringify(TelecomUserDbSchema.parse({})),
    "tau2_telecom/tasks.json": JSON.stringify(tasks),
    "tau2_telecom/tasks_voice.json": JSON.stringify({
      configs: { [AIRPLANE]: {}, [AIRPLANE_HARD]: {} },
    }),
    "tau2_telecom/split_tasks.json": JSON.stringify({ base: [AIRPLANE, AIRPLANE_HARD] }),
    "tau2_telecom/main_policy.md": "# Main policy\n",
    "tau2_telecom/tech_support_manual.md": "# The manual\n",
    "tau2_telecom/tech_support_workflow.md": "# The workflow\n",
  });
}

Deno.test("telecom scenarios are named from the task id and sorted by it", async () => {
  const { scenarios, problems } = await manual.load(telecomRoot());
  deepEqual(problems, []);
  deepEqual(scenarios.map((s) => s.name), [
    "tau2_telecom__service_issue__airplane_mode_on__hard",
    "tau2_telecom__service_issue__airplane_mode_on",
  ]);
});

Deno.test("a telecom scenario has two worlds, sides from env_type and requestor, and its date", async () => {
  const [hard] = (await manual.load(telecomRoot())).scenarios;
  equal(hard!.today, TAU2_TELECOM_TODAY);
  equal(TAU2_TELECOM_TODAY, TELECOM_TODAY);
  deepEqual(hard!.world, {
    db: { path: "tau2_telecom/db.json" },
    user_db: { path: "tau2_telecom/user_db.json" },
  });
  deepEqual(hard!.initialization_actions.map((a) => [a.side, a.func_name]), [
    ["user", "set_user_info"],
    ["user", "turn_airplane_mode_on"],
  ]);
  deepEqual(hard!.expect.reference_actions?.map((a) => [a.side, a.name, a.compare_args]), [
    ["user", "toggle_airplane_mode", null],
    ["agent", "transfer_to_human_agents", undefined],
  ]);
  deepEqual(hard!.expect.db_state_assertions, [{
    side: "user",
    func_name: "assert_service_status",
    arguments: { expected_status: "connected" },
    assert_value: true,
    message: null,
  }]);
  deepEqual(hard!.success_signals, ["db_state_assertion", "clean_exit"]);
  equal(hard!.suite, "tau2_telecom");
});

Deno.test("a telecom caller has the phone tools; the agent has only its own", async () => {
  const [s] = (await manual.load(telecomRoot())).scenarios;
  equal(s!.user.tools.length, 30);
  ok(s!.user.tools.includes("toggle_airplane_mode"));
  ok(!s!.agent.tools.includes("toggle_airplane_mode"));
  ok(s!.agent.tools.includes("enable_roaming") && s!.agent.tools.includes("end_conversation"));
  ok(s!.user.prompt.includes("Step 1: "));
  equal(s!.user.known_info["phone number"], "555-000-1111");
  equal(s!.user.opening, "Hi. My mobile phone shows no service.");
});

Deno.test("the workflow suite uses the workflow policy and its own names", async () => {
  const root = telecomRoot();
  const [m] = (await manual.load(root)).scenarios;
  const [w] = (await workflow.load(root)).scenarios;
  ok(
    m!.agent.prompt.startsWith(
      "# Main policy\n\n---\n\n# The manual\n\n## Additional Notes to Follow",
    ),
  );
  ok(w!.agent.prompt.startsWith("# Main policy\n\n---\n\n# The workflow\n\n"));
  equal(w!.name, "tau2_telecom_workflow__service_issue__airplane_mode_on__hard");
  equal(w!.domain, "tau2_telecom");
  equal(w!.suite, "tau2_telecom_workflow");
});

Deno.test("telecom gold replays both sides and its assertions pass on the gold state", async () => {
  const root = telecomRoot();
  const [hard, plain] = (await manual.load(root)).scenarios;
  const gold = await manual.gold(root, hard!);
  deepEqual(gold.errors, undefined);
  deepEqual(gold.reference_records?.map((r) => [r.side, r.name]), [
    ["user", "toggle_airplane_mode"],
    ["agent", "transfer_to_human_agents"],
  ]);
  deepEqual(gold.assertions?.map((a) => a.passed), [true]);
  equal(typeof gold.expected_user_db_sha256, "string");
  equal(hard!.expect.user_db_sha256, gold.expected_user_db_sha256);
  // The transfer changes no world: both tasks end in the same state.
  equal(plain!.expect.db_sha256, hard!.expect.db_sha256);
  equal(plain!.expect.user_db_sha256, hard!.expect.user_db_sha256);
});

Deno.test("a telecom task naming an unknown predicate or init function is a located problem", async () => {
  const root = telecomRoot();
  const tasks = JSON.parse(root.files.get("tau2_telecom/tasks.json")!);
  tasks[0].evaluation_criteria.env_assertions[0].func_name = "assert_service_ok";
  tasks[1].initial_state.initialization_actions[1].env_type = "assistant";
  root.files.set("tau2_telecom/tasks.json", JSON.stringify(tasks));
  const { scenarios, problems } = await manual.load(root);
  deepEqual(scenarios, []);
  deepEqual(problems.map((p) => [p.where, p.field]), [
    [
      "tau2_telecom__service_issue__airplane_mode_on__hard",
      "evaluation_criteria.env_assertions[0].func_name",
    ],
    [
      "tau2_telecom__service_issue__airplane_mode_on",
      "initial_state.initialization_actions[1].func_name",
    ],
  ]);
  ok(problems[1]!.message.includes("agent-side initialization function"));
});

Deno.test("a telecom task id not of the [category]issues[PERSONA:p] form is a problem", async () => {
  const root = telecomRoot();
  const tasks = JSON.parse(root.files.get("tau2_telecom/tasks.json")!);
  tasks[0].id = "telecom-1";
  root.files.set("tau2_telecom/tasks.json", JSON.stringify(tasks));
  root.files.set(
    "tau2_telecom/tasks_voice.json",
    JSON.stringify({ configs: { "telecom-1": {}, [AIRPLANE]: {} } }),
  );
  root.files.set(
    "tau2_telecom/split_tasks.json",
    JSON.stringify({ base: ["telecom-1", AIRPLANE] }),
  );
  const { scenarios, problems } = await manual.load(root);
  deepEqual(scenarios.map((s) => s.name), ["tau2_telecom__service_issue__airplane_mode_on"]);
  deepEqual(problems.map((p) => [p.where, p.field]), [['task "telecom-1"', "id"]]);
});

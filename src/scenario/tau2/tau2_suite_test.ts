import { deepEqual, equal, ok } from "node:assert/strict";
import { BUNDLED_DATA_ROOT, DataRoot } from "../data_root.ts";
import { ScenarioSchema } from "../scenario.ts";
import { suites } from "./suites.ts";
import { replayGold } from "./gold.ts";
import { retailFixture } from "./_testing.ts";

const retail = suites.find((s) => s.id === "tau2_retail")!;
const bundled = new DataRoot(BUNDLED_DATA_ROOT);

Deno.test("the tau2 suites are airline, retail, telecom and telecom workflow", () => {
  deepEqual(suites.map((s) => [s.id, s.domain]), [
    ["tau2_airline", "tau2_airline"],
    ["tau2_retail", "tau2_retail"],
    ["tau2_telecom", "tau2_telecom"],
    ["tau2_telecom_workflow", "tau2_telecom"],
  ]);
});

Deno.test("the bundled data root holds every tau2 suite", () => {
  deepEqual(suites.map((s) => s.present(bundled)), [true, true, true, true]);
});

Deno.test("the retail fixture loads its three base tasks in numeric order", async () => {
  const { scenarios, problems } = await retail.load(bundled);
  deepEqual(problems, []);
  deepEqual(scenarios.map((s) => s.name), ["tau2_retail__0", "tau2_retail__1", "tau2_retail__2"]);
  for (const s of scenarios) {
    equal(ScenarioSchema.safeParse(s).success, true);
    equal(s.domain, "tau2_retail");
    equal(s.source, `tau2:${s.name.split("__")[1]}`);
    equal(s.today, "2024-05-15");
    deepEqual(s.world, { db: { path: "tau2_retail/db.json" } });
    equal(s.agent.tools.length, 17);
    deepEqual(s.user.tools, []);
  }
});

Deno.test("a retail scenario scores NL assertions only when its task has some", async () => {
  const { scenarios } = await retail.load(bundled);
  deepEqual(scenarios.map((s) => s.success_signals), [
    ["db_state_match", "nl_assertion", "clean_exit"],
    ["db_state_match", "clean_exit"],
    ["db_state_match", "clean_exit"],
  ]);
  deepEqual(scenarios[0]!.expect.nl_assertions, [
    "The agent tells the caller that the white lamp costs 2.25 dollars more.",
  ]);
});

Deno.test("a retail scenario carries its gold hash and reference actions", async () => {
  const { scenarios } = await retail.load(bundled);
  const first = scenarios[0]!;
  const gold = await replayGold(bundled, first);
  equal(first.expect.db_sha256, gold.expected_db_sha256);
  equal(first.expect.reference_actions?.length, 4);
  deepEqual(first.expect.reference_actions?.[3], {
    side: "agent",
    name: "exchange_delivered_order_items",
    arguments: {
      order_id: "#W5100001",
      item_ids: ["7100000001"],
      new_item_ids: ["7100000002"],
      payment_method_id: "credit_card_3105521",
    },
  });
  // Each scenario's end state differs from the others'.
  equal(new Set(scenarios.map((s) => s.expect.db_sha256)).size, 3);
});

Deno.test("a retail agent prompt is the policy verbatim, then the notes", async () => {
  const { scenarios } = await retail.load(bundled);
  const policy = Deno.readTextFileSync(`${BUNDLED_DATA_ROOT}tau2_retail/policy.md`);
  ok(scenarios[0]!.agent.prompt.startsWith(policy));
  ok(scenarios[0]!.agent.prompt.includes("## Additional Notes to Follow"));
});

Deno.test("a retail caller gets a prompt, an opening line and the facts it knows", async () => {
  const { scenarios } = await retail.load(bundled);
  const [first, second] = scenarios;
  ok(
    first!.user.prompt.includes(
      "### Things you don't know\n\nYou do not remember your email address.",
    ),
  );
  equal(
    first!.user.opening,
    "Hi. I received my order #W5100001 and want to swap the black desk lamp for the white one.",
  );
  deepEqual(first!.user.known_info, {
    name: "Iris Okafor",
    "first name": "Iris",
    "last name": "Okafor",
    "zip code": "55802",
    "order id": "#W5100001",
  });
  equal(second!.user.known_info.email, "tvidal@example.com");
  deepEqual(first!.tags, ["persona:calm_caller"]);
});

Deno.test("gold() answers from the load for a loaded scenario", async () => {
  const { scenarios } = await retail.load(bundled);
  const a = await retail.gold(bundled, scenarios[2]!);
  const b = await retail.gold(bundled, scenarios[2]!);
  equal(a, b);
  deepEqual(a.errors, [{
    index: 0,
    name: "find_user_id_by_name_zip",
    result: { status: "error", error_type: "not_found", message: "User not found" },
  }]);
});

Deno.test("a task naming an unknown tool is a located problem and the others still load", async () => {
  const root = retailFixture((tasks) => {
    const actions = (tasks[1]!.evaluation_criteria as { actions: { name: string }[] }).actions;
    actions[3]!.name = "cancel_pending_ordr";
  });
  const { scenarios, problems } = await retail.load(root);
  deepEqual(scenarios.map((s) => s.name), ["tau2_retail__0", "tau2_retail__2"]);
  equal(problems.length, 1);
  const [problem] = problems;
  equal(problem!.where, "tau2_retail__1");
  equal(problem!.field, "evaluation_criteria.actions[3].name");
  equal(problem!.file, "/memory/tau2_retail/tasks.json");
  equal(typeof problem!.line, "number");
  ok(problem!.message.includes('"cancel_pending_ordr"'));
  equal(problem!.hint, 'did you mean "cancel_pending_order"?');
});

Deno.test("a retail task with a state assertion is a problem: retail has no predicates", async () => {
  const root = retailFixture((tasks) => {
    (tasks[0]!.evaluation_criteria as Record<string, unknown>).env_assertions = [
      { env_type: "assistant", func_name: "assert_refunded", arguments: {}, assert_value: true },
    ];
  });
  const { problems } = await retail.load(root);
  equal(problems[0]!.field, "evaluation_criteria.env_assertions[0].func_name");
});

Deno.test("a missing policy file is one problem for the suite", async () => {
  const root = retailFixture();
  root.files.delete("tau2_retail/policy.md");
  const { scenarios, problems } = await retail.load(root);
  deepEqual(scenarios, []);
  equal(problems.length, 1);
  equal(problems[0]!.file, "/memory/tau2_retail/policy.md");
});

Deno.test("a second task with the same id is a problem; the first one loads", async () => {
  const root = retailFixture((tasks) => {
    tasks.push({ ...tasks[1]!, description: { purpose: "a copy" } });
  });
  const { scenarios, problems } = await retail.load(root);
  deepEqual(scenarios.map((s) => s.name), ["tau2_retail__0", "tau2_retail__1", "tau2_retail__2"]);
  deepEqual(problems.map((p) => [p.where, p.field]), [["tau2_retail__1", "id"]]);
});

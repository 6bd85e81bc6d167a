import assert from "node:assert/strict";
import { join } from "node:path";
import { BUNDLED_DATA_ROOT, DataRoot } from "../data_root.ts";
import { openEnvironment } from "../open_environment.ts";
import { DATASET_FILE, EVA_AGENT_TOOLS, suite } from "./suite.ts";
import { TRACE_FILE } from "./gold_trace.ts";

const bundled = new DataRoot(BUNDLED_DATA_ROOT);

/** A writable copy of the bundled eva fixtures, changed by `edit`. */
async function tempRoot(
  edit: (dir: string, lines: string[]) => string[] | void,
): Promise<{ root: DataRoot; dir: string }> {
  const dir = await Deno.makeTempDir({ prefix: "callbench-eva-" });
  await Deno.mkdir(join(dir, "eva_airline"));
  for await (const e of Deno.readDir(join(BUNDLED_DATA_ROOT, "eva_airline"))) {
    await Deno.copyFile(
      join(BUNDLED_DATA_ROOT, "eva_airline", e.name),
      join(dir, "eva_airline", e.name),
    );
  }
  const file = join(dir, DATASET_FILE);
  const lines = (await Deno.readTextFile(file)).trimEnd().split("\n");
  const changed = edit(dir, lines) ?? lines;
  await Deno.writeTextFile(file, changed.join("\n") + "\n");
  return { root: new DataRoot(dir), dir };
}

function withId(line: string, id: string): string {
  const record = JSON.parse(line);
  record.id = id;
  return JSON.stringify(record);
}

Deno.test("the eva suite loads the bundled fixtures as complete scenarios", async () => {
  assert.equal(suite.present(bundled), true);
  const { scenarios, problems } = await suite.load(bundled);
  assert.deepEqual(problems, []);
  assert.deepEqual(scenarios.map((s) => s.name), [
    "eva_airline__1_4_1",
    "eva_airline__2_5_1",
    "eva_airline__5_3_1",
    "eva_airline__7_5_1",
  ]);
  const s = scenarios[0]!;
  assert.equal(s.domain, "eva_airline");
  assert.equal(s.source, "eva:1.4.1");
  assert.equal(s.today, "2026-05-04");
  assert.equal(s.max_duration_s, 900);
  assert.deepEqual(s.success_signals, ["db_state_match", "clean_exit"]);
  assert.deepEqual(s.world, { db: { path: "eva_airline/1.4.1.json" } });
  assert.deepEqual(s.agent.tools, EVA_AGENT_TOOLS);
  assert.equal(s.agent.tools.length, 16);
  assert.equal(s.user.opening, "Hi, I'd like to move my flight to Seattle to a different day.");
  assert.equal(s.user.known_info["confirmation number"], "H7KD2Q");
  assert.equal(s.user.known_info["last name"], "Quintero");
  assert.equal(s.user.known_info["seat preference"], "window, then aisle, then middle");
  assert.match(
    s.user.prompt,
    /^You are an airline passenger calling SkyWay Airlines\. Your name is Marisol Quintero\./,
  );
  assert.match(s.user.prompt, /- confirmation number: H7KD2Q/);
  assert.match(s.user.prompt, /say it as: H, seven, K, D, two, Q\./);
  assert.deepEqual(s.expect.reference_actions?.[0], {
    side: "agent",
    name: "get_reservation",
    arguments: { confirmation_number: "H7KD2Q", last_name: "Quintero" },
  });
});

Deno.test("the eva agent prompt is the policy verbatim, then our notes with today's date", async () => {
  const { scenarios } = await suite.load(bundled);
  const yaml = Deno.readTextFileSync(join(BUNDLED_DATA_ROOT, "eva_airline/airline_agent.yaml"));
  const role = /^role: (.*)$/m.exec(yaml)![1]!;
  const prompt = scenarios[0]!.agent.prompt;
  assert.ok(prompt.startsWith(`${role}\n\n## Before anything else\n`));
  const notes = prompt.slice(prompt.indexOf("\n\n## Additional Notes to Follow\n\n"));
  assert.match(notes, /- Today is 2026-05-04\./);
  for (
    const needle of [
      /Markdown/,
      /one character at a time/,
      /Journey ids/,
      /end_conversation/,
      /actually done/,
    ]
  ) {
    assert.match(notes, needle);
  }
});

Deno.test("each eva scenario's expected hash is where its reference actions lead", async () => {
  const { scenarios } = await suite.load(bundled);
  // Every bundled scenario is checked: an empty or partial load must not pass.
  assert.deepEqual(scenarios.map((s) => s.name), [
    "eva_airline__1_4_1",
    "eva_airline__2_5_1",
    "eva_airline__5_3_1",
    "eva_airline__7_5_1",
  ]);
  let replayed = 0;
  for (const s of scenarios) {
    assert.match(s.expect.db_sha256 ?? "", /^[0-9a-f]{64}$/, s.name);
    const { env } = await openEnvironment(bundled, s, "seed");
    // Only the transfer scenario's goal is its start: a transfer changes no table.
    const startsAtGoal = env.hashes().db_sha256 === s.expect.db_sha256;
    assert.equal(startsAtGoal, s.name === "eva_airline__7_5_1", s.name);
    for (const a of s.expect.reference_actions ?? []) {
      assert.ok(env.call("agent", a.name, a.arguments).ok);
      replayed++;
    }
    assert.equal(env.hashes().db_sha256, s.expect.db_sha256, s.name);
    const gold = await suite.gold(bundled, s);
    assert.deepEqual(gold, {
      name: s.name,
      domain: "eva_airline",
      expected_db_sha256: s.expect.db_sha256,
      reference_actions: s.expect.reference_actions,
      reference_records: env.actions,
    });
  }
  assert.ok(replayed > 0, "no reference action was replayed");
});

Deno.test("eva scenarios come in the reference's order: seeds first, then by numeric id", async () => {
  const { root, dir } = await tempRoot((d, lines) => {
    const ids = ["7.2.1", "1.10.1", "1.2.1", "1.1.2"];
    for (const id of ids) {
      Deno.copyFileSync(join(d, "eva_airline/1.4.1.json"), join(d, `eva_airline/${id}.json`));
    }
    return ids.map((id) => withId(lines[0]!, id));
  });
  try {
    const { scenarios, problems } = await suite.load(root);
    assert.deepEqual(problems, []);
    assert.deepEqual(scenarios.map((s) => s.name), [
      "eva_airline__voluntary_date_change",
      "eva_airline__escalation_edge_case",
      "eva_airline__1_2_1",
      "eva_airline__1_10_1",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a corrupt dataset line is a located problem and the other lines still load", async () => {
  const { root, dir } = await tempRoot((d, lines) => {
    const noGoal = JSON.parse(lines[2]!);
    delete noGoal.user_goal.starting_utterance;
    Deno.removeSync(join(d, "eva_airline/7.5.1.json"));
    return [
      lines[0]!,
      '{"id": "9.9.9", "user_goal": ',
      JSON.stringify(noGoal),
      lines[3]!,
      lines[1]!,
      lines[1]!,
    ];
  });
  try {
    const { scenarios, problems } = await suite.load(root);
    assert.deepEqual(scenarios.map((s) => s.name), ["eva_airline__1_4_1", "eva_airline__2_5_1"]);
    const file = root.resolve(DATASET_FILE);
    const summary = problems.map((p) => [p.file, p.line ?? null, p.field ?? null, p.where ?? null]);
    assert.deepEqual(summary, [
      [file, 2, null, null],
      [file, 3, "user_goal.starting_utterance", "eva 5.3.1"],
      [file, 6, "id", "eva 2.5.1"],
      [root.resolve("eva_airline/7.5.1.json"), null, null, "eva_airline__7_5_1"],
    ]);
    assert.match(problems[0]!.message, /^invalid JSON/);
    assert.match(problems[2]!.message, /^duplicate id \(first on line 5\)/);
    assert.equal(problems[3]!.message, "world file not found");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("gold traces, when the data root has them, give the reference actions with names filled in", async () => {
  const { root, dir } = await tempRoot((d) => {
    Deno.mkdirSync(join(d, "eva_airline_traces"));
    const trace = [{
      id: "1.4.1",
      ground_truth: {
        expected_trace: {
          trace: [
            { event_type: "user_utterance", utterance: "hi" },
            {
              event_type: "tool_call",
              tool_name: "get_reservation",
              params: { confirmation_number: "H7KD2Q", last_name: "<LAST_NAME_ROMANIZED>" },
            },
            {
              event_type: "tool_response",
              tool_name: "get_reservation",
              status: "success",
              response: { status: "success" },
            },
          ],
        },
      },
      culture_overrides: {
        en: { first_name: "Marisol", last_name: "Quintero", phone: "+1-555-0100" },
      },
    }];
    Deno.writeTextFileSync(join(d, TRACE_FILE), JSON.stringify(trace));
  });
  try {
    const { scenarios, problems } = await suite.load(root);
    assert.deepEqual(problems, []);
    // The trace wins over the record's gold_calls; records without a trace keep theirs.
    assert.deepEqual(scenarios[0]!.expect.reference_actions, [{
      side: "agent",
      name: "get_reservation",
      arguments: { confirmation_number: "H7KD2Q", last_name: "Quintero" },
    }]);
    assert.equal(scenarios[1]!.expect.reference_actions?.length, 7);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a bad agent configuration is one located problem and loads no scenario", async () => {
  const { root, dir } = await tempRoot((d) => {
    Deno.writeTextFileSync(
      join(d, "eva_airline/airline_agent.yaml"),
      "role: [unclosed\ninstructions: x\n",
    );
  });
  try {
    const { scenarios, problems } = await suite.load(root);
    assert.deepEqual(scenarios, []);
    assert.equal(problems.length, 1);
    assert.equal(problems[0]!.file, root.resolve("eva_airline/airline_agent.yaml"));
    assert.match(problems[0]!.message, /^invalid YAML/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a named seed is also selected by its numbered name (eva_airline__1_1_2)", async () => {
  const { selectScenarios } = await import("../suites.ts");
  const { root, dir } = await tempRoot((d, lines) => {
    const ids = ["1.1.2", "2.1.1", "3.1.3", "5.1.1", "7.2.1"];
    for (const id of ids) {
      Deno.copyFileSync(join(d, "eva_airline/1.4.1.json"), join(d, `eva_airline/${id}.json`));
    }
    return ids.map((id) => withId(lines[0]!, id));
  });
  try {
    const { scenarios } = await selectScenarios(root, {
      scenarios: [
        "eva_airline__1_1_2",
        "eva_airline__2_1_1",
        "eva_airline__3_1_3",
        "eva_airline__5_1_1",
        "eva_airline__7_2_1",
        "eva_airline__voluntary_date_change",
      ],
    });
    assert.deepEqual(scenarios.map((s) => s.name), [
      "eva_airline__voluntary_date_change",
      "eva_airline__irrops_cancellation",
      "eva_airline__missed_flight_standby",
      "eva_airline__cancellation_refund",
      "eva_airline__escalation_edge_case",
      "eva_airline__voluntary_date_change",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

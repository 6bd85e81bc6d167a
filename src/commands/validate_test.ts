import assert from "node:assert/strict";
import { join } from "node:path";
import { run } from "../../cli.ts";
import { memoryIo } from "../cli/io.ts";

const FLOWS = new URL("../../scenarios/flows/", import.meta.url).pathname;

/** `validate [args] FILE...` on `files` written to a temporary folder; stderr without the folder. */
async function validateWith(args: string[], files: Record<string, string>) {
  const dir = await Deno.makeTempDir();
  try {
    const paths = [];
    for (const [name, text] of Object.entries(files)) {
      await Deno.writeTextFile(join(dir, name), text);
      paths.push(join(dir, name));
    }
    const io = memoryIo();
    const code = await run(["validate", ...args, ...paths], io);
    const lines = io.stderr.flatMap((l) => l.split("\n")).map((l) => l.replaceAll(dir + "/", ""));
    return { code, stdout: io.stdout, stderr: lines };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

function validate(files: Record<string, string>) {
  return validateWith([], files);
}

Deno.test("validate accepts the bundled flow files and prints nothing on stdout", async () => {
  const io = memoryIo();
  const code = await run(["validate", FLOWS], io);
  assert.equal(code, 0, io.stderr.join("\n"));
  assert.deepEqual(io.stdout, []);
  assert.deepEqual(io.stderr, ["7 scenarios valid"]);
});

const FLOW = `nodes:
  menu:
    say: Press 1.
    routes:
      - { match: "1", to: dsk }
    timeout: { after: 30s, to: menu }
  desk:
    say: Desk.
  spare:
    say: Nobody comes here.
    then: livekit/hangup
scenarios:
  - label: one
    start: menu
`;

Deno.test("validate exits 2 with every error located, one per line, and warnings too", async () => {
  const r = await validate({ "group.yaml": FLOW });
  assert.equal(r.code, 2);
  assert.deepEqual(r.stderr, [
    'warning: group.yaml:7: node "desk": no scenario\'s start reaches this node',
    'warning: group.yaml:9: node "spare": no scenario\'s start reaches this node',
    'warning: group.yaml:13: scenario "one": nothing scores this scenario: give it "expect" or "agent_expectations"',
    'group.yaml:5: node "menu": field "routes[0].to": unknown node "dsk" (did you mean "desk"?)',
    'group.yaml:6: node "menu": field "timeout.after": "after" must be at most 20 s, got "30s"',
    'group.yaml:7: node "desk": field "say": a "say"-only node needs a way out: "then", "routes" or "timeout"',
  ]);
});

Deno.test("validate explains YAML traps in flow files", async () => {
  const trap = FLOW.replace('{ match: "1", to: dsk }', "{ match: #, to: desk }");
  const dup = FLOW.replace(
    "    say: Desk.\n",
    "    say: Desk.\n    say: Again.\n    then: livekit/hangup\n",
  );
  const r = await validate({ "trap.yaml": trap, "dup.yaml": dup });
  assert.equal(r.code, 2);
  assert.ok(
    r.stderr.some((l) => l.startsWith('trap.yaml:5: field "match": unquoted # in "match"')),
    r.stderr.join("\n"),
  );
  assert.ok(
    r.stderr.includes(
      'dup.yaml:9: node "desk": field "say": duplicate key "say" (first at line 8)',
    ),
    r.stderr.join("\n"),
  );
});

Deno.test("validate needs a file", async () => {
  const io = memoryIo();
  assert.equal(await run(["validate"], io), 2);
  assert.match(io.stderr[0]!, /at least one file/);
});

const RETAIL = `name: mine__one
domain: tau2_retail
world:
  db: { path: tau2_retail/db.json }
agent:
  prompt: Help the caller.
  tools: [end_conversation, get_order_details]
expect:
  db_sha256: ${"a".repeat(64)}
success_signals: [db_state_match, clean_exit]
`;

Deno.test("validate: a day that does not exist is refused", async () => {
  const r = await validate({ "a.yaml": RETAIL + "today: 2024-15-45\n" });
  assert.equal(r.code, 2);
  assert.deepEqual(r.stderr, [
    'a.yaml:11: mine__one: field "today": expected a date YYYY-MM-DD that exists',
  ]);
  assert.equal((await validate({ "a.yaml": RETAIL + "today: 2024-02-29\n" })).code, 0);
  assert.equal((await validate({ "a.yaml": RETAIL + "today: 2023-02-29\n" })).code, 2);
});

Deno.test("validate: cross-checks name the line of the field", async () => {
  const r = await validate({
    "a.yaml": RETAIL.replace("get_order_details]", "get_order_details, get_ordr_details]")
      .replace("tau2_retail/db.json", "tau2_retail/nope.json"),
    "b.yaml": RETAIL.replace("mine__one", "mine__two").replace(
      "domain: tau2_retail",
      "domain: tau2_retial",
    ),
    "c.yaml": RETAIL.replace("mine__one", "mine__three"),
    "d.yaml": "\n" + RETAIL.replace("mine__one", "mine__three"),
  });
  assert.equal(r.code, 2);
  const root = r.stderr.find((l) => l.includes("in the data root "))!.split("in the data root ")[1];
  assert.deepEqual(r.stderr, [
    'd.yaml:2: mine__three: field "name": duplicate scenario name (first in c.yaml)',
    `a.yaml:4: mine__one: field "world.db.path": no database "tau2_retail/nope.json" in the data root ${root}`,
    'a.yaml:7: mine__one: field "agent.tools[2]": unknown agent tool "get_ordr_details" in domain tau2_retail (did you mean "get_order_details"?)',
    'b.yaml:2: mine__two: field "domain": unknown domain "tau2_retial" (did you mean "tau2_retail"?)',
  ]);
});

Deno.test("validate: a misspelt success signal gets the closest one", async () => {
  const r = await validate({ "a.yaml": RETAIL.replace("clean_exit]", "clean_exti]") });
  assert.equal(r.code, 2);
  assert.equal(r.stderr.length, 1);
  assert.match(
    r.stderr[0]!,
    /^a\.yaml:10: mine__one: field "success_signals\[1\]": .*\(did you mean "clean_exit"\?\)$/,
  );
});

Deno.test("validate: a gating signal that can never apply is an error", async () => {
  const r = await validate({
    "a.yaml": RETAIL.replace(`  db_sha256: ${"a".repeat(64)}\n`, "  nl_assertions: []\n"),
  });
  assert.equal(r.code, 2);
  assert.deepEqual(r.stderr, [
    'a.yaml:10: mine__one: field "success_signals[0]": "db_state_match" can never apply: the scenario has no expected DB hash (expect.db_sha256) (give expect.db_sha256 (cli.ts gold FILE computes it from expect.reference_actions))',
  ]);
});

/** A retail scenario whose reference actions cancel order #W5100002 (a fixture order). */
const CANCEL = `name: mine__cancel
domain: tau2_retail
world:
  db: { path: tau2_retail/db.json }
agent:
  prompt: Help the caller.
  tools: [end_conversation, get_order_details, cancel_pending_order]
expect:
  db_sha256: ${"b".repeat(64)}
  reference_actions:
    - name: get_order_details
      arguments: { order_id: "#W5100002" }
    - name: cancel_pending_order
      arguments: { order_id: "#W5100002", reason: ordered by mistake }
success_signals: [db_state_match, clean_exit]
`;

Deno.test("validate checks each reference action's arguments against its tool's schema", async () => {
  const r = await validate({
    "a.yaml": CANCEL.replace('arguments: { order_id: "#W5100002" }', "arguments: { order: 5 }"),
  });
  assert.equal(r.code, 2);
  assert.deepEqual(r.stderr, [
    'a.yaml:12: mine__cancel: field "expect.reference_actions[0].arguments.order_id": get_order_details: Invalid input: expected string, received undefined (the tools command lists get_order_details\'s arguments (domain tau2_retail))',
    'a.yaml:12: mine__cancel: field "expect.reference_actions[0].arguments": get_order_details: Unrecognized key: "order" (the tools command lists get_order_details\'s arguments (domain tau2_retail))',
  ]);
  assert.equal((await validate({ "a.yaml": CANCEL })).code, 0);
});

Deno.test("validate warns when clean_exit gates success but no tool ends the call, with the fix", async () => {
  const r = await validate({ "a.yaml": RETAIL.replace("end_conversation, ", "") });
  assert.equal(r.code, 0);
  assert.deepEqual(r.stderr, [
    'warning: a.yaml:10: mine__one: field "success_signals[1]": "clean_exit" gates success but agent.tools offers no tool that ends the call (add "end_conversation" to agent.tools (and as the last of expect.reference_actions, so the oracle ends the call), or drop "clean_exit")',
    "1 scenario valid",
  ]);
});

Deno.test("validate --replay compares the replayed reference actions with expect.db_sha256", async () => {
  const wrong = await validateWith(["--replay"], { "a.yaml": CANCEL });
  assert.equal(wrong.code, 2);
  assert.equal(wrong.stderr.length, 1, wrong.stderr.join("\n"));
  assert.match(
    wrong.stderr[0]!,
    /^a\.yaml:9: mine__cancel: field "expect\.db_sha256": the reference actions replayed end at [0-9a-f]{12}…, not at the expected bbbbbbbbbbbb… \(fix the reference actions, or copy expected_db_sha256 from cli\.ts gold FILE\)$/,
  );
  const hash = /end at ([0-9a-f]{12})/.exec(wrong.stderr[0]!)![1]!;
  assert.equal(
    (await validate({ "a.yaml": CANCEL })).code,
    0,
    "without --replay it is not replayed",
  );

  // A reference call that fails on the world, at its line.
  const missing = await validateWith(["--replay"], {
    "a.yaml": CANCEL.replaceAll("#W5100002", "#W0000000"),
  });
  assert.equal(missing.code, 2);
  assert.ok(
    missing.stderr.some((l) =>
      l.startsWith(
        'a.yaml:11: mine__cancel: field "expect.reference_actions[0]": get_order_details failed on the world',
      )
    ),
    missing.stderr.join("\n"),
  );
  // The hash gold computes makes it pass.
  const gold = memoryIo();
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(join(dir, "a.yaml"), CANCEL);
    await run(["gold", join(dir, "a.yaml")], gold);
    const full = JSON.parse(gold.stdout[0]!).expected_db_sha256 as string;
    assert.ok(full.startsWith(hash));
    const right = await validateWith(["--replay"], {
      "a.yaml": CANCEL.replace("b".repeat(64), full),
    });
    assert.equal(right.code, 0, right.stderr.join("\n"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

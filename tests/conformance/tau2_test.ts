/**
 * The four tau2 suites against the real data: scenario counts and order, the
 * reference's initial hashes, gold replays that fail only where the benchmark's own
 * reference actions fail (listed below, with why), telecom assertions holding on
 * the gold state, and gold hashes equal across two separate processes. Reads the
 * data root from `EVAL_DATA_ROOT`, else `../shared/datasets`; skips without it.
 *
 *   deno test --allow-read --allow-env=NODE_ENV,EVAL_DATA_ROOT --allow-run tests/conformance/tau2_test.ts
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { dbHash } from "../../src/canonical/hash.ts";
import { DataRoot } from "../../src/scenario/data_root.ts";
import type { Scenario } from "../../src/scenario/scenario.ts";
import type { Gold, Suite } from "../../src/scenario/suite.ts";
import { suites } from "../../src/scenario/tau2/suites.ts";
import { DATA_ROOT } from "./_data_root.ts";

const root = new DataRoot(DATA_ROOT);
const present = suites.every((s) => s.present(root));

const INITIAL_HASHES = {
  "tau2_airline/db": "4da8c3f8adaffe176a9daaa5f20658bb9b36cd945733ab8f9ecf2e8bcbaabcc8",
  "tau2_retail/db.json": "743c9e1ec7e53de1b992f5521630e347ec3e25e5e215a2b056651106540ac0f8",
};
/** §4 gives the telecom worlds' hashes by their ends only. */
const TELECOM_HASH_ENDS = {
  "tau2_telecom/db.json": ["4833e8dc", "01160eb1"],
  "tau2_telecom/user_db.json": ["5021b231", "632d3e35"],
};

/**
 * Reference calls that fail on the benchmark's own data, by scenario: `[index in
 * the reference actions, tool, why]`. The reference's gold replay meets the same
 * failures (it logs them and goes on); none changes the world. Every other airline
 * and retail reference call succeeds.
 */
const EXPECTED_FAILURES: Record<string, [number, string, string][]> = {
  tau2_retail__2: [[
    1,
    "get_product_details",
    "looks up 6086499569, the tool documentation's example id",
  ]],
  tau2_retail__3: [[1, "get_product_details", "the documentation's example product id"]],
  tau2_retail__4: [[1, "get_product_details", "the documentation's example product id"]],
  tau2_retail__35: [[
    0,
    "find_user_id_by_email",
    "the caller first gives an email that is not on file",
  ]],
  tau2_retail__37: [[
    0,
    "find_user_id_by_email",
    "the caller's email is not on file; name and zip work",
  ]],
  tau2_retail__38: [[
    0,
    "find_user_id_by_email",
    "the caller's email is not on file; name and zip work",
  ]],
  tau2_retail__39: [[
    0,
    "find_user_id_by_name_zip",
    "the caller first gives the zip they moved to",
  ]],
  tau2_retail__46: [
    [1, "get_order_details", "order id without its W (#9502126); no such order"],
    [2, "get_order_details", "order id without its W (#9502127); the order is #W9502127"],
  ],
  tau2_retail__47: [
    [1, "get_order_details", "order id without its W (#9502126); no such order"],
    [2, "get_order_details", "order id without its W (#9502127); the order is #W9502127"],
  ],
  tau2_retail__54: [[
    0,
    "find_user_id_by_email",
    "the first of the caller's two emails is not on file",
  ]],
  tau2_retail__55: [[
    0,
    "find_user_id_by_email",
    "the first of the caller's two emails is not on file",
  ]],
  tau2_retail__64: [[6, "exchange_delivered_order_items", "the order is pending, not delivered"]],
  tau2_retail__67: [
    [0, "find_user_id_by_name_zip", "the caller first gives a wrong zip, by the task's script"],
    [1, "find_user_id_by_name_zip", "the second zip is wrong too, by the script"],
  ],
  tau2_retail__68: [[0, "find_user_id_by_name_zip", "the caller first gives a wrong zip"]],
  tau2_retail__105: [[
    0,
    "exchange_delivered_order_items",
    "the gift card (17.0) cannot pay the 21.1 difference",
  ]],
};

interface Loaded {
  suite: Suite;
  scenarios: Scenario[];
  golds: Gold[];
}

let loaded: Promise<Loaded[]> | undefined;

function loadAll(): Promise<Loaded[]> {
  return loaded ??= (async () => {
    const out: Loaded[] = [];
    for (const suite of suites) {
      const { scenarios, problems } = await suite.load(root);
      assert.deepEqual(problems, [], suite.id);
      const golds = [];
      for (const s of scenarios) golds.push(await suite.gold(root, s));
      out.push({ suite, scenarios, golds });
    }
    return out;
  })();
}

Deno.test({
  name: "tau2 suites hold 50, 114, 114 and 114 scenarios, in the reference's order",
  ignore: !present,
  async fn() {
    const all = await loadAll();
    assert.deepEqual(all.map((l) => [l.suite.id, l.scenarios.length]), [
      ["tau2_airline", 50],
      ["tau2_retail", 114],
      ["tau2_telecom", 114],
      ["tau2_telecom_workflow", 114],
    ]);
    const [airline, retail, telecom, workflow] = all;
    assert.deepEqual(
      airline!.scenarios.map((s) => s.name),
      Array.from({ length: 50 }, (_, i) => `tau2_airline__${i}`),
    );
    assert.equal(retail!.scenarios[113]!.name, "tau2_retail__113");
    const ids = telecom!.scenarios.map((s) => s.source!);
    assert.deepEqual(ids, [...ids].sort());
    assert.deepEqual(
      workflow!.scenarios.map((s) => s.name),
      telecom!.scenarios.map((s) => s.name.replace(/^tau2_telecom__/, "tau2_telecom_workflow__")),
    );
    for (const l of all) {
      assert.equal(new Set(l.scenarios.map((s) => s.name)).size, l.scenarios.length, l.suite.id);
    }
  },
});

Deno.test({
  name: "tau2 worlds hash to the reference's initial values",
  ignore: !present,
  fn() {
    for (const [path, hash] of Object.entries(INITIAL_HASHES)) {
      assert.equal(dbHash(root.db(path)), hash, path);
    }
    for (const [path, [head, tail]] of Object.entries(TELECOM_HASH_ENDS)) {
      const hash = dbHash(root.db(path));
      assert.ok(hash.startsWith(head!) && hash.endsWith(tail!), `${path}: ${hash}`);
    }
  },
});

Deno.test({
  name: "airline and retail gold replays fail only on the listed data quirks",
  ignore: !present,
  async fn() {
    const failures: Record<string, [number, string][]> = {};
    for (const { suite, scenarios, golds } of (await loadAll()).slice(0, 2)) {
      assert.ok(suite.id === "tau2_airline" || suite.id === "tau2_retail");
      scenarios.forEach((s, i) => {
        const errors = golds[i]!.errors;
        if (errors) failures[s.name] = errors.map((e) => [e.index, e.name]);
        assert.equal(s.expect.db_sha256, golds[i]!.expected_db_sha256, s.name);
      });
    }
    const expected = Object.fromEntries(
      Object.entries(EXPECTED_FAILURES).map((
        [name, list],
      ) => [name, list.map(([i, tool]) => [i, tool])]),
    );
    assert.deepEqual(failures, expected);
  },
});

Deno.test({
  name: "every action-free or read-only airline and retail task ends on the initial world",
  ignore: !present,
  async fn() {
    const initial = [INITIAL_HASHES["tau2_airline/db"], INITIAL_HASHES["tau2_retail/db.json"]];
    for (const [k, { scenarios, golds }] of (await loadAll()).slice(0, 2).entries()) {
      scenarios.forEach((s, i) => {
        const writes = golds[i]!.reference_records!.length;
        const unchanged = golds[i]!.expected_db_sha256 === initial[k];
        // A transfer records an action but changes no world.
        const onlyTransfers = golds[i]!.reference_records!.every((r) =>
          r.name === "transfer_to_human_agents"
        );
        assert.equal(unchanged, writes === 0 || onlyTransfers, s.name);
      });
    }
  },
});

Deno.test({
  name: "telecom gold replays run cleanly and satisfy every state assertion",
  ignore: !present,
  async fn() {
    for (const { scenarios, golds } of (await loadAll()).slice(2)) {
      scenarios.forEach((s, i) => {
        const gold = golds[i]!;
        assert.equal(gold.errors, undefined, s.name);
        assert.ok(gold.assertions && gold.assertions.length > 0, s.name);
        assert.deepEqual(gold.assertions.filter((a) => !a.passed), [], s.name);
        assert.equal(s.expect.user_db_sha256, gold.expected_user_db_sha256, s.name);
      });
    }
  },
});

Deno.test({
  name: "tau2 agent prompts start with the benchmark policy verbatim",
  ignore: !present,
  async fn() {
    const [airline, retail, telecom, workflow] = await loadAll();
    assert.ok(airline!.scenarios[0]!.agent.prompt.startsWith(root.text("tau2_airline/policy.md")));
    assert.ok(retail!.scenarios[0]!.agent.prompt.startsWith(root.text("tau2_retail/policy.md")));
    const main = root.text("tau2_telecom/main_policy.md").trim();
    assert.ok(telecom!.scenarios[0]!.agent.prompt.startsWith(
      `${main}\n\n---\n\n${root.text("tau2_telecom/tech_support_manual.md").trim()}\n\n`,
    ));
    assert.ok(workflow!.scenarios[0]!.agent.prompt.startsWith(
      `${main}\n\n---\n\n${root.text("tau2_telecom/tech_support_workflow.md").trim()}\n\n`,
    ));
    const nl = retail!.scenarios.filter((s) => s.success_signals.includes("nl_assertion")).length;
    assert.equal(nl, 40);
    assert.ok(airline!.scenarios.every((s) => s.expect.nl_assertions.length === 0));
  },
});

Deno.test({
  name: "tau2 gold hashes are the same in two separate processes",
  ignore: !present,
  async fn() {
    const script = fileURLToPath(new URL("./_tau2_gold_hashes.ts", import.meta.url));
    const run = async () => {
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["run", "--allow-read", "--allow-env=NODE_ENV,EVAL_DATA_ROOT", script],
        env: { EVAL_DATA_ROOT: DATA_ROOT },
        stdout: "piped",
        stderr: "inherit",
      }).output();
      assert.equal(out.code, 0);
      return JSON.parse(new TextDecoder().decode(out.stdout)) as Record<
        string,
        [string, string | null]
      >;
    };
    const first = await run();
    const second = await run();
    assert.equal(Object.keys(first).length, 392);
    assert.deepEqual(second, first);
    const here: Record<string, [string | null, string | null]> = {};
    for (const { scenarios, golds } of await loadAll()) {
      scenarios.forEach((s, i) =>
        here[s.name] = [golds[i]!.expected_db_sha256, golds[i]!.expected_user_db_sha256 ?? null]
      );
    }
    assert.deepEqual(here, first);
  },
});

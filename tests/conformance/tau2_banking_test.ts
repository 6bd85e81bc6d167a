/**
 * The τ-voice banking suite against the real data: 97 scenarios in task order,
 * the bank's initial hash, every reference call of the gold replays answering
 * without error except where the benchmark's own actions fail (listed, with why),
 * gold hashes equal across two processes, and the oracle with the scripted caller
 * reaching every gold state in-process and, for a sample, through `serve`. Reads
 * the data root from `EVAL_DATA_ROOT`, else `../shared/datasets`; skips without it.
 *
 *   deno test --allow-read --allow-write --allow-net=127.0.0.1 --allow-env --allow-run tests/conformance/tau2_banking_test.ts
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { fileURLToPath } from "node:url";
import { dbHash } from "../../src/canonical/hash.ts";
import { participantFactory } from "../../src/participants/registry.ts";
import { runTrials } from "../../src/runner/runner.ts";
import type { TrialRecord } from "../../src/runner/trial_record.ts";
import { DataRoot } from "../../src/scenario/data_root.ts";
import { openEnvironment } from "../../src/scenario/open_environment.ts";
import type { Scenario } from "../../src/scenario/scenario.ts";
import { bankingSuite } from "../../src/scenario/tau2/banking_suite.ts";
import { serve } from "../../src/server/serve.ts";
import { builtinFactory } from "../../src/commands/serve.ts";
import { DATA_ROOT } from "./_data_root.ts";

const root = new DataRoot(DATA_ROOT);
const suite = bankingSuite();
const present = suite.present(root);

/** The canonical hash of `db.json` as shipped (computed here; the reference gives none). */
const INITIAL_HASH = "168e7f25d85e50647d404caa12367316dcafbef1f05a24b15dfd0ebc21a08879";

/**
 * Reference calls whose answer is an error on the benchmark's own data, by scenario:
 * `[index in the reference actions, why]`. The reference's tools answer the same
 * (its gold replay logs and goes on); none changes the world.
 */
const EXPECTED_ERRORS: Record<string, [number, string][]> = {
  tau2_banking_knowledge__task_051: [[
    17,
    "the same credit-limit request again (same id): 'A similar request may already exist.'",
  ]],
  tau2_banking_knowledge__task_083: [6, 7, 8, 9].map((i) => [
    i,
    "the gold call leaves out customer_max_liability_amount, a required argument",
  ]),
};

let loaded: Promise<Scenario[]> | undefined;
const scenarios = () =>
  loaded ??= suite.load(root, { expected: false }).then(({ scenarios, problems }) => {
    assert.deepEqual(problems, []);
    return scenarios;
  });

Deno.test({
  name: "banking: 97 scenarios in task order, over the shipped bank",
  ignore: !present,
  async fn() {
    const all = await scenarios();
    assert.equal(all.length, 97);
    const ids = all.map((s) => s.source!.replace(/^tau2:/, ""));
    assert.deepEqual(ids, [...ids].sort());
    assert.equal(all[0]!.name, "tau2_banking_knowledge__task_001");
    assert.equal(dbHash(root.db("tau2_banking_knowledge/db.json")), INITIAL_HASH);
    // 88 tasks are judged on the bank's end state, 9 on the actions.
    const byActions = all.filter((s) => s.success_signals.includes("is_action_match"));
    assert.equal(byActions.length, 9);
    assert.ok(all.every((s) => s.tags.includes("retrieval:bm25_grep")));
    assert.ok(
      all.every((s) => s.agent.tools.includes("KB_search") && s.agent.tools.includes("grep")),
    );
  },
});

Deno.test({
  name: "banking: every gold call answers without an error but the benchmark's own failures",
  ignore: !present,
  async fn() {
    const errors: Record<string, [number, string][]> = {};
    let calls = 0;
    for (const s of await scenarios()) {
      const { env, initErrors } = await openEnvironment(root, s, "gold");
      assert.deepEqual(initErrors, [], s.name);
      (s.expect.reference_actions ?? []).forEach((a, i) => {
        const r = env.call(a.side, a.name, a.arguments);
        calls++;
        assert.ok(r.ok, `${s.name} #${i}`);
        const text = String(r.result);
        if (/^\s*(Error|Failed)/.test(text)) (errors[s.name] ??= []).push([i, text]);
        if (!r.record) env.sync();
      });
    }
    assert.deepEqual(
      Object.fromEntries(Object.entries(errors).map(([k, v]) => [k, v.map(([i]) => i)])),
      Object.fromEntries(
        Object.entries(EXPECTED_ERRORS).map(([k, v]) => [k, v.map(([i]) => i)]),
      ),
    );
    console.log(`banking gold: ${calls} reference calls replayed`);
  },
});

Deno.test({
  name:
    "banking: gold hashes are the same in two separate processes, and move off the initial world",
  ignore: !present,
  async fn() {
    const script = fileURLToPath(new URL("./_banking_gold_hashes.ts", import.meta.url));
    const runOnce = async () => {
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["run", "--allow-read", "--allow-env", script],
        env: { EVAL_DATA_ROOT: DATA_ROOT },
        stdout: "piped",
        stderr: "inherit",
      }).output();
      assert.equal(out.code, 0);
      return JSON.parse(new TextDecoder().decode(out.stdout)) as Record<string, string>;
    };
    const [a, b] = await Promise.all([runOnce(), runOnce()]);
    assert.equal(Object.keys(a).length, 97);
    assert.deepEqual(a, b);
    const unchanged = Object.entries(a).filter(([, h]) => h === INITIAL_HASH).map(([n]) => n);
    // Tasks whose gold only reads or transfers leave the bank as it was.
    assert.deepEqual(unchanged, [
      "tau2_banking_knowledge__task_004",
      "tau2_banking_knowledge__task_008",
      "tau2_banking_knowledge__task_012",
      "tau2_banking_knowledge__task_014",
    ]);
  },
});

/** Answers that differ from the reference's, by scenario and index, with why: none. */
const ANSWER_DIFFERENCES: Record<string, [number, string][]> = {};

function masked(name: string, text: string): string {
  if (name !== "unlock_discoverable_agent_tool" && name !== "give_discoverable_user_tool") {
    return text;
  }
  return text.replace(
    /Description: [\s\S]*?(?=\n\nTool: |\nParameters:|\nArguments:)/g,
    "Description: *",
  )
    .replace(/^( {2}- \w+: [\w ]+ \((?:required|optional)\)) - .*$/gm, "$1 - *");
}

Deno.test({
  name:
    "banking: every gold call answers the reference's text, and every task ends on the reference's bank",
  ignore: !present,
  async fn() {
    const expected = JSON.parse(
      Deno.readTextFileSync(new URL("./testdata/banking_gold_answers.json", import.meta.url)),
    ) as Record<string, { answers: string[]; db_sha256: string }>;
    const differ: Record<string, number[]> = {};
    const banks: string[] = [];
    let same = 0;
    for (const s of await scenarios()) {
      const id = s.source!.replace(/^tau2:/, "");
      const { env } = await openEnvironment(root, s, "gold");
      (s.expect.reference_actions ?? []).forEach((a, i) => {
        const r = env.call(a.side, a.name, a.arguments);
        const digest = createHash("sha256").update(masked(a.name, String(r.result))).digest("hex");
        if (digest.slice(0, 16) === expected[id]!.answers[i]) same++;
        else (differ[id] ??= []).push(i);
        if (!r.record) env.sync();
      });
      const bank = Object.fromEntries(
        Object.entries(env.db).filter(([, t]) => {
          const table = t as { data?: object; notes?: string };
          return Object.keys(table.data ?? {}).length > 0 || (table.notes ?? "") !== "";
        }),
      );
      if (dbHash(bank) !== expected[id]!.db_sha256) banks.push(id);
    }
    console.log(`banking: ${same} gold answers equal to the reference's`);
    assert.deepEqual(
      differ,
      Object.fromEntries(
        Object.entries(ANSWER_DIFFERENCES).map(([k, v]) => [k, v.map(([i]) => i)]),
      ),
    );
    assert.deepEqual(banks, []);
  },
});

const limits = { silenceMs: 30_000, maxTurns: 400 };

async function oracleRun(agent: string, picked: Scenario[]): Promise<TrialRecord[]> {
  await suite.expect(root, picked);
  const records: TrialRecord[] = [];
  await runTrials({
    scenarios: picked,
    root,
    participants: participantFactory({ agent, user: "scripted", agentModel: {}, userModel: {} }),
    configHash: agent,
    trials: 1,
    concurrency: 4,
    limits,
    onRecord: (r) => void records.push(r),
  });
  return records;
}

function failures(records: readonly TrialRecord[]): string[] {
  return records.filter((r) =>
    !(r.status === "completed" && r.clean_exit && r.final.db_sha256 === r.expect.db_sha256)
  ).map((r) => `${r.key.scenario}: ${r.status} ${r.stop_reason} ${r.error?.message ?? ""}`);
}

Deno.test({
  name: "banking: the oracle with the scripted caller reaches all 97 gold states in-process",
  ignore: !present,
  async fn() {
    const records = await oracleRun("oracle", await scenarios());
    assert.equal(records.length, 97);
    assert.deepEqual(failures(records), []);
  },
});

Deno.test({
  name: "banking: the oracle served over loopback WebSocket reaches gold (every 8th scenario)",
  ignore: !present,
  async fn() {
    const server = await serve({
      hostname: "127.0.0.1",
      port: 0,
      factory: builtinFactory(root),
      dataRoot: root,
    });
    try {
      const sample = (await scenarios()).filter((_, i) => i % 8 === 0);
      const records = await oracleRun(`${server.url}?agent=oracle`, sample);
      assert.equal(records.length, 13);
      assert.ok(records.every((r) => r.participants.agent.kind === "remote"));
      assert.deepEqual(failures(records), []);
    } finally {
      await server.shutdown();
    }
  },
});

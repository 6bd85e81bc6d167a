/**
 * On the real benchmarks: the oracle agent with the scripted caller reaches every
 * scenario's gold state (telecom: every assertion holds), in-process; the noop agent
 * does not, except where the gold state is the initial one.
 */
import assert from "node:assert/strict";
import { DataRoot } from "../../src/scenario/data_root.ts";
import { selectScenarios } from "../../src/scenario/suites.ts";
import { participantFactory } from "../../src/participants/registry.ts";
import { runTrials } from "../../src/runner/runner.ts";
import type { TrialRecord } from "../../src/runner/trial_record.ts";
import { DATA_ROOT, requireDataRoot } from "./_data_root.ts";
import { openEnvironment } from "../../src/scenario/open_environment.ts";
import { scoreTrial } from "../../src/score/score_trial.ts";
import { serve } from "../../src/server/serve.ts";
import { builtinFactory } from "../../src/commands/serve.ts";

const root = new DataRoot(DATA_ROOT);
const limits = { silenceMs: 30_000, maxTurns: 400 };

async function run(agent: string, concurrency = 8): Promise<TrialRecord[]> {
  requireDataRoot(); // else "0 !== 442" would be all it said
  const sel = await selectScenarios(root, {});
  assert.equal(sel.problems.length, 0, JSON.stringify(sel.problems.slice(0, 3)));
  const records: TrialRecord[] = [];
  await runTrials({
    scenarios: sel.scenarios,
    root,
    participants: participantFactory({ agent, user: "scripted", agentModel: {}, userModel: {} }),
    configHash: agent,
    trials: 1,
    concurrency,
    limits,
    onRecord: (r) => void records.push(r),
  });
  return records;
}

function reachedGold(r: TrialRecord): boolean {
  if (r.expect.db_state_assertions.length > 0) return r.assertions.every((a) => a.passed);
  return r.final.db_sha256 === r.expect.db_sha256;
}

function check(label: string, records: TrialRecord[], seconds: number): void {
  const bySuite = new Map<string, { n: number; ok: number }>();
  const failures: string[] = [];
  for (const r of records) {
    const s = bySuite.get(r.suite) ?? { n: 0, ok: 0 };
    s.n++;
    const ok = r.status === "completed" && r.clean_exit && reachedGold(r);
    if (ok) s.ok++;
    else failures.push(`${r.key.scenario}: ${r.status} ${r.stop_reason} ${r.error?.message ?? ""}`);
    bySuite.set(r.suite, s);
  }
  console.log(
    `${label}: ${records.length} trials in ${seconds.toFixed(1)} s (${
      (records.length / seconds).toFixed(1)
    }/s)`,
  );
  for (const [suite, s] of bySuite) console.log(`  ${suite}: ${s.ok}/${s.n}`);
  assert.deepEqual(failures, []);
  assert.equal(records.length, 50 + 50 + 114 + 114 + 114 + 80 + 83 + 97);
}

Deno.test("oracle + scripted caller, in-process: every eva and tau2 scenario ends on its gold state", async () => {
  const t0 = performance.now();
  const records = await run("oracle");
  check("oracle in-process", records, (performance.now() - t0) / 1000);
});

Deno.test("oracle served over loopback WebSocket: every scenario ends on its gold state", async () => {
  const server = await serve({
    hostname: "127.0.0.1",
    port: 0,
    factory: builtinFactory(root),
    dataRoot: root,
  });
  try {
    const t0 = performance.now();
    const records = await run(`${server.url}?agent=oracle`);
    check("oracle over WebSocket", records, (performance.now() - t0) / 1000);
    assert.ok(records.every((r) => r.participants.agent.kind === "remote"));
  } finally {
    await server.shutdown();
  }
});

Deno.test("noop agent: the world only matches gold where gold is the initial state", async () => {
  const records = await run("noop");
  const sel = await selectScenarios(root, {});
  const byName = new Map(sel.scenarios.map((s) => [s.name, s]));
  let matches = 0;
  for (const r of records) {
    const scenario = byName.get(r.key.scenario)!;
    const { env } = await openEnvironment(root, scenario, r.key.seed);
    const initialIsGold = scenario.expect.db_state_assertions.length > 0
      ? env.evaluate(scenario.expect.db_state_assertions).every((a) => a.passed)
      : env.hashes().db_sha256 === scenario.expect.db_sha256;
    assert.equal(reachedGold(r), initialIsGold, r.key.scenario);
    // Scored: db_state_match passes exactly where the expected state is the initial one.
    const verdict = scoreTrial(r);
    if (scenario.expect.db_sha256) {
      assert.equal(
        verdict.signals.db_state_match,
        env.hashes().db_sha256 === scenario.expect.db_sha256,
        r.key.scenario,
      );
    }
    if (reachedGold(r)) matches++;
  }
  console.log(`noop: ${matches}/${records.length} scenarios already at their gold state`);
  assert.ok(matches < records.length / 2);
});

import assert from "node:assert/strict";
import { registerDomain } from "../domains/registry.ts";
import { counterDomain, counterScenario } from "../testing/counter_domain.ts";
import { memoryIo } from "../cli/io.ts";
import { command as list } from "../commands/list.ts";
import { participantFactory } from "../participants/registry.ts";
import { runTrials } from "../runner/runner.ts";
import type { TrialRecord } from "../runner/trial_record.ts";
import { DataRoot } from "./data_root.ts";
import type { Suite } from "./suite.ts";
import {
  allSuites,
  BUILTIN_SUITE_IDS,
  registerSuite,
  selectScenarios,
  suiteIds,
} from "./suites.ts";

const counterSuite: Suite = {
  id: "test_counter",
  domain: "test_counter",
  present: () => true,
  load: () =>
    Promise.resolve({
      scenarios: [counterScenario(), counterScenario({ name: "test_counter__again" })],
      problems: [],
    }),
  expect: () => Promise.resolve(),
  gold: (_root, s) =>
    Promise.resolve({
      name: s.name,
      domain: s.domain,
      expected_db_sha256: s.expect.db_sha256 ?? null,
      reference_actions: s.expect.reference_actions ?? [],
    }),
};

Deno.test("suites: the built-in ids are the built-in suites' own, in listing order", async () => {
  const ids = (await allSuites()).map((s) => s.id);
  assert.deepEqual(ids.slice(0, BUILTIN_SUITE_IDS.length), [...BUILTIN_SUITE_IDS]);
});

Deno.test("registerSuite: a registered suite is listed and runs through runTrials", async () => {
  registerDomain(counterDomain);
  registerSuite(counterSuite);
  assert.ok(suiteIds().includes("test_counter"));
  assert.equal((await allSuites()).at(-1), counterSuite);

  const io = memoryIo();
  assert.equal(await list.main(["--domain", "test_counter"], io), 0);
  assert.deepEqual(io.stdout.map((l) => JSON.parse(l).name), [
    "test_counter__add_five",
    "test_counter__again",
  ]);

  const root = new DataRoot(Deno.cwd());
  const { scenarios } = await selectScenarios(root, { domains: ["test_counter"] });
  const records: TrialRecord[] = [];
  const summary = await runTrials({
    scenarios,
    root,
    participants: participantFactory({
      agent: "oracle",
      user: "scripted",
      agentModel: {},
      userModel: {},
    }),
    configHash: "cfg",
    trials: 1,
    concurrency: 1,
    limits: { silenceMs: 30_000, maxTurns: 200 },
    onRecord: (r) => void records.push(r),
  });
  assert.deepEqual(summary, { planned: 2, skipped: 0, run: 2, errors: 0 });
  assert.deepEqual(records.map((r) => [r.status, r.suite]), [
    ["completed", "test_counter"],
    ["completed", "test_counter"],
  ]);
});

Deno.test("selectScenarios: an unknown suite names the registered ones among the closest", async () => {
  registerSuite(counterSuite);
  await assert.rejects(
    () => selectScenarios(new DataRoot(Deno.cwd()), { domains: ["test_countr"] }),
    /did you mean "test_counter"/,
  );
});

/**
 * EVA-Bench's release (eva_itsm, 80 scenarios; eva_medical_hr, 83) against the real
 * data, in the cultures en and fr. For each scenario:
 *
 * - its world and expected end state, resolved for the culture, hash to the values
 *   the reference's own code gives (`eva_release_hashes.json`: ServiceNow/eva
 *   997ae97's `culture.resolve_scenario_db` then `hash_utils.get_dict_hash`, run once
 *   on these files; `[initial, expected]` by domain, language and record id);
 * - the gold trace's tool calls, replayed in-process and through `cli.ts replay
 *   --domain D --db <the culture's initial world>`, end on that expected hash.
 *
 *   deno test --allow-read --allow-write --allow-env tests/conformance/eva_release_test.ts
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DataRoot } from "../../src/scenario/data_root.ts";
import { itsmSuite, medicalHrSuite } from "../../src/scenario/eva/release_suite.ts";
import { openEnvironment } from "../../src/scenario/open_environment.ts";
import { dbHash } from "../../src/canonical/hash.ts";
import type { Suite } from "../../src/scenario/suite.ts";
import { run } from "../../cli.ts";
import { memoryIo } from "../../src/cli/io.ts";
import { DATA_ROOT, requireDataRoot } from "./_data_root.ts";
import { selectScenarios } from "../../src/scenario/suites.ts";
import { participantFactory } from "../../src/participants/registry.ts";
import { runTrials } from "../../src/runner/runner.ts";
import type { TrialRecord } from "../../src/runner/trial_record.ts";
import { serve } from "../../src/server/serve.ts";
import { builtinFactory } from "../../src/commands/serve.ts";

const root = new DataRoot(DATA_ROOT);
const UPSTREAM: Record<string, Record<string, Record<string, [string, string]>>> = JSON.parse(
  Deno.readTextFileSync(new URL("./eva_release_hashes.json", import.meta.url)),
);
const SUITES: [Suite, number][] = [[itsmSuite, 80], [medicalHrSuite, 83]];
const LANGUAGES = ["en", "fr"];

for (const [suite, count] of SUITES) {
  for (const language of LANGUAGES) {
    Deno.test(`${suite.id} in ${language}: worlds and expected states hash as upstream's code does, and every gold trace replays onto the expected hash (in-process and through cli.ts replay)`, async () => {
      requireDataRoot();
      const { scenarios, problems } = await suite.load(root, { language });
      assert.deepEqual(problems, []);
      assert.equal(scenarios.length, count);
      const table = UPSTREAM[suite.id]![language]!;
      assert.equal(Object.keys(table).length, count);
      const dir = await Deno.makeTempDir();
      let viaCli = 0;
      // A few gold conversations end without a tool call (the caller is refused).
      let withoutCalls = 0;
      try {
        for (const scenario of scenarios) {
          const id = scenario.source!.split(":")[2]!;
          const [initial, expected] = table[id]!;
          const world = (scenario.world.db as { inline: Record<string, unknown> }).inline;
          assert.equal(dbHash(world), initial, `${scenario.name}: initial world`);
          assert.equal(scenario.expect.db_sha256, expected, `${scenario.name}: expected state`);
          const calls = scenario.expect.reference_actions ?? [];
          if (calls.length === 0) withoutCalls++;

          const { env } = await openEnvironment(root, scenario, "gold");
          for (const c of calls) env.call(c.side, c.name, c.arguments);
          assert.equal(env.hashes().db_sha256, expected, `${scenario.name}: in-process replay`);

          const file = join(dir, `${id}.json`);
          await Deno.writeTextFile(file, JSON.stringify(world));
          const io = memoryIo(calls.map((c) => JSON.stringify(c)).join("\n") + "\n");
          const code = await run(["replay", "--domain", suite.domain, "--db", file], io);
          assert.equal(code, 0, io.stderr.join("\n"));
          const final = JSON.parse(io.stdout.at(-1)!);
          assert.equal(final.type, "final");
          assert.equal(final.db_sha256, expected, `${scenario.name}: cli.ts replay`);
          viaCli++;
        }
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
      console.log(
        `${suite.id} ${language}: ${viaCli}/${count} gold traces replay to upstream's hash ` +
          `(${withoutCalls} without a tool call)`,
      );
      assert.ok(withoutCalls < count / 10);
    });
  }
}

Deno.test("eva_itsm in French through eval: each call opens with the record's French starting utterance and the oracle reaches gold", async () => {
  requireDataRoot();
  const records = JSON.parse(
    Deno.readTextFileSync(join(DATA_ROOT, "eva_itsm/itsm_dataset.json")),
  ) as {
    id: string;
    starting_utterances: Record<string, string>;
  }[];
  const french = new Map(records.map((r) => [`eva_itsm__${r.id}`, r.starting_utterances.fr!]));
  const out = await Deno.makeTempDir();
  try {
    const io = memoryIo();
    const code = await run([
      "eval",
      "--data-root",
      DATA_ROOT,
      "--domain",
      "eva_itsm",
      "--language",
      "fr",
      "--agent",
      "oracle",
      "--out",
      out,
    ], io);
    assert.equal(code, 0, io.stderr.join("\n"));
    const trials = (await Deno.readTextFile(join(out, "trials.jsonl"))).trim().split("\n")
      .map((l) => JSON.parse(l));
    assert.equal(trials.length, 80);
    for (const t of trials) {
      assert.equal(t.language, "fr");
      const opening = t.turns.find((x: { speaker: string }) => x.speaker === "user");
      // The records' French openings hold no placeholders, so the text is the record's.
      assert.equal(opening.text, french.get(t.key.scenario), t.key.scenario);
      assert.equal(t.final.db_sha256, t.expect.db_sha256, t.key.scenario);
      assert.ok(t.clean_exit, t.key.scenario);
    }
  } finally {
    await Deno.remove(out, { recursive: true });
  }
});

async function oracleRun(agent: string, language: string): Promise<TrialRecord[]> {
  const sel = await selectScenarios(root, { domains: ["eva_itsm", "eva_medical_hr"], language });
  assert.equal(sel.scenarios.length, 163);
  const records: TrialRecord[] = [];
  await runTrials({
    scenarios: sel.scenarios,
    root,
    participants: participantFactory({ agent, user: "scripted", agentModel: {}, userModel: {} }),
    configHash: `${agent} ${language}`,
    trials: 1,
    concurrency: 8,
    limits: { silenceMs: 30_000, maxTurns: 400 },
    onRecord: (r) => void records.push(r),
  });
  return records;
}

function atGold(records: readonly TrialRecord[]): string[] {
  return records.filter((r) =>
    !(r.status === "completed" && r.clean_exit && r.final.db_sha256 === r.expect.db_sha256)
  ).map((r) => `${r.key.scenario}: ${r.status} ${r.stop_reason} ${r.error?.message ?? ""}`);
}

for (const language of LANGUAGES) {
  Deno.test(`oracle + scripted caller in ${language}: all 163 EVA release scenarios reach gold in-process and through serve`, async () => {
    requireDataRoot();
    const inProcess = await oracleRun("oracle", language);
    assert.deepEqual(atGold(inProcess), []);
    const server = await serve({
      hostname: "127.0.0.1",
      port: 0,
      factory: builtinFactory(root),
      dataRoot: root,
    });
    try {
      const served = await oracleRun(`${server.url}?agent=oracle`, language);
      assert.deepEqual(atGold(served), []);
      assert.ok(served.every((r) => r.participants.agent.kind === "remote"));
      console.log(
        `oracle ${language}: ${163 - atGold(inProcess).length}/163 in-process, ${
          163 - atGold(served).length
        }/163 through serve`,
      );
    } finally {
      await server.shutdown();
    }
  });
}

import assert from "node:assert/strict";
import { join } from "node:path";
import { BUNDLED_DATA_ROOT, DataRoot } from "../scenario/data_root.ts";
import { selectScenarios } from "../scenario/suites.ts";
import { participantFactory, type ParticipantOptions } from "../participants/registry.ts";
import { type RunOptions, runTrials } from "./runner.ts";
import type { TrialRecord } from "./trial_record.ts";
import { keyId } from "./trial_key.ts";

const root = new DataRoot(BUNDLED_DATA_ROOT);
const { scenarios } = await selectScenarios(root, {});
const oracle: ParticipantOptions = {
  agent: "oracle",
  user: "scripted",
  agentModel: {},
  userModel: {},
};
const limits = { silenceMs: 30_000, maxTurns: 200 };

function options(extra: Partial<RunOptions> & { onRecord: RunOptions["onRecord"] }): RunOptions {
  return {
    scenarios,
    root,
    participants: participantFactory(oracle),
    configHash: "cfg",
    trials: 2,
    concurrency: 4,
    limits,
    ...extra,
  };
}

/** A record without what differs from run to run (wall-clock times). */
function stable(r: TrialRecord): string {
  const { timings: _t, started_at: _s, ...rest } = r;
  return JSON.stringify(rest);
}

function byKey(records: TrialRecord[]): Map<string, string> {
  return new Map(records.map((r) => [keyId(r.key), stable(r)]));
}

/** A module for `WorkerOptions.modules` whose trial hook runs `body` (with `key`). */
function hook(body: string): string {
  return `data:application/javascript,${
    encodeURIComponent(`export function onTrialStart(key) { ${body} }`)
  }`;
}

Deno.test("workers: the records of --workers 2 are those of an in-process run (verdicts, hashes, turns)", async () => {
  const inProcess: TrialRecord[] = [];
  const same = { label: "L", minAgentTurns: 1 };
  const a = await runTrials(options({ ...same, onRecord: (r) => void inProcess.push(r) }));
  const pooled: TrialRecord[] = [];
  const b = await runTrials(options({
    ...same,
    onRecord: (r) => void pooled.push(r),
    workers: { count: 2, participants: oracle },
  }));
  assert.deepEqual(b, a);
  assert.equal(pooled.length, scenarios.length * 2);
  assert.ok(pooled.every((r) => r.status === "completed" && r.label === "L"));
  assert.ok(pooled.every((r) => r.expect.min_agent_turns === 1));
  assert.deepEqual(byKey(pooled), byKey(inProcess));
});

Deno.test("workers: an interrupted run resumes on workers; one line per trial, each with its transcript", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const stop = new AbortController();
    const first: TrialRecord[] = [];
    await runTrials(options({
      out: dir,
      signal: stop.signal,
      workers: { count: 2, participants: oracle },
      onRecord: (r) => {
        first.push(r);
        if (first.length === 3) stop.abort();
      },
    }));
    const path = join(dir, "trials.jsonl");
    const kept = (await Deno.readTextFile(path)).trimEnd().split("\n").length;
    assert.ok(kept >= 3 && kept < scenarios.length * 2, `kept ${kept}`);
    const second: TrialRecord[] = [];
    const summary = await runTrials(options({
      out: dir,
      resume: true,
      workers: { count: 2, participants: oracle },
      onRecord: (r) => void second.push(r),
    }));
    assert.equal(summary.skipped, kept);
    assert.equal(summary.run, scenarios.length * 2 - kept);
    const lines = (await Deno.readTextFile(path)).trimEnd().split("\n").map((l) =>
      JSON.parse(l) as TrialRecord
    );
    assert.equal(lines.length, scenarios.length * 2);
    assert.equal(new Set(lines.map((r) => keyId(r.key))).size, lines.length);
    assert.equal([...Deno.readDirSync(join(dir, "transcripts"))].length, lines.length);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("workers: a Worker that breaks fails only the trial it was running; the run goes on", async () => {
  const victim = scenarios[1]!.name;
  for (const maxRestarts of [undefined, 0]) {
    const got: TrialRecord[] = [];
    const summary = await runTrials(options({
      concurrency: 2, // one trial in flight per Worker
      trials: 1,
      onRecord: (r) => void got.push(r),
      workers: {
        count: 2,
        participants: oracle,
        ...(maxRestarts !== undefined ? { maxRestarts } : {}),
        modules: [
          hook(
            `if (key.scenario === ${JSON.stringify(victim)}) throw new Error("injected crash");`,
          ),
        ],
      },
    }));
    assert.equal(got.length, scenarios.length, `maxRestarts ${maxRestarts}`);
    assert.equal(summary.errors, 1);
    const broken = got.filter((r) => r.status === "error");
    assert.deepEqual(broken.map((r) => r.key.scenario), [victim]);
    assert.equal(broken[0]!.error!.kind, "harness_error");
    assert.match(broken[0]!.error!.message, /trial worker broke: .*injected crash/);
    assert.deepEqual(broken[0]!.expect.success_signals, scenarios[1]!.success_signals);
  }
});

Deno.test("workers: every Worker broken and none left to restart: the rest are harness errors, not a hang", async () => {
  const got: TrialRecord[] = [];
  const summary = await runTrials(options({
    trials: 1,
    onRecord: (r) => void got.push(r),
    workers: {
      count: 2,
      participants: oracle,
      maxRestarts: 1,
      modules: [hook(`throw new Error("always broken");`)],
    },
  }));
  assert.equal(got.length, scenarios.length);
  assert.equal(summary.errors, scenarios.length);
  assert.ok(got.every((r) => r.error?.kind === "harness_error"));
  assert.ok(got.some((r) => /no trial worker left/.test(r.error!.message)));
});

Deno.test("workers: abort stops every Worker, even one stuck in a trial", async () => {
  const stuck = scenarios[0]!.name;
  const stop = new AbortController();
  const got: TrialRecord[] = [];
  const summary = await runTrials(options({
    concurrency: 2,
    trials: 1,
    signal: stop.signal,
    onRecord: (r) => {
      got.push(r);
      stop.abort();
    },
    workers: {
      count: 2,
      participants: oracle,
      modules: [hook(`if (key.scenario === ${JSON.stringify(stuck)}) for (;;) {}`)],
    },
  }));
  assert.equal(got.length, 1);
  assert.equal(summary.run, 1);
  assert.notEqual(got[0]!.key.scenario, stuck);
});

Deno.test("workers: a selection a Worker cannot reproduce is refused before any trial", async () => {
  const renamed = { ...scenarios[0]!, prompt_note: "changed" } as (typeof scenarios)[number];
  await assert.rejects(
    () =>
      runTrials(options({
        scenarios: [renamed],
        onRecord: () => assert.fail("no trial may run"),
        workers: { count: 2, participants: oracle },
      })),
    /loaded scenario ".*" with other contents/,
  );
  await assert.rejects(
    () =>
      runTrials(options({
        onRecord: () => assert.fail("no trial may run"),
        workers: { count: 2, participants: oracle, files: ["/nonexistent/scenario.yaml"] },
      })),
    /could not load the selection/,
  );
});

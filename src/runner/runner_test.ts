import assert from "node:assert/strict";
import { join } from "node:path";
import { registerDomain } from "../domains/registry.ts";
import { counterDomain, counterScenario } from "../testing/counter_domain.ts";
import { DataRoot } from "../scenario/data_root.ts";
import { planTrials, runTrials } from "./runner.ts";
import { runTrial } from "./run_trial.ts";
import { participantFactory } from "../participants/registry.ts";
import type { TrialRecord } from "./trial_record.ts";
import { keyId, trialKey } from "./trial_key.ts";
import type { CallEvent, CallLine, CallSetup, Participant } from "../bridge/call.ts";
import { NoopAgent } from "../participants/noop.ts";
import { ScriptedUser } from "../participants/scripted_user.ts";

registerDomain(counterDomain);
const root = new DataRoot(Deno.cwd());
const oracle = participantFactory({
  agent: "oracle",
  user: "scripted",
  agentModel: {},
  userModel: {},
});
const limits = { silenceMs: 30_000, maxTurns: 200 };

function scenarios(n: number) {
  return Array.from({ length: n }, (_, i) => counterScenario({ name: `test_counter__s${i}` }));
}

Deno.test("runTrial records the call, the final hashes and the expectations to score by", async () => {
  const s = counterScenario();
  const r = await runTrial({
    scenario: s,
    key: trialKey(s.name, 0, "cfg"),
    root,
    participants: oracle,
    limits,
  });
  assert.equal(r.status, "completed");
  assert.equal(r.stop_reason, "agent_end");
  assert.equal(r.clean_exit, true);
  assert.equal(r.final.db_sha256, s.expect.db_sha256);
  assert.equal(r.final.user_db_sha256, s.expect.user_db_sha256);
  assert.equal(r.expect.db_sha256, s.expect.db_sha256);
  assert.deepEqual(r.participants, { agent: { kind: "oracle" }, user: { kind: "scripted" } });
  assert.equal(r.suite, "test_counter");
});

Deno.test("nothing sent to the agent reveals the expectations", async () => {
  const s = counterScenario({
    agent: { prompt: "You keep a counter.", tools: [], userdata: { caller: "Kim" } },
  });
  const seen: unknown[] = [];
  class Recording implements Participant {
    info = { kind: "recording" };
    inner = new NoopAgent();
    start(line: CallLine, setup: CallSetup) {
      seen.push(setup);
      return this.inner.start(line, setup);
    }
    onEvent(e: CallEvent) {
      seen.push(e);
      this.inner.onEvent(e);
    }
    close() {
      return Promise.resolve();
    }
  }
  await runTrial({
    scenario: s,
    key: trialKey(s.name, 0, "cfg"),
    root,
    limits,
    participants: {
      agent: () => Promise.resolve(new Recording()),
      user: () => Promise.resolve(new ScriptedUser({ opening: "Hi." })),
      deterministic: () => true,
    },
  });
  const wire = JSON.stringify(seen);
  assert.ok(wire.includes("You keep a counter."), "the agent gets its prompt");
  assert.ok(wire.includes("Kim"), "and its userdata");
  for (
    const secret of [
      s.expect.db_sha256!,
      s.expect.user_db_sha256!,
      "reference_actions",
      "press_button",
      '"n":2',
      "success_signals",
    ]
  ) {
    assert.ok(!wire.includes(secret), `the agent must not see ${secret}`);
  }
});

Deno.test("shards partition the trials exactly", () => {
  const all = planTrials(scenarios(20), 3, "cfg");
  const parts = [0, 1, 2, 3].map((index) =>
    planTrials(scenarios(20), 3, "cfg", { index, count: 4 })
  );
  const ids = parts.flat().map((p) => keyId(p.key)).sort();
  assert.deepEqual(ids, all.map((p) => keyId(p.key)).sort());
  assert.equal(new Set(ids).size, ids.length);
  assert.ok(parts.every((p) => p.length > 0));
});

Deno.test("each trial has its own seed, stable across runs", () => {
  const a = trialKey("x", 0, "cfg");
  assert.notEqual(a.seed, trialKey("x", 1, "cfg").seed);
  assert.deepEqual(a, trialKey("x", 0, "cfg"));
});

Deno.test("--out appends one line per trial; --resume skips what is there and drops a torn last line", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const got: TrialRecord[] = [];
    const base = {
      root,
      participants: oracle,
      configHash: "cfg",
      trials: 2,
      concurrency: 3,
      out: dir,
      limits,
      onRecord: (r: TrialRecord) => void got.push(r),
    };
    const first = await runTrials({ ...base, scenarios: scenarios(3) });
    assert.deepEqual(first, { planned: 6, skipped: 0, run: 6, errors: 0 });
    const path = join(dir, "trials.jsonl");
    // A run killed mid-write: a torn last line.
    const text = await Deno.readTextFile(path);
    const lines = text.trimEnd().split("\n");
    await Deno.writeTextFile(path, lines.slice(0, 4).join("\n") + "\n" + lines[4]!.slice(0, 50));
    got.length = 0;
    const second = await runTrials({ ...base, scenarios: scenarios(3), resume: true });
    assert.deepEqual(second, { planned: 6, skipped: 4, run: 2, errors: 0 });
    const final = (await Deno.readTextFile(path)).trimEnd().split("\n").map((l) =>
      JSON.parse(l) as TrialRecord
    );
    assert.equal(final.length, 6);
    assert.equal(new Set(final.map((r) => keyId(r.key))).size, 6);
    const transcripts = [...Deno.readDirSync(join(dir, "transcripts"))];
    assert.equal(transcripts.length, 6);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a participant that cannot be made fails that trial, not the run", async () => {
  const got: TrialRecord[] = [];
  const summary = await runTrials({
    scenarios: scenarios(2),
    root,
    configHash: "cfg",
    trials: 1,
    concurrency: 1,
    limits,
    onRecord: (r) => void got.push(r),
    participants: {
      agent: (s) =>
        s.name.endsWith("s0")
          ? Promise.reject(new Error("connection refused"))
          : Promise.resolve(new NoopAgent()),
      user: () => Promise.resolve(new ScriptedUser({})),
      deterministic: () => true,
    },
  });
  assert.equal(summary.errors, 1);
  assert.equal(got.find((r) => r.key.scenario.endsWith("s0"))!.error!.kind, "setup_error");
  assert.equal(got.find((r) => r.key.scenario.endsWith("s1"))!.status, "completed");
});

Deno.test("a scenario named twice runs its trials once", () => {
  const s = scenarios(2);
  assert.equal(planTrials([...s, s[0]!], 2, "cfg").length, 4);
});

Deno.test("long scenario names get short transcript files; lines that are not records are re-run", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const long = counterScenario({ name: `test_counter__${"very_long_issue_name_".repeat(20)}` });
    const got: TrialRecord[] = [];
    const base = {
      root,
      participants: oracle,
      configHash: "cfg",
      trials: 2,
      concurrency: 1,
      out: dir,
      limits,
      onRecord: (r: TrialRecord) => void got.push(r),
    };
    assert.equal((await runTrials({ ...base, scenarios: [long] })).run, 2);
    const names = [...Deno.readDirSync(join(dir, "transcripts"))].map((e) => e.name);
    assert.equal(names.length, 2);
    assert.ok(names.every((n) => n.length < 160), names.join());
    const path = join(dir, "trials.jsonl");
    const lines = (await Deno.readTextFile(path)).trimEnd().split("\n");
    await Deno.writeTextFile(path, `${lines[0]}\nnot a record\n`);
    const again = await runTrials({ ...base, scenarios: [long], resume: true });
    assert.deepEqual([again.skipped, again.run], [1, 1]);
    const final = (await Deno.readTextFile(path)).trimEnd().split("\n");
    assert.equal(final.length, 2);
    assert.ok(final.every((l) => JSON.parse(l).key.scenario === long.name));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an --out that is a file is an input error", async () => {
  const file = await Deno.makeTempFile();
  try {
    await assert.rejects(
      () =>
        runTrials({
          root,
          participants: oracle,
          configHash: "c",
          trials: 1,
          concurrency: 1,
          out: file,
          limits,
          scenarios: scenarios(1),
          onRecord: () => {},
        }),
      (e: Error) => e.name === "InputError" && /--out/.test(e.message),
    );
  } finally {
    await Deno.remove(file);
  }
});

import assert from "node:assert/strict";
import { join } from "node:path";
import { registerDomain } from "../domains/registry.ts";
import { counterDomain, counterScenario } from "../testing/counter_domain.ts";
import { DataRoot } from "../scenario/data_root.ts";
import { planTrials, type RunOptions, runTrials } from "./runner.ts";
import { runTrial } from "./run_trial.ts";
import { participantFactory } from "../participants/registry.ts";
import type { TrialRecord } from "./trial_record.ts";
import { keyId, trialKey } from "./trial_key.ts";
import type { InputError } from "../problem/problem.ts";
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

/** One oracle trial of one scenario into `out`, configuration `cfg`; tests override the rest. */
function outRun(out: string): RunOptions {
  return {
    root,
    participants: oracle,
    configHash: "cfg",
    trials: 1,
    concurrency: 1,
    out,
    limits,
    scenarios: scenarios(1),
    onRecord: () => {},
  };
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
      () => runTrials(outRun(file)),
      (e: InputError) =>
        e.name === "InputError" && e.problems[0]!.option === "out" &&
        /cannot use as an output folder/.test(e.message) && !/--/.test(e.message),
    );
  } finally {
    await Deno.remove(file);
  }
});

/** An agent that says `text` once and ends the call (a talkative or broken agent). */
class SayingAgent implements Participant {
  info = { kind: "saying" };
  #line?: CallLine;
  #done = false;
  constructor(readonly text: string, readonly times = 1) {}
  start(line: CallLine) {
    this.#line = line;
    return Promise.resolve();
  }
  onEvent(e: CallEvent) {
    if (this.#done || !(e.type === "speech" || (e.type === "call_start" && e.you_speak_first))) {
      return;
    }
    this.#done = true;
    for (let i = 0; i < this.times; i++) this.#line?.say(this.text);
    void this.#line?.callTool("end_conversation", {});
  }
  close() {
    return Promise.resolve();
  }
}

function readRecords(dir: string): TrialRecord[] {
  return Deno.readTextFileSync(join(dir, "trials.jsonl")).trimEnd().split("\n").map((l) =>
    JSON.parse(l) as TrialRecord
  );
}

Deno.test("a transcript lost by a kill between transcript and record is rewritten on resume", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const base = { ...outRun(dir), scenarios: scenarios(2) };
    await runTrials(base);
    const tdir = join(dir, "transcripts");
    const names = [...Deno.readDirSync(tdir)].map((e) => e.name).sort();
    assert.equal(names.length, 2);
    await Deno.remove(join(tdir, names[0]!));
    const again = await runTrials({ ...base, resume: true });
    assert.equal(again.run, 0);
    assert.deepEqual([...Deno.readDirSync(tdir)].map((e) => e.name).sort(), names);
    assert.match(Deno.readTextFileSync(join(tdir, names[0]!)), /^scenario: test_counter__s/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--retry-errors re-runs error trials on resume and their new line supersedes the old", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const failing = {
      agent: (s: { name: string }) =>
        s.name.endsWith("s0")
          ? Promise.reject(new Error("connection refused"))
          : Promise.resolve(new NoopAgent()),
      user: () => Promise.resolve(new ScriptedUser({})),
      deterministic: () => true,
    };
    const working = { ...failing, agent: () => Promise.resolve(new NoopAgent()) };
    const base = { ...outRun(dir), scenarios: scenarios(2) };
    assert.equal((await runTrials({ ...base, participants: failing })).errors, 1);
    // Plain --resume keeps the error: the trial is done.
    assert.equal((await runTrials({ ...base, participants: working, resume: true })).run, 0);
    const retried = await runTrials({
      ...base,
      participants: working,
      resume: true,
      retryErrors: true,
    });
    assert.deepEqual([retried.skipped, retried.run, retried.errors], [1, 1, 0]);
    const lines = readRecords(dir);
    assert.equal(lines.length, 2, "one line per trial key");
    assert.ok(lines.every((r) => r.status === "completed"));
    // Nothing left to retry.
    const again = await runTrials({
      ...base,
      participants: working,
      resume: true,
      retryErrors: true,
    });
    assert.equal(again.run, 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--out refuses a folder holding another configuration unless append", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const base = outRun(dir);
    await runTrials({ ...base, configHash: "cfg-a", label: "oracle-v1" });
    await assert.rejects(
      () => runTrials({ ...base, configHash: "cfg-b", resume: true }),
      (e: InputError) =>
        e.name === "InputError" && e.problems[0]!.code === "out_other_config" &&
        e.problems[0]!.option === "out" && !/--/.test(e.message) &&
        /another configuration \(config cfg-a, label "oracle-v1"\).*append/.test(e.message),
    );
    // The same configuration may resume; another one is added with append.
    assert.equal((await runTrials({ ...base, configHash: "cfg-a", resume: true })).run, 0);
    assert.equal((await runTrials({ ...base, configHash: "cfg-b", append: true })).run, 1);
    const records = readRecords(dir);
    assert.deepEqual(records.map((r) => [r.key.config_hash, r.label]), [
      ["cfg-a", "oracle-v1"],
      ["cfg-b", undefined],
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an aborted run starts no more trials and writes none that end after the abort", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const stop = new AbortController();
    const got: TrialRecord[] = [];
    const summary = await runTrials({
      ...outRun(dir),
      scenarios: scenarios(5),
      signal: stop.signal,
      onRecord: (r) => {
        got.push(r);
        if (got.length === 2) stop.abort();
      },
    });
    assert.equal(got.length, 2);
    assert.equal(summary.run, 2);
    assert.equal(readRecords(dir).length, 2);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("records carry the callbench version and label; long turns are cut with a marker and a count", async () => {
  const { CALLBENCH_VERSION } = await import("./version.ts");
  const { MAX_TURN_CHARS } = await import("./record_bounds.ts");
  const s = counterScenario();
  const big = "x".repeat(1_000_000);
  const r = await runTrial({
    scenario: s,
    key: trialKey(s.name, 0, "cfg"),
    root,
    label: "talkative",
    limits,
    participants: {
      agent: () => Promise.resolve(new SayingAgent(big)),
      user: () => Promise.resolve(new ScriptedUser({ opening: "Hi." })),
      // Untimed speech: on the simulated clock a 1 MB utterance outlasts the call.
      deterministic: () => false,
    },
  });
  const denoJson = JSON.parse(Deno.readTextFileSync("deno.json"));
  assert.equal(r.callbench_version, denoJson.version);
  assert.equal(CALLBENCH_VERSION, denoJson.version);
  assert.equal(r.label, "talkative");
  const turn = r.turns.find((t) => t.speaker === "agent" && t.text.startsWith("xxx"))!;
  assert.equal(turn.truncated_chars, 1_000_000 - MAX_TURN_CHARS);
  assert.ok(turn.text.endsWith(`[truncated ${1_000_000 - MAX_TURN_CHARS} chars]`));
  assert.ok(JSON.stringify(r).length < 100_000);
});

Deno.test("a run's admit hook is awaited before each trial starts: a held gate starts no trial", async () => {
  const waiting: (() => void)[] = [];
  let bothWaiting!: () => void;
  const lanesHeld = new Promise<void>((r) => bothWaiting = r);
  let held = true;
  let admits = 0;
  const records: TrialRecord[] = [];
  const run = runTrials({
    ...outRun(""),
    out: undefined,
    scenarios: scenarios(3),
    concurrency: 2,
    admit: async () => {
      admits++;
      if (!held) return;
      if (waiting.length === 1) bothWaiting();
      await new Promise<void>((r) => waiting.push(r));
    },
    onRecord: (r) => void records.push(r),
  });
  await lanesHeld;
  assert.equal(records.length, 0, "no trial ran while the gate held both lanes");
  held = false;
  for (const w of waiting) w();
  await run;
  assert.equal(records.length, 3);
  assert.equal(admits, 3, "once per trial");
});

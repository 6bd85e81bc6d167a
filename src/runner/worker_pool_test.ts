import assert from "node:assert/strict";
import { join } from "node:path";
import { BUNDLED_DATA_ROOT, DataRoot } from "../scenario/data_root.ts";
import { selectScenarios } from "../scenario/suites.ts";
import { participantFactory, type ParticipantOptions } from "../participants/registry.ts";
import { type RunOptions, runTrials } from "./runner.ts";
import type { TrialRecord } from "./trial_record.ts";
import { keyId } from "./trial_key.ts";
import { loadAverage, workersPayOffAt } from "./worker_count.ts";

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

/**
 * An RTVI bot on loopback: it says goodbye and ends each call at once, except the
 * calls of `silentFor` (it answers their setup and then says nothing).
 */
function quickBot(silentFor: string) {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const { socket, response } = Deno.upgradeWebSocket(req);
    let scenario = "";
    const send = (type: string, data: unknown, id?: string) =>
      socket.send(JSON.stringify({ label: "rtvi-ai", type, ...(id ? { id } : {}), data }));
    socket.onmessage = (e) => {
      const msg = JSON.parse(String(e.data));
      if (msg.type === "client-ready") send("bot-ready", { version: "2.1.0" }, msg.id);
      if (msg.type !== "client-message") return;
      if (msg.data.t === "update_system_prompt") scenario = msg.data.d.scenario;
      if (msg.data.t !== "call_event") {
        return send("server-response", { t: msg.data.t, d: true }, msg.id);
      }
      if (msg.data.d?.type !== "call_start" || scenario === silentFor) return;
      send("bot-output", { text: "Goodbye.", spoken: true });
      send("server-message", { type: "end", reason: "done" });
    };
    return response;
  });
  return { url: `ws://127.0.0.1:${server.addr.port}/ws`, close: () => server.shutdown() };
}

Deno.test("workers: a trial that runs away with memory ends its Worker (heap limit), not the process; the run goes on", async () => {
  const three = scenarios.filter((s) => s.domain === "eva_airline").slice(0, 3);
  const victim = three[1]!.name;
  const bot = quickBot(victim);
  const remote: ParticipantOptions = { ...oracle, agent: bot.url };
  const got: TrialRecord[] = [];
  try {
    const summary = await runTrials(options({
      scenarios: three,
      participants: participantFactory(remote),
      concurrency: 2,
      trials: 1,
      onRecord: (r) => void got.push(r),
      workers: {
        count: 2,
        participants: remote,
        heapLimitMb: 64,
        modules: [
          // The victim's Worker allocates 40 MB a tick while its call waits for the bot.
          hook(
            `if (key.scenario === ${JSON.stringify(victim)}) { const keep = []; ` +
              `setInterval(() => { for (let i = 0; i < 40000; i++) keep.push("x".repeat(1000) + i); }, 0); }`,
          ),
        ],
      },
    }));
    assert.equal(got.length, three.length);
    assert.equal(summary.errors, 1, JSON.stringify(got.map((r) => r.error)));
    const broken = got.filter((r) => r.status === "error");
    assert.deepEqual(broken.map((r) => r.key.scenario), [victim]);
    assert.equal(broken[0]!.error!.kind, "harness_error");
    assert.match(broken[0]!.error!.message, /ran out of memory \(its heap limit is 64 MB\)/);
  } finally {
    await bot.close();
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

Deno.test("workers: a Worker runs the scenarios it is sent; it selects nothing (a data root with only the worlds)", async () => {
  // The Worker's data root holds the worlds and nothing a suite could load from, and
  // one scenario is edited in memory: the Worker must run exactly what it is sent.
  const dir = await Deno.makeTempDir();
  try {
    for (const s of scenarios) {
      for (const w of [s.world.db, s.world.user_db]) {
        if (!w || !("path" in w)) continue;
        const stem = w.path.replace(/\.json$/, "");
        const file = root.exists(`${stem}.json`) ? `${stem}.json` : stem;
        await Deno.mkdir(join(dir, file, ".."), { recursive: true });
        await new Deno.Command("cp", { args: ["-r", root.resolve(file), join(dir, file)] })
          .output();
      }
    }
    const bare = new DataRoot(dir);
    assert.equal((await selectScenarios(bare, {})).scenarios.length, 0, "no suite in the root");
    const edited = scenarios.map((s, i) =>
      i === 0 ? { ...s, expect: { ...s.expect, db_sha256: "0".repeat(64) } } : s
    );
    const inProcess: TrialRecord[] = [];
    await runTrials(options({ scenarios: edited, onRecord: (r) => void inProcess.push(r) }));
    const pooled: TrialRecord[] = [];
    await runTrials(options({
      scenarios: edited,
      root: bare,
      onRecord: (r) => void pooled.push(r),
      workers: { count: 2, participants: oracle },
    }));
    assert.equal(pooled.length, scenarios.length * 2);
    const verdicts = (rs: TrialRecord[]) =>
      new Map(
        rs.map((r) => [keyId(r.key), JSON.stringify([r.status, r.final, r.assertions, r.expect])]),
      );
    assert.deepEqual(verdicts(pooled), verdicts(inProcess));
    // The edited expectation reached the Worker (the run's records carry it).
    const first = pooled.filter((r) => r.key.scenario === edited[0]!.name);
    assert.ok(first.length === 2 && first.every((r) => r.expect.db_sha256 === "0".repeat(64)));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("workers: a Worker that cannot start is refused before any trial", async () => {
  await assert.rejects(
    () =>
      runTrials(options({
        onRecord: () => assert.fail("no trial may run"),
        workers: { count: 2, participants: oracle, modules: ["file:///nonexistent/domain.ts"] },
      })),
    /a trial worker could not start/,
  );
});

Deno.test("workers: left to the default rule, a small run and a real-clock run stay in-process; a big deterministic one uses Workers", async () => {
  // A module no Worker can import: a run that starts Workers is refused, so a run that
  // completes ran in-process.
  const broken = ["file:///nonexistent/domain.ts"];
  const auto = { count: 2, auto: true, participants: oracle, modules: broken };
  const small: TrialRecord[] = [];
  await runTrials(options({ workers: auto, onRecord: (r) => void small.push(r) }));
  assert.equal(small.length, scenarios.length * 2);
  const big = Math.ceil(workersPayOffAt(2) / scenarios.length);
  // Run with --allow-sys, a busy machine keeps even a big run in-process (worker_count_test).
  const load = loadAverage();
  const idle = load === undefined || load <= 1;
  if (idle) {
    await assert.rejects(
      () =>
        runTrials(options({
          trials: big,
          workers: auto,
          onRecord: () => assert.fail("no trial may run"),
        })),
      /a trial worker could not start/,
    );
  }
  // The same big run, its calls on the real clock: in-process (stopped after one).
  const stop = new AbortController();
  const real: TrialRecord[] = [];
  await runTrials(options({
    trials: big,
    participants: { ...participantFactory(oracle), deterministic: () => false },
    workers: auto,
    signal: stop.signal,
    onRecord: (r) => {
      real.push(r);
      stop.abort();
    },
  }));
  assert.equal(real.length, 1);
  assert.equal(real[0]!.clock, "real");
});

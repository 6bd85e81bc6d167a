/**
 * Whole-call throughput: every eva and tau2 scenario of a data root played by the
 * oracle agent against the scripted caller, in-process (simulated clock) and through
 * `serve` over loopback WebSocket, with the harness's wall-clock cost per relayed turn.
 *
 *   deno task bench:calls            (EVAL_DATA_ROOT, else ../shared/datasets, else fixtures)
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { cpuUsage } from "node:process";
import { DataRoot } from "../src/scenario/data_root.ts";
import { selectScenarios } from "../src/scenario/suites.ts";
import { defaultGoldCacheDir } from "../src/scenario/gold_cache.ts";
import { participantFactory } from "../src/participants/registry.ts";
import { planTrials, runTrials } from "../src/runner/runner.ts";
import { TrialPool } from "../src/runner/worker_pool.ts";
import type { TrialRecord } from "../src/runner/trial_record.ts";
import { serve } from "../src/server/serve.ts";
import { builtinFactory } from "../src/commands/serve.ts";

const candidates = [
  Deno.env.get("EVAL_DATA_ROOT"),
  fileURLToPath(new URL("../../shared/datasets", import.meta.url)),
  fileURLToPath(new URL("../fixtures", import.meta.url)),
].filter((p): p is string => !!p);
const rootPath = candidates.find((p) => {
  try {
    return Deno.statSync(p).isDirectory;
  } catch {
    return false;
  }
})!;
const root = new DataRoot(rootPath);
const selectStart = performance.now();
const { scenarios } = await selectScenarios(root, {});
const selectMs = performance.now() - selectStart;
const limits = { silenceMs: 30_000, maxTurns: 400 };

async function run(
  agent: string,
  concurrency: number,
  workers = 1,
  trials = 1,
): Promise<Measured> {
  const records: TrialRecord[] = [];
  const options = { agent, user: "scripted", agentModel: {}, userModel: {} };
  const t0 = performance.now();
  const cpu0 = cpuUsage();
  await runTrials({
    scenarios,
    root,
    participants: participantFactory(options),
    configHash: `bench-${agent}`,
    trials,
    concurrency,
    limits,
    onRecord: (r) => void records.push(r),
    ...(workers > 1 ? { workers: { count: workers, participants: options } } : {}),
  });
  return { records, seconds: (performance.now() - t0) / 1000, cpu: cpuSince(cpu0) };
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? NaN;
}

/** A pass: its records, wall seconds and CPU seconds of the whole process (all threads). */
interface Measured {
  records: TrialRecord[];
  seconds: number;
  cpu: number;
}

/** CPU seconds (user + system) of the process since `from`, every thread included. */
function cpuSince(from: NodeJS.CpuUsage): number {
  const d = cpuUsage(from);
  return (d.user + d.system) / 1e6;
}

function report(label: string, { records, seconds, cpu }: Measured) {
  const perTurn = records.filter((r) => r.turns.length > 0).map((r) =>
    r.timings.call_ms / r.turns.length
  )
    .sort((a, b) => a - b);
  const turns = records.reduce((n, r) => n + r.turns.length, 0);
  console.log(
    `${label.padEnd(34)} ${records.length} trials, ${turns} turns in ${seconds.toFixed(2)} s: ` +
      `${(records.length / seconds).toFixed(1)} trials/s, CPU ${
        (1000 * cpu / records.length).toFixed(2)
      } ms/trial; harness ms per relayed turn ` +
      `p50 ${quantile(perTurn, 0.5).toFixed(3)} p99 ${quantile(perTurn, 0.99).toFixed(3)}`,
  );
}

console.log(
  `data root: ${rootPath} (${scenarios.length} scenarios; selection and expected states ` +
    `${selectMs.toFixed(0)} ms, gold cache ${defaultGoldCacheDir() ? "on" : "off"})`,
);
// The first pass is a cold process's (JIT, worlds, per-scenario caches), as a Worker's is.
report("in-process, concurrency 8, cold (first pass)", await run("oracle", 8));
report("in-process (--workers 1), concurrency 1", await run("oracle", 1));
report("in-process (--workers 1), concurrency 8", await run("oracle", 8));
// Workers: start-up (from `new Worker` to ready: module graph, then the Worker's own
// parse of the worlds; it is sent the scenarios, so it selects nothing and replays no
// gold) apart from steady-state trials/s (every trial sent once all are ready).
const cores = navigator.hardwareConcurrency;
async function pooled(count: number, concurrency: number): Promise<void> {
  const options = { agent: "oracle", user: "scripted", agentModel: {}, userModel: {} };
  const t0 = performance.now();
  const pool = new TrialPool({
    count,
    setup: {
      dataRoot: root.path,
      scenarios,
      participants: options,
      trial: { limits },
      modules: [],
    },
  });
  await pool.ready();
  const startMs = performance.now() - t0;
  const parts = pool.startups.map((s) =>
    `module ${s.moduleMs.toFixed(0)} + init ${s.initMs.toFixed(0)} = ${s.readyMs.toFixed(0)} ms`
  ).join("; ");
  const todo = planTrials(scenarios, 1, "bench-pool");
  const records: TrialRecord[] = [];
  const t1 = performance.now();
  const cpu1 = cpuUsage();
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < todo.length) records.push(await pool.run(todo[next++]!));
  }));
  const seconds = (performance.now() - t1) / 1000;
  pool.close();
  console.log(
    `workers ${count} (${cores} cores), c${concurrency}: start-up ${
      startMs.toFixed(0)
    } ms (${parts})`,
  );
  report(`workers ${count}, c${concurrency}, steady state`, {
    records,
    seconds,
    cpu: cpuSince(cpu1),
  });
}
await pooled(2, 2);
await pooled(2, 8);
// As an eval run would: start-up included.
report(`workers 2 (${cores} cores), concurrency 8, with start-up`, await run("oracle", 8, 2));
// Three trials per scenario: the Workers' start-up weighs less.
report("in-process (--workers 1), c8, 3 trials", await run("oracle", 8, 1, 3));
report(`workers 2 (${cores} cores), c8, 3 trials`, await run("oracle", 8, 2, 3));
const server = serve({
  hostname: "127.0.0.1",
  port: 0,
  factory: builtinFactory(root),
  dataRoot: root,
});
try {
  report("WebSocket (JSON), concurrency 8", await run(`${server.url}?agent=oracle`, 8));
  report(
    "WebSocket (protobuf), concurrency 8",
    await run(`${server.url}?agent=oracle&framing=protobuf`, 8),
  );
} finally {
  await server.shutdown();
}

/**
 * Whole-call throughput: every eva and tau2 scenario of a data root played by the
 * oracle agent against the scripted caller, in-process (simulated clock) and through
 * `serve` over loopback WebSocket, with the harness's wall-clock cost per relayed turn.
 *
 *   deno run ... scripts/bench_calls.ts   (EVAL_DATA_ROOT, else ../shared/datasets, else fixtures)
 *
 * `deno task bench:calls` runs `bench_goals.ts`, which uses these passes for the rows
 * of its goals table; run this file alone for the detailed passes.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { DataRoot } from "../src/scenario/data_root.ts";
import { selectScenarios } from "../src/scenario/suites.ts";
import type { Scenario } from "../src/scenario/scenario.ts";
import { participantFactory } from "../src/participants/registry.ts";
import { planTrials, runTrials } from "../src/runner/runner.ts";
import { TrialPool } from "../src/runner/worker_pool.ts";
import type { TrialRecord } from "../src/runner/trial_record.ts";
import { serve } from "../src/server/serve.ts";
import { builtinFactory } from "../src/commands/serve.ts";

/** The data root the benchmarks use: EVAL_DATA_ROOT, else ../shared/datasets, else fixtures. */
export function benchRootPath(): string {
  const candidates = [
    Deno.env.get("EVAL_DATA_ROOT"),
    fileURLToPath(new URL("../../shared/datasets", import.meta.url)),
    fileURLToPath(new URL("../fixtures", import.meta.url)),
  ].filter((p): p is string => !!p);
  return candidates.find((p) => {
    try {
      return Deno.statSync(p).isDirectory;
    } catch {
      return false;
    }
  })!;
}

/** The data root and every eva and tau2 scenario in it. */
export interface CallBench {
  root: DataRoot;
  scenarios: Scenario[];
}

/** Opens the bench data root and selects all its scenarios. */
export async function openCallBench(path = benchRootPath()): Promise<CallBench> {
  const root = new DataRoot(path);
  const { scenarios } = await selectScenarios(root, {});
  return { root, scenarios };
}

const limits = { silenceMs: 30_000, maxTurns: 400 };

/** One pass: the records and the wall time it took. */
export interface Pass {
  records: TrialRecord[];
  seconds: number;
}

/** Plays every scenario `trials` times with `agent` (a built-in name or a ws:// url). */
export async function runPass(
  bench: CallBench,
  agent: string,
  concurrency: number,
  workers = 1,
  trials = 1,
): Promise<Pass> {
  const records: TrialRecord[] = [];
  const options = { agent, user: "scripted", agentModel: {}, userModel: {} };
  const t0 = performance.now();
  await runTrials({
    scenarios: bench.scenarios,
    root: bench.root,
    participants: participantFactory(options),
    configHash: `bench-${agent}`,
    trials,
    concurrency,
    limits,
    onRecord: (r) => void records.push(r),
    ...(workers > 1 ? { workers: { count: workers, participants: options } } : {}),
  });
  return { records, seconds: (performance.now() - t0) / 1000 };
}

/** The `q` quantile of sorted numbers (nearest rank below). */
export function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? NaN;
}

/** A pass's figures: trials/s and the harness's wall-clock ms per relayed turn (per trial). */
export function passFigures(
  { records, seconds }: Pass,
): { trials: number; turns: number; perSecond: number; p50: number; p99: number } {
  const perTurn = records.filter((r) => r.turns.length > 0)
    .map((r) => r.timings.call_ms / r.turns.length)
    .sort((a, b) => a - b);
  return {
    trials: records.length,
    turns: records.reduce((n, r) => n + r.turns.length, 0),
    perSecond: records.length / seconds,
    p50: quantile(perTurn, 0.5),
    p99: quantile(perTurn, 0.99),
  };
}

/** Serves the built-in agents on loopback for the length of `body`. */
export async function withServer<T>(
  bench: CallBench,
  body: (url: string) => Promise<T>,
): Promise<T> {
  const server = await serve({
    hostname: "127.0.0.1",
    port: 0,
    factory: builtinFactory(bench.root),
    dataRoot: bench.root,
  });
  try {
    return await body(server.url);
  } finally {
    await server.shutdown();
  }
}

function report(label: string, pass: Pass) {
  const f = passFigures(pass);
  console.log(
    `${label.padEnd(34)} ${f.trials} trials, ${f.turns} turns in ${pass.seconds.toFixed(2)} s: ` +
      `${f.perSecond.toFixed(1)} trials/s; harness ms per relayed turn ` +
      `p50 ${f.p50.toFixed(3)} p99 ${f.p99.toFixed(3)}`,
  );
}

async function main() {
  const bench = await openCallBench();
  const { root, scenarios } = bench;
  console.log(`data root: ${root.path} (${scenarios.length} scenarios)`);
  await runPass(bench, "oracle", 8); // warm-up: parse worlds, compile
  report("in-process (--workers 1), concurrency 1", await runPass(bench, "oracle", 1));
  report("in-process (--workers 1), concurrency 8", await runPass(bench, "oracle", 8));
  // Each pass starts its Workers, which load the selection and parse the worlds
  // themselves: the first figure includes that start-up, as an eval run would.
  const cores = navigator.hardwareConcurrency;
  report(
    `workers 2 (${cores} cores), concurrency 2, with start-up`,
    await runPass(bench, "oracle", 2, 2),
  );
  report(
    `workers 2 (${cores} cores), concurrency 8, with start-up`,
    await runPass(bench, "oracle", 8, 2),
  );
  // Workers: start-up (from `new Worker` to ready: module graph, then the Worker's own
  // parse of the worlds; it is sent the scenarios, so it selects nothing and replays no
  // gold) apart from steady-state trials/s (every trial sent once all are ready).
  for (const concurrency of [2, 8]) {
    const options = { agent: "oracle", user: "scripted", agentModel: {}, userModel: {} };
    const t0 = performance.now();
    const pool = new TrialPool({
      count: 2,
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
    let next = 0;
    await Promise.all(Array.from({ length: concurrency }, async () => {
      while (next < todo.length) records.push(await pool.run(todo[next++]!));
    }));
    const seconds = (performance.now() - t1) / 1000;
    pool.close();
    console.log(
      `workers 2 (${cores} cores), c${concurrency}: start-up ${startMs.toFixed(0)} ms (${parts})`,
    );
    report(`workers 2, c${concurrency}, steady state`, { records, seconds });
  }
  // Three trials per scenario: the Workers' start-up weighs less.
  report("in-process (--workers 1), c8, 3 trials", await runPass(bench, "oracle", 8, 1, 3));
  report(`workers 2 (${cores} cores), c8, 3 trials`, await runPass(bench, "oracle", 8, 2, 3));
  await withServer(bench, async (url) => {
    report("WebSocket (JSON), concurrency 8", await runPass(bench, `${url}?agent=oracle`, 8));
    report(
      "WebSocket (protobuf), concurrency 8",
      await runPass(bench, `${url}?agent=oracle&framing=protobuf`, 8),
    );
  });
}

if (import.meta.main) await main();

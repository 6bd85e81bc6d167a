/**
 * Whole-call throughput: every eva and tau2 scenario of a data root played by the
 * oracle agent against the scripted caller, in-process (simulated clock) and through
 * `serve` over loopback WebSocket: trials/s (wall), and each relayed turn's wall time
 * (from the caller's utterance reaching the agent's end to the agent's next act; no
 * handshake or setup in it), besides a trial's call time over its turns.
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
import type { ParticipantFactory } from "../src/participants/participant_factory.ts";
import type { CallLine, Participant } from "../src/bridge/call.ts";
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

/** One pass: the records, the wall time it took, and each relayed turn's wall time. */
export interface Pass {
  records: TrialRecord[];
  seconds: number;
  /**
   * Per agent turn, wall ms from the caller's utterance reaching the agent's end to the
   * agent's next act (its reply, a tool call, a key or the hang-up): the call's
   * handshake and the trial's setup are not in it.
   */
  turnMs: number[];
}

/**
 * The factory's agents, timed: each caller utterance handed to the agent starts a
 * turn, which its next act on the line ends (wall time, `performance.now()`).
 */
export function timedAgents(inner: ParticipantFactory, turnMs: number[]): ParticipantFactory {
  return {
    deterministic: (s) => inner.deterministic(s),
    user: (s, setup) => inner.user(s, setup),
    async agent(s, setup) {
      const agent = await inner.agent(s, setup);
      let heardAt: number | undefined;
      const acted = () => {
        if (heardAt === undefined) return;
        turnMs.push(performance.now() - heardAt);
        heardAt = undefined;
      };
      const timed: Participant = {
        get info() {
          return agent.info;
        },
        start(line, callSetup) {
          const acts: Partial<CallLine> = {
            say: (...a) => (acted(), line.say(...a)),
            callTool: (...a) => (acted(), line.callTool(...a)),
            press: (keys) => (acted(), line.press(keys)),
            hangUp: (...a) => (acted(), line.hangUp(...a)),
          };
          // Everything else is the line's own (bound: it may keep private fields).
          const wrapped = new Proxy(line, {
            get(target, key) {
              const own = acts[key as keyof CallLine];
              if (own) return own;
              const v = Reflect.get(target, key, target);
              return typeof v === "function" ? v.bind(target) : v;
            },
          });
          return agent.start(wrapped, callSetup);
        },
        onEvent(event) {
          if (event.type === "speech") heardAt = performance.now();
          agent.onEvent(event);
        },
        close: () => agent.close(),
        ...(agent.worldReport ? { worldReport: () => agent.worldReport!() } : {}),
        ...(agent.applySyncDelta ? { applySyncDelta: (d) => agent.applySyncDelta!(d) } : {}),
        ...(agent.flowTrace ? { flowTrace: () => agent.flowTrace!() } : {}),
      };
      return timed;
    },
  };
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
  const turnMs: number[] = [];
  const options = { agent, user: "scripted", agentModel: {}, userModel: {} };
  const t0 = performance.now();
  await runTrials({
    scenarios: bench.scenarios,
    root: bench.root,
    // On Workers the agents are made there: no per-turn times (the rate is the figure).
    participants: timedAgents(participantFactory(options), turnMs),
    configHash: `bench-${agent}`,
    trials,
    concurrency,
    limits,
    onRecord: (r) => void records.push(r),
    ...(workers > 1 ? { workers: { count: workers, participants: options } } : {}),
  });
  return { records, seconds: (performance.now() - t0) / 1000, turnMs };
}

/**
 * Every scenario `trials` times on a pool of `workers` Workers: the pool is started
 * and ready before the clock starts, so `seconds` is the measured wall time of the
 * trials alone; `startupMs` is the pool's start-up.
 */
export async function poolPass(
  bench: CallBench,
  workers: number,
  concurrency: number,
  trials = 1,
): Promise<Pass & { startupMs: number; startups: TrialPool["startups"] }> {
  const options = { agent: "oracle", user: "scripted", agentModel: {}, userModel: {} };
  const t0 = performance.now();
  const pool = new TrialPool({
    count: workers,
    setup: {
      dataRoot: bench.root.path,
      scenarios: bench.scenarios,
      participants: options,
      trial: { limits },
      modules: [],
    },
  });
  try {
    await pool.ready();
    const startupMs = performance.now() - t0;
    const todo = planTrials(bench.scenarios, trials, "bench-pool");
    const records: TrialRecord[] = [];
    const t1 = performance.now();
    let next = 0;
    await Promise.all(Array.from({ length: concurrency }, async () => {
      while (next < todo.length) records.push(await pool.run(todo[next++]!));
    }));
    const seconds = (performance.now() - t1) / 1000;
    return { records, seconds, turnMs: [], startupMs, startups: pool.startups };
  } finally {
    pool.close();
  }
}

/** The `q` quantile of sorted numbers (nearest rank below). */
export function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? NaN;
}

/**
 * A pass's figures: trials/s; each relayed turn's wall ms (p50/p99 over every turn of
 * the pass, see {@link Pass.turnMs}); and, named as what it is, a trial's call time
 * over its turns (handshake included), p50/p99 over trials.
 */
export function passFigures({ records, seconds, turnMs }: Pass): {
  trials: number;
  turns: number;
  perSecond: number;
  p50: number;
  p99: number;
  callPerTurnP50: number;
  callPerTurnP99: number;
} {
  const perTurn = [...turnMs].sort((a, b) => a - b);
  const callPerTurn = records.filter((r) => r.turns.length > 0)
    .map((r) => r.timings.call_ms / r.turns.length)
    .sort((a, b) => a - b);
  return {
    trials: records.length,
    turns: records.reduce((n, r) => n + r.turns.length, 0),
    perSecond: records.length / seconds,
    p50: quantile(perTurn, 0.5),
    p99: quantile(perTurn, 0.99),
    callPerTurnP50: quantile(callPerTurn, 0.5),
    callPerTurnP99: quantile(callPerTurn, 0.99),
  };
}

/** Serves the built-in agents on loopback for the length of `body`. */
export async function withServer<T>(
  bench: CallBench,
  body: (url: string) => Promise<T>,
): Promise<T> {
  const server = serve({
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
  const perTurn = pass.turnMs.length === 0
    ? ""
    : `; ms per relayed turn p50 ${f.p50.toFixed(3)} p99 ${f.p99.toFixed(3)}`;
  console.log(
    `${label.padEnd(34)} ${f.trials} trials, ${f.turns} turns in ${pass.seconds.toFixed(2)} s: ` +
      `${f.perSecond.toFixed(1)} trials/s${perTurn}; call ms / turns per trial ` +
      `p50 ${f.callPerTurnP50.toFixed(3)} p99 ${f.callPerTurnP99.toFixed(3)}`,
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
    const p = await poolPass(bench, 2, concurrency);
    const parts = p.startups.map((s) =>
      `module ${s.moduleMs.toFixed(0)} + init ${s.initMs.toFixed(0)} = ${s.readyMs.toFixed(0)} ms`
    ).join("; ");
    console.log(
      `workers 2 (${cores} cores), c${concurrency}: start-up ${
        p.startupMs.toFixed(0)
      } ms (${parts})`,
    );
    report(`workers 2, c${concurrency}, steady state`, p);
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

/**
 * Real-time audio calls over loopback at several concurrencies: N concurrent
 * `eval --audio`-style calls (20 s each) between the scripted caller and the stand-in
 * pipecat-style bot (`src/transport/_standin_agent.ts`), which runs in a process of
 * its own (a fresh one per row), so what is measured is callbench alone.
 *
 * Each row reports the caller side's pacer lateness pooled over every chunk of every
 * call (p50/p99/max; the goal is p99 < 5 ms), the chunks the pacers sent against the
 * chunks their grids made due (100% is the goal), the chunks the stand-in heard, the
 * cores callbench used (its CPU time over the row's wall time; goal < 1.2) and its CPU
 * per chunk sent (what a shared machine distorts least), the load average, and the
 * share of the row's wall time some task on the machine waited for a CPU (Linux's
 * `/proc/pressure/cpu`; a late chunk on a machine near 100% is the machine's, not
 * callbench's cost).
 *
 *   deno task bench:audio:realtime [--calls 10,50,100,200] [--seconds 20]
 *     [--framing protobuf,json,twilio] [--workers W] [--lockstep] [--json]
 *
 * The calls start spread over 2 s and open with 3 to 9 words, so they drift apart as
 * a suite's calls do; `--lockstep` starts them within half a second saying the same
 * words, so all of them turn at once for the whole row (the worst case, and what the
 * rows measured before this option).
 *
 * `--workers W` shares each row's calls out over W Workers (each with its own pacers,
 * ticker and sockets), as a real-time run can on a machine with W cores.
 *
 * @module
 */
import { parseArgs } from "node:util";
import process from "node:process";
import { LatenessMeter } from "../src/audio/lateness.ts";
import { spawnStandin } from "../src/transport/_standin_process.ts";
import {
  type BenchFraming,
  type CallsDone,
  type CallsJob,
  runCalls,
} from "./_bench_audio_calls.ts";

const { values } = parseArgs({
  options: {
    calls: { type: "string", default: "10,50,100,200" },
    seconds: { type: "string", default: "20" },
    framing: { type: "string", default: "protobuf" },
    workers: { type: "string", default: "1" },
    json: { type: "boolean", default: false },
    lockstep: { type: "boolean", default: false },
  },
});
const concurrencies = values.calls.split(",").map(Number);
const seconds = Number(values.seconds);
const workers = Math.max(1, Number(values.workers));
const framings = values.framing.split(",") as BenchFraming[];
for (const f of framings) {
  if (!["json", "protobuf", "twilio"].includes(f)) throw new Error(`unknown framing ${f}`);
}
// Enough lines that the bot keeps answering until the duration limit.
const lines = Array.from(
  { length: 200 },
  (_, i) => i === 0 ? "Hello, this is the bot. What can I do?" : `Alright, noted item ${i}.`,
);

/** One row of the table. */
interface Row {
  framing: string;
  calls: number;
  workers: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  chunks_sent: number;
  chunks_due: number;
  /** Caller audio chunks the stand-in heard. */
  chunks_heard: number;
  errors: number;
  cores: number;
  cpu_us_per_chunk: number;
  wall_s: number;
  load_average: number[];
  /** Share of the wall time some task waited for a CPU (Linux PSI), when readable. */
  cpu_pressure: number | null;
}

/** Linux's cumulative CPU-pressure stall time, µs (null where there is none). */
function cpuStallUs(): number | null {
  try {
    const m = /some .*total=(\d+)/.exec(Deno.readTextFileSync("/proc/pressure/cpu"));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

/** A share of the calls on a Worker of its own (its own pacers, ticker and sockets). */
function onWorker(job: CallsJob): Promise<CallsDone> {
  const w = new Worker(new URL("./_bench_audio_calls.ts", import.meta.url), { type: "module" });
  return new Promise<CallsDone>((resolve, reject) => {
    w.onmessage = (e: MessageEvent<CallsDone>) => {
      w.terminate();
      resolve(e.data);
    };
    w.onerror = (e) => {
      w.terminate();
      reject(new Error(e.message));
    };
    w.postMessage(job);
  });
}

async function row(framing: BenchFraming, calls: number): Promise<Row> {
  const standin = await spawnStandin({ lines });
  const url = framing === "twilio" ? standin.twilioUrl : standin.url;
  const cpu0 = process.cpuUsage();
  const stall0 = cpuStallUs();
  const wall0 = performance.now();
  // The calls in this thread, or shared out over Workers.
  const shares = workers === 1 ? [calls] : Array.from(
    { length: workers },
    (_, w) => Math.floor(calls / workers) + (w < calls % workers ? 1 : 0),
  );
  let first = 0;
  const jobs = shares.map((n) => {
    const job: CallsJob = { framing, url, calls: n, seconds, first, lockstep: values.lockstep };
    first += n;
    return job;
  });
  const done = await Promise.all(jobs.map((j) => workers === 1 ? runCalls(j) : onWorker(j)));
  const wallS = (performance.now() - wall0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const stall1 = cpuStallUs();
  const pooled = new LatenessMeter({ recent: false });
  for (const d of done) pooled.addTotals(d.late);
  const late = pooled.summary();
  const errors = done.flatMap((d) => d.errors);
  const heard = (await standin.stats()).reduce((n, s) => n + s.chunks, 0);
  await standin.close();
  const cpuS = (cpu.user + cpu.system) / 1e6;
  const r2 = (x: number) => Math.round(x * 100) / 100;
  if (errors.length > 0) console.error(`${framing} x${calls}: ${errors[0]}`);
  return {
    framing,
    calls,
    workers,
    p50_ms: late.p50,
    p99_ms: late.p99,
    max_ms: late.max,
    chunks_sent: pooled.chunksSent,
    chunks_due: pooled.chunksDue,
    chunks_heard: heard,
    errors: errors.length,
    cores: r2(cpuS / wallS),
    cpu_us_per_chunk: Math.round((cpuS * 1e6) / Math.max(1, late.count)),
    wall_s: Math.round(wallS * 10) / 10,
    load_average: Deno.loadavg().map((x) => Math.round(x * 10) / 10),
    cpu_pressure: stall0 === null || stall1 === null
      ? null
      : Math.round((stall1 - stall0) / (wallS * 1e4)) / 100,
  };
}

if (!values.json) {
  console.log(
    `${seconds} s calls on ${workers === 1 ? "the main thread" : `${workers} Workers`}; ` +
      "pacer lateness pooled over every chunk of callbench's pacers; stand-in bot in its own process",
  );
  console.log(
    "framing   calls  p50 ms  p99 ms  max ms  sent/due          heard    err  cores  µs CPU/chunk  CPU wait  load",
  );
}
for (const framing of framings) {
  for (const calls of concurrencies) {
    const r = await row(framing, calls);
    if (values.json) {
      console.log(JSON.stringify(r));
      continue;
    }
    const pct = r.chunks_due === 0 ? 0 : (100 * r.chunks_sent) / r.chunks_due;
    console.log(
      [
        r.framing.padEnd(8),
        String(r.calls).padStart(5),
        r.p50_ms.toFixed(2).padStart(7),
        r.p99_ms.toFixed(2).padStart(7),
        r.max_ms.toFixed(1).padStart(7),
        `${r.chunks_sent}/${r.chunks_due} (${pct.toFixed(1)}%)`.padEnd(17),
        String(r.chunks_heard).padStart(7),
        String(r.errors).padStart(5),
        r.cores.toFixed(2).padStart(6),
        String(r.cpu_us_per_chunk).padStart(13),
        (r.cpu_pressure === null ? "-" : `${Math.round(r.cpu_pressure * 100)}%`).padStart(9),
        ` ${r.load_average.join(" ")}`,
      ].join(" "),
    );
  }
}

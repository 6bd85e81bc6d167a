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
 * per chunk sent (what a shared machine distorts least), and the load average.
 *
 *   deno task bench:audio:realtime [--calls 10,50,100,200] [--seconds 20]
 *     [--framing protobuf,json,twilio] [--json]
 *
 * @module
 */
import { parseArgs } from "node:util";
import process from "node:process";
import { DEFAULT_LIMITS, runCall } from "../src/bridge/bridge.ts";
import type { CallSetup } from "../src/bridge/call.ts";
import { RealClock } from "../src/clock/clock.ts";
import { realTimeLateness } from "../src/audio/pacer.ts";
import { Environment } from "../src/env/environment.ts";
import { RemoteParticipant } from "../src/participants/remote.ts";
import { ScriptedUser } from "../src/participants/scripted_user.ts";
import { counterDomain } from "../src/testing/counter_domain.ts";
import { VoicedTts } from "../src/transport/_standin_agent.ts";
import { spawnStandin } from "../src/transport/_standin_process.ts";

const { values } = parseArgs({
  options: {
    calls: { type: "string", default: "10,50,100,200" },
    seconds: { type: "string", default: "20" },
    framing: { type: "string", default: "protobuf" },
    json: { type: "boolean", default: false },
  },
});
const concurrencies = values.calls.split(",").map(Number);
const seconds = Number(values.seconds);
const framings = values.framing.split(",") as ("json" | "protobuf" | "twilio")[];
for (const f of framings) {
  if (!["json", "protobuf", "twilio"].includes(f)) throw new Error(`unknown framing ${f}`);
}

const setup = (side: "agent" | "user"): CallSetup => ({
  side,
  scenario: "bench",
  domain: "test_counter",
  prompt: "",
  tools: [],
  seed: "00000001",
});
// Enough lines that the bot keeps answering until the duration limit.
const lines = Array.from(
  { length: 200 },
  (_, i) => i === 0 ? "Hello, this is the bot. What can I do?" : `Alright, noted item ${i}.`,
);

/** One row of the table. */
interface Row {
  framing: string;
  calls: number;
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
}

// The caller's voice is made before the calls (a real TTS runs in a Worker).
const tts = new VoicedTts();
for (const text of ["Please add five to the counter.", "Okay."]) await tts.synthesize({ text });

async function row(framing: "json" | "protobuf" | "twilio", calls: number): Promise<Row> {
  const standin = await spawnStandin({ lines });
  realTimeLateness.reset();
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  const outcomes = await Promise.all(Array.from({ length: calls }, async (_, i) => {
    // Calls that start on the same millisecond and say the same things would answer in
    // lockstep; real calls do not: starts are spread over half a second.
    await new Promise((r) => setTimeout(r, (i * 137) % 500));
    const agent = new RemoteParticipant(
      framing === "twilio"
        ? { url: standin.twilioUrl, framing, speech: { tts } }
        : { url: standin.url, framing },
    );
    const out = await runCall({
      env: new Environment(counterDomain, { db: { count: 0 }, user_db: { pressed: [] } }, {
        today: "2024-05-15",
        seed: "s",
      }),
      agent,
      user: new ScriptedUser({ opening: "Please add five to the counter.", patience: 1000 }),
      agentSetup: setup("agent"),
      userSetup: setup("user"),
      clock: new RealClock(),
      limits: { ...DEFAULT_LIMITS, maxDurationMs: seconds * 1000 },
      firstSpeaker: "agent",
      timedSpeech: true,
      speech: { tts },
    });
    await agent.close();
    return out;
  }));
  const wallS = (performance.now() - wall0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const late = realTimeLateness.summary();
  const heard = (await standin.stats()).reduce((n, s) => n + s.chunks, 0);
  await standin.close();
  const cpuS = (cpu.user + cpu.system) / 1e6;
  const r2 = (x: number) => Math.round(x * 100) / 100;
  const errors = outcomes.filter((o) => o.error);
  if (errors.length > 0) console.error(`${framing} x${calls}: ${errors[0]!.error!.message}`);
  return {
    framing,
    calls,
    p50_ms: late.p50,
    p99_ms: late.p99,
    max_ms: late.max,
    chunks_sent: realTimeLateness.chunksSent,
    chunks_due: realTimeLateness.chunksDue,
    chunks_heard: heard,
    errors: errors.length,
    cores: r2(cpuS / wallS),
    cpu_us_per_chunk: Math.round((cpuS * 1e6) / Math.max(1, late.count)),
    wall_s: Math.round(wallS * 10) / 10,
    load_average: Deno.loadavg().map((x) => Math.round(x * 10) / 10),
  };
}

if (!values.json) {
  console.log(
    `${seconds} s calls; pacer lateness pooled over every chunk of callbench's pacers; ` +
      "stand-in bots in a separate process",
  );
  console.log(
    "framing   calls  p50 ms  p99 ms  max ms  sent/due          heard    err  cores  µs CPU/chunk  load",
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
        ` ${r.load_average.join(" ")}`,
      ].join(" "),
    );
  }
}

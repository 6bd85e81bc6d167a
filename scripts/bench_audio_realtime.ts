/**
 * Real-time audio calls over loopback: N concurrent `eval --audio`-style calls (default
 * 20, 20 s each) between the scripted caller and stand-in pipecat-style bots
 * (`src/transport/_standin_agent.ts`, in this process), over protobuf `AudioRawFrame`s.
 * Calls start spread over 0.5 s. Reports the caller pacer's send lateness (p50/p99/max of every call's chunks; target
 * p99 < 5 ms) and the CPU the whole process used (callbench and the stand-ins together).
 *
 *   deno task bench:audio:realtime [--calls N] [--seconds S] [--framing json|protobuf]
 *
 * @module
 */
import { parseArgs } from "node:util";
import process from "node:process";
import { DEFAULT_LIMITS, runCall } from "../src/bridge/bridge.ts";
import type { CallSetup } from "../src/bridge/call.ts";
import { RealClock } from "../src/clock/clock.ts";
import { Pacer } from "../src/audio/pacer.ts";
import { Environment } from "../src/env/environment.ts";
import { RemoteParticipant } from "../src/participants/remote.ts";
import { ScriptedUser } from "../src/participants/scripted_user.ts";
import { counterDomain } from "../src/testing/counter_domain.ts";
import { startStandin, VoicedTts } from "../src/transport/_standin_agent.ts";
import type { StreamStats } from "../src/transport/rtvi_audio.ts";

const { values } = parseArgs({
  options: {
    calls: { type: "string", default: "20" },
    seconds: { type: "string", default: "20" },
    framing: { type: "string", default: "protobuf" },
  },
});
const calls = Number(values.calls);
const seconds = Number(values.seconds);
const framing = values.framing === "json" ? "json" : "protobuf";

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

/** Lateness of one idle pacer for `ms`: what the machine itself allows (it may be shared). */
async function idleLateness(ms: number): Promise<{ p50: number; p99: number }> {
  const late: number[] = [];
  const pacer = new Pacer({
    clock: new RealClock(),
    sampleRate: 16000,
    onChunk: (c) => late.push(c.sentAt - c.dueAt),
  });
  pacer.start();
  await new Promise((r) => setTimeout(r, ms));
  pacer.stop();
  late.sort((a, b) => a - b);
  const q = (x: number) => Math.round(late[Math.floor(x * (late.length - 1))]! * 100) / 100;
  return { p50: q(0.5), p99: q(0.99) };
}
const idle = await idleLateness(3000);

const standins = Array.from({ length: calls }, () => startStandin({ lines }));
// The caller's voice is made before the calls (a real TTS runs in a Worker).
const tts = new VoicedTts();
for (const text of ["Please add five to the counter.", "Okay."]) await tts.synthesize({ text });
const cpu0 = process.cpuUsage();
const wall0 = performance.now();
const outcomes = await Promise.all(standins.map(async (s, i) => {
  // Calls that start on the same millisecond and say the same things would answer in lockstep;
  // real calls do not: starts are spread over half a second.
  await new Promise((r) => setTimeout(r, (i * 137) % 500));
  const agent = new RemoteParticipant({ url: s.url, framing });
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
  // Closing traces the participant's audio stream (as a trial runner closes it).
  await agent.close();
  return out;
}));
const wallS = (performance.now() - wall0) / 1000;
const cpu = process.cpuUsage(cpu0);
await Promise.all(standins.map((s) => s.close()));

const errors = outcomes.filter((o) => o.error).map((o) => o.error!.message);
const chunkCounts = standins.map((s) => s.sessions[0]?.chunks.length ?? 0);

const late = outcomes.flatMap((o) =>
  o.traces.agent.filter((t) => t.type === "rtvi_audio").map((t) =>
    (t as unknown as { sent: StreamStats }).sent.late_ms
  )
);
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
};
const cpuS = (cpu.user + cpu.system) / 1e6;
console.log(JSON.stringify(
  {
    calls,
    seconds_each: seconds,
    framing,
    errors,
    wall_s: Math.round(wallS * 10) / 10,
    chunks_received_per_call_median: median(chunkCounts),
    chunks_expected_per_call: Math.round((seconds * 1000) / 16),
    pacer_late_ms: {
      p50_median_of_calls: median(late.map((l) => l.p50)),
      p99_median_of_calls: median(late.map((l) => l.p99)),
      p99_worst_call: Math.max(...late.map((l) => l.p99)),
      max: Math.max(...late.map((l) => l.max)),
    },
    idle_pacer_late_ms: idle,
    load_average: Deno.loadavg().map((x) => Math.round(x * 10) / 10),
    cpu_s: Math.round(cpuS * 100) / 100,
    cpu_cores_used: Math.round((cpuS / wallS) * 100) / 100,
    note:
      "CPU includes the in-process stand-in bots (their VAD and audio). idle_pacer_late_ms is " +
      "one pacer with nothing else running, just before: on a loaded machine it shows the floor.",
  },
  null,
  2,
));

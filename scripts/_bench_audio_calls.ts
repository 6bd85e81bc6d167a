/**
 * The calls of one `bench:audio:realtime` row, in this thread (the main one or a
 * Worker's): `calls` concurrent 20 s calls between the scripted caller and the
 * stand-in bot at `url`, started spread over half a second.
 *
 * Run as a Worker (`new Worker(this module)`), it takes one {@link CallsJob} message,
 * runs it, and answers with a {@link CallsDone}.
 *
 * @module
 */
import { DEFAULT_LIMITS, runCall } from "../src/bridge/bridge.ts";
import type { CallSetup } from "../src/bridge/call.ts";
import { RealClock } from "../src/clock/clock.ts";
import { realTimeLateness } from "../src/audio/pacer.ts";
import type { LatenessTotals } from "../src/audio/lateness.ts";
import { Environment } from "../src/env/environment.ts";
import { RemoteParticipant } from "../src/participants/remote.ts";
import { ScriptedUser } from "../src/participants/scripted_user.ts";
import { counterDomain } from "../src/testing/counter_domain.ts";
import { VoicedTts } from "../src/transport/_standin_agent.ts";

export type BenchFraming = "json" | "protobuf" | "twilio";

/** One share of a row's calls. */
export interface CallsJob {
  framing: BenchFraming;
  /** The stand-in's URL for this framing. */
  url: string;
  calls: number;
  seconds: number;
  /** This share's first call number (start offsets differ across shares). */
  first: number;
}

/** What a share's calls did: its pacers' lateness and counts, and the failures. */
export interface CallsDone {
  late: LatenessTotals;
  errors: string[];
}

const setup = (side: "agent" | "user"): CallSetup => ({
  side,
  scenario: "bench",
  domain: "test_counter",
  prompt: "",
  tools: [],
  seed: "00000001",
});

// The caller's voice is made before the calls (a real TTS runs in a Worker).
const tts = new VoicedTts();
const ready = Promise.all(
  ["Please add five to the counter.", "Okay."].map((text) => tts.synthesize({ text })),
);

/** Runs a share of a row's calls; the pacers' lateness is this thread's. */
export async function runCalls(job: CallsJob): Promise<CallsDone> {
  await ready;
  realTimeLateness.reset();
  const outcomes = await Promise.all(Array.from({ length: job.calls }, async (_, j) => {
    const i = job.first + j;
    // Calls that start on the same millisecond and say the same things would answer in
    // lockstep; real calls do not: starts are spread over half a second.
    await new Promise((r) => setTimeout(r, (i * 137) % 500));
    const agent = new RemoteParticipant(
      job.framing === "twilio"
        ? { url: job.url, framing: "twilio", speech: { tts } }
        : { url: job.url, framing: job.framing },
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
      limits: { ...DEFAULT_LIMITS, maxDurationMs: job.seconds * 1000 },
      firstSpeaker: "agent",
      timedSpeech: true,
      speech: { tts },
    });
    await agent.close();
    return out;
  }));
  return {
    late: realTimeLateness.totals(),
    errors: outcomes.filter((o) => o.error).map((o) => o.error!.message),
  };
}

// As a Worker: one job in, its result out.
if ("WorkerGlobalScope" in globalThis) {
  const scope = globalThis as unknown as {
    onmessage: ((e: MessageEvent<CallsJob>) => void) | null;
    postMessage(m: CallsDone): void;
  };
  scope.onmessage = async (e) => scope.postMessage(await runCalls(e.data));
}

/**
 * The calls of one `bench:audio:realtime` row, in this thread (the main one or a
 * Worker's): `calls` concurrent 20 s calls between the scripted caller and the
 * stand-in bot at `url`. Like the calls of a suite, they start spread out (over 2 s)
 * and say things of different lengths (openings of 3 to 9 words), so they drift apart;
 * `lockstep` starts them within half a second saying the same words, so every call
 * turns at once for the whole row (the worst case).
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
  /** Every call says the same, started within half a second (see the module's doc). */
  lockstep?: boolean;
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

/** Openings of 3 to 9 words (250 ms a word): call `i` says number `i % 7`. */
const OPENINGS = Array.from(
  { length: 7 },
  (_, k) =>
    ["Please", "add", "five", "to", "the", "counter", "right", "now", "thanks"]
      .slice(0, 3 + k).join(" ") + ".",
);

// The caller's voice is made before the calls (a real TTS runs in a Worker).
const tts = new VoicedTts();
const ready = Promise.all(
  [...OPENINGS, "Please add five to the counter.", "Okay."].map((text) => tts.synthesize({ text })),
);

/** Runs a share of a row's calls; the pacers' lateness is this thread's. */
export async function runCalls(job: CallsJob): Promise<CallsDone> {
  await ready;
  realTimeLateness.reset();
  const outcomes = await Promise.all(Array.from({ length: job.calls }, async (_, j) => {
    const i = job.first + j;
    // Calls that start on the same millisecond and say the same things would answer in
    // lockstep; a suite's calls do not.
    await new Promise((r) => setTimeout(r, (i * 137) % (job.lockstep ? 500 : 2000)));
    const opening = job.lockstep ? "Please add five to the counter." : OPENINGS[i % 7]!;
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
      user: new ScriptedUser({ opening, patience: 1000 }),
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

/**
 * Seeded random conversations against the truth agents (issue #29, "Ground truth that is
 * not tuned to the tests"): from one seed, what the caller says each turn (phrases drawn
 * with repeats, one-word turns), how soon after the agent's turn it answers (0-30 ms, a
 * person's 200-400 ms, or a silence past any VAD's hangover, 1-2 s), and the agent's own
 * behaviour (its delay D per turn, leading noise or none). {@link runGenerated} holds the
 * call over a wire on the real clock and checks every figure callbench reports that the
 * agent logs (v2v per turn, where the WAV puts every utterance) against the agent's log;
 * a failure names the seed. `tests/voice_truth_generated_realclock_test.ts` runs a fixed few seeds,
 * `deno task bench:voice-truth --random N` more.
 *
 * Long turns (a caller monologue of about 10 s) come from a second stream of the same seed,
 * so the other draws of a seed stay as they were. Not yet generated: backchannels,
 * overlaps, 20 s monologues, tool calls and keys (the truth agent's barge-in and key modes
 * are their own tests).
 *
 * @module
 */
import type {
  CallEvent,
  CallLine,
  CallSetup,
  Participant,
  ParticipantInfo,
} from "../src/bridge/call.ts";
import { RealClock } from "../src/clock/clock.ts";
import { mulberry32 } from "../src/random/mulberry32.ts";
import { RemoteParticipant } from "../src/participants/remote.ts";
import { SipParticipant } from "../src/transport/sip.ts";
import type { TtsProvider } from "../src/speech/speech.ts";
import { startTruthAgent } from "./_truth_agent.ts";
import { startSipAgent } from "./_sip_agent.ts";
import { truthCall } from "./_truth_call.ts";
import { type Miss, v2vMisses, wavMisses } from "./_truth_checks.ts";

/** What the caller may say: full lines, and one-word turns that come back again and again. */
const PHRASES = [
  "Please add five to the counter.",
  "Okay.",
  "Yes.",
  "Okay.",
  "Can you read me the total?",
  "No.",
  "Right, thanks.",
  "Okay.",
];

/** A long turn: about 10 s of one caller's speech with only short pauses in it. */
const LONG_TURN = "I would like you to add five to the counter now, and then, once that is done, " +
  "please add two more, and after that read the whole total back to me slowly, so that I " +
  "can write it down on the paper in front of me.";

export type GeneratedWire = "json" | "protobuf" | "twilio" | "sip";

/** One generated conversation. */
export interface Conversation {
  seed: number;
  /** The caller's line each turn (after the agent's greeting, then each reply). */
  lines: string[];
  /** How long after the agent's turn was heard whole the caller answers, ms. */
  gapsMs: number[];
  /** The agent's delay after each caller utterance, ms. */
  delaysMs: number[];
  /** Low-level noise before each reply's speech, ms. */
  leadMs: number;
}

/** The conversation of `seed` (`turns` caller turns). */
export function generateConversation(seed: number, turns = 4): Conversation {
  const r = mulberry32(seed >>> 0 || 1);
  const long = mulberry32((seed ^ 0x5bd1e995) >>> 0 || 1);
  const lines: string[] = [];
  const gapsMs: number[] = [];
  const delaysMs: number[] = [];
  for (let i = 0; i < turns; i++) {
    const phrase = PHRASES[Math.floor(r() * PHRASES.length)]!;
    lines.push(long() < 0.15 ? LONG_TURN : phrase);
    const kind = r();
    // At once (0-30 ms), as a person (200-400 ms), or past any VAD's hangover (1-2 s).
    gapsMs.push(
      Math.round(kind < 0.35 ? 30 * r() : kind < 0.75 ? 200 + 200 * r() : 1000 + 1000 * r()),
    );
    delaysMs.push(Math.round(300 + 1200 * r()));
  }
  return { seed, lines, gapsMs, delaysMs, leadMs: r() < 0.5 ? 0 : 400 };
}

/** Says line i `gapsMs[i]` after the agent's i-th turn was heard whole, then hangs up. */
class GeneratedCaller implements Participant {
  readonly info: ParticipantInfo = { kind: "generated-caller" };
  #line?: CallLine;
  #turns = 0;

  constructor(readonly c: Conversation) {}

  start(line: CallLine, _setup: CallSetup): Promise<void> {
    this.#line = line;
    return Promise.resolve();
  }

  onEvent(event: CallEvent): void {
    if (event.type !== "speech") return;
    const line = this.#line!;
    const i = this.#turns++;
    const text = this.c.lines[i];
    line.clock.timer(text === undefined ? 300 : this.c.gapsMs[i]!, () => {
      if (text === undefined) line.hangUp("done");
      else line.say(text);
    });
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** A generated call's result: every figure against the agent's log, and what to show. */
export interface GeneratedResult {
  conversation: Conversation;
  wire: GeneratedWire;
  v2v: Miss[];
  wav: Miss[];
}

/** Holds `seed`'s conversation over `wire` on the real clock against a truth agent. */
export async function runGenerated(
  seed: number,
  wire: GeneratedWire,
  tts: TtsProvider,
  turns = 4,
): Promise<GeneratedResult> {
  const c = generateConversation(seed, turns);
  // Synthesized before the call (the cache serves it at once), so a caller turn 0-30 ms
  // after the agent's is that on the wire, not after a synthesis.
  for (const text of new Set(c.lines)) await tts.synthesize({ text });
  const options = { delays: c.delaysMs, greetMs: 600, leadMs: c.leadMs };
  if (wire === "sip") {
    const agent = await startSipAgent({ delays: c.delaysMs, greetMs: 600 });
    try {
      const { out, block, origin } = await truthCall(
        new SipParticipant({ uri: agent.uri }),
        new RealClock(),
        tts,
        [],
        { user: new GeneratedCaller(c) },
      );
      const s = agent.sessions[0]!;
      return {
        conversation: c,
        wire,
        v2v: v2vMisses(block, s.replies),
        wav: wavMisses(out, origin, s.heard, s.replies),
      };
    } finally {
      await agent.close();
    }
  }
  const truth = startTruthAgent(options);
  try {
    const { out, block, origin } = await truthCall(
      new RemoteParticipant({ url: truth.url, framing: wire }),
      new RealClock(),
      tts,
      [],
      { user: new GeneratedCaller(c) },
    );
    const s = truth.sessions[0]!;
    return {
      conversation: c,
      wire,
      v2v: v2vMisses(block, s.replies),
      wav: wavMisses(out, origin, s.heard, s.replies),
    };
  } finally {
    await truth.close();
  }
}

/** The line a failure prints: the seed first, so it can be run again. */
export function describe(r: GeneratedResult, misses: readonly Miss[]): string {
  const c = r.conversation;
  return `seed ${c.seed} over ${r.wire} (lines ${
    JSON.stringify(c.lines)
  }, gaps ${c.gapsMs}, D ${c.delaysMs}, lead ${c.leadMs}):\n` +
    misses.map((m) => `  ${m.what} (${m.errorMs.toFixed(1)} ms)`).join("\n");
}

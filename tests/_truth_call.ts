/**
 * One call between {@link TruthCaller} and a truth agent (`./_truth_agent.ts`), measured
 * as `eval --audio` measures it, and each agent turn's errors against the agent's own
 * log: for `tests/voice_truth_realclock_test.ts` and `deno task bench:voice-truth`.
 *
 * @module
 */
import assert from "node:assert/strict";
import { type CallOutcome, type CallSpec, DEFAULT_LIMITS, runCall } from "../src/bridge/bridge.ts";
import type { CallSetup, Participant } from "../src/bridge/call.ts";
import type { Clock } from "../src/clock/clock.ts";
import { Environment } from "../src/env/environment.ts";
import { measureAudio } from "../src/runner/audio_metrics.ts";
import type { AudioBlock } from "../src/runner/audio_block.ts";
import type { TtsProvider } from "../src/speech/speech.ts";
import type { Line } from "../src/audio/line/line.ts";
import { counterDomain } from "../src/testing/counter_domain.ts";
import { TruthCaller, type TruthReplyLog } from "./_truth_agent.ts";

const setup = (side: "agent" | "user"): CallSetup => ({
  side,
  scenario: "truth",
  domain: "test_counter",
  prompt: "",
  tools: [],
  seed: "00000001",
});

export const LINES = [
  "Please add five to the counter.",
  "Yes, and then add two more.",
  "Thank you, that is all.",
  "Goodbye now.",
];

export const DELAYS = [300, 800, 1500, 3000] as const;

const CONFIG = {
  tts: { provider: "flite", voices: { agent: null, user: null } },
  stt: "transcript",
  dtmf: "event",
  sample_rate: 16000,
} as const;

/** What else a truth call may have: another caller, a line, in-band or event keys. */
export interface TruthCallOptions {
  /** The caller (default a {@link TruthCaller} of `lines`). */
  user?: Participant;
  /** The caller's line (what the agent hears of the caller's audio and tones). */
  line?: Line;
  /** How keys travel (default in band, as with `eval --audio`). */
  dtmf?: "inband" | "event";
}

/**
 * One call against `agent` on `clock`; its outcome and audio block, and `origin`: the
 * `performance.now()` of the call's time zero (real clock), to set the agent's log
 * beside the record.
 */
export async function truthCall(
  agent: Participant,
  clock: Clock,
  tts: TtsProvider,
  lines: readonly string[] = LINES,
  options: TruthCallOptions = {},
): Promise<{ out: CallOutcome; block: AudioBlock; origin: number }> {
  const dtmf = options.dtmf ?? "inband";
  const env = new Environment(counterDomain, { db: { count: 0 }, user_db: { pressed: [] } }, {
    today: "2024-05-15",
    seed: "s",
  });
  const spec: CallSpec = {
    env,
    agent,
    user: options.user ?? new TruthCaller(lines),
    agentSetup: setup("agent"),
    userSetup: setup("user"),
    clock,
    limits: { ...DEFAULT_LIMITS, maxDurationMs: 60_000 },
    firstSpeaker: "agent",
    timedSpeech: true,
    speech: {
      tts,
      sampleRate: 16000,
      dtmf,
      ...(options.line ? { line: { user: options.line } } : {}),
    },
  };
  const out = await runCall(spec);
  const origin = performance.now() - clock.now();
  // Closed as the runner closes them: the mappings write their stream counters.
  await Promise.all([spec.agent.close(), spec.user.close()]);
  assert.equal(out.error, undefined, out.error?.message);
  return { out, block: await measureAudio(out, { ...CONFIG, dtmf }), origin };
}

/** Each measured agent turn's errors against the agent's own log. */
export function errors(block: AudioBlock, replies: readonly TruthReplyLog[]) {
  const answered = replies.filter((r) => r.answers > 0);
  return block.turns.map((t, i) => {
    const r = answered[i]!;
    // The reference's formulas on the truth: its first audio frame less the caller's
    // last audio sample (and that less 0.3 s).
    const refFrame = r.firstFrameAt - r.callerAudioEndAt;
    // Its true latency: when its speech went out less the caller's end, by its clock (D,
    // unless its own timers ran late).
    return {
      delay: r.delayMs,
      v2v: t.v2v_ms - (r.speechAt - r.callerEndAt),
      refFrame: t.ref_frame_ms - refFrame,
      refSegment: t.ref_segment_ms - (refFrame + 300),
    };
  });
}

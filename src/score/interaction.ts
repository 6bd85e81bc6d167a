/**
 * Interaction metrics of one call (the verdict's `metrics.interaction`), from its turns
 * as placed on the line, its tool calls and the caller events the caller acted out
 * (`audio.caller_events`): response latency (τ-voice's L_R) with EVA-style
 * turn-taking scores, yield latency and rate on caller interruptions (L_Y, R_Y), agent
 * interruptions per turn (I_A), and selectivity to backchannels, vocal tics and
 * non-directed speech (S_BC, S_VT, S_ND) and to mid-utterance pauses. PROTOCOL.md
 * gives the definitions; the windows are the constants below.
 *
 * Times are the utterances' on the line (their audio's lead-in and tail included), so
 * they are exact on the simulated clock; `metrics.audio.v2v_ms` is the VAD's measure.
 *
 * @module
 */
import { z } from "zod";

/** An interruption is yielded if the agent's speech stops within this of its onset. */
export const YIELD_WINDOW_MS = 2000;
/** The agent reacted to a caller event if it stopped speaking within this of the event's end. */
export const STOP_WINDOW_MS = 1000;
/** ... or started a turn within this of the event's end (side speech). */
export const TAKE_WINDOW_MS = 2000;
/**
 * Agent utterances less than a frame apart are back to back (one stretch of speech):
 * on a real wire the next starts a few ms after the last ends.
 */
export const BACK_TO_BACK_MS = 20;

const rate = z.number().min(0).max(1).nullable();

export const InteractionMetricsSchema = z.object({
  response_latency_ms: z.array(z.number()).describe(
    "L_R per caller turn answered: the caller's end of speech (the last utterance of the turn, pauses inside it " +
      "included) to the start of the agent's next utterance, ms",
  ),
  turn_taking_scores: z.array(z.number().min(0).max(1)).describe(
    "Per response latency: 1 from 500 to 2000 ms (3000 ms when the agent called a tool in between), " +
      "falling linearly to 0 at 3500 ms (5000 ms) and from 500 ms down to 0 ms",
  ),
  turn_taking_score: rate.describe("Their mean (null: no turn answered)"),
  interruptions: z.number().int().nonnegative().describe(
    "Caller turns that began while the agent was speaking",
  ),
  yield_latency_ms: z.array(z.number()).describe(
    "L_Y per interruption: its onset to the end of the agent's speech then (its utterances back to back, " +
      "less than 20 ms apart), ms",
  ),
  yield_rate: rate.describe(
    `R_Y: the share of interruptions yielded within ${YIELD_WINDOW_MS} ms (null: none)`,
  ),
  agent_interruptions_per_turn: z.number().min(0).nullable().describe(
    "I_A: agent utterances begun while the caller was speaking (backchannels and side speech aside), " +
      "per agent utterance (null: the agent never spoke)",
  ),
  backchannel_selectivity: rate.describe(
    `S_BC: the share of backchannels over the agent after which it did not stop speaking within ${STOP_WINDOW_MS} ms`,
  ),
  vocal_tic_selectivity: rate.describe(
    "S_VT: the share of fillers inside a caller turn after which the agent did not start speaking before the turn ended",
  ),
  non_directed_selectivity: rate.describe(
    `S_ND: the share of side speech after which the agent neither stopped speaking within ${STOP_WINDOW_MS} ms ` +
      `nor began a turn within ${TAKE_WINDOW_MS} ms (before the caller spoke again)`,
  ),
  pause_selectivity: rate.describe(
    "The share of mid-utterance pauses the agent waited out (began no utterance during them)",
  ),
  events: z.object({
    backchannel: z.number().int().nonnegative(),
    filler: z.number().int().nonnegative(),
    side: z.number().int().nonnegative(),
    pause: z.number().int().nonnegative(),
  }).describe("The caller events each selectivity is over"),
});
export type InteractionMetrics = z.infer<typeof InteractionMetricsSchema>;

/** What the metrics read of a call. */
export interface InteractionInput {
  turns: readonly {
    speaker: "agent" | "user";
    start_ms: number;
    end_ms: number;
    interrupted?: boolean;
  }[];
  caller_events: readonly { kind: string; start_ms: number; end_ms: number; turn: number }[];
  /** When the agent called tools. */
  agent_tool_calls_ms: readonly number[];
}

/** EVA-style turn-taking score of one response latency. */
export function turnTakingScore(latencyMs: number, toolTurn: boolean): number {
  const full = toolTurn ? 3000 : 2000;
  const zero = toolTurn ? 5000 : 3500;
  if (latencyMs < 0) return 0;
  if (latencyMs < 500) return latencyMs / 500;
  if (latencyMs <= full) return 1;
  if (latencyMs >= zero) return 0;
  return (zero - latencyMs) / (zero - full);
}

const r2 = (x: number) => Math.round(x * 100) / 100;
const share = (ok: number, n: number) => (n === 0 ? null : r2(ok / n));

/** The interaction metrics of one call. */
export function interactionMetrics(input: InteractionInput): InteractionMetrics {
  const turns = input.turns.map((t, i) => ({ ...t, i }));
  const events = input.caller_events;
  const kindOf = new Map<number, string>();
  for (const e of events) kindOf.set(e.turn, e.kind);
  // The agent's utterances (empty ones, cut as they began, said nothing).
  const agent = turns.filter((t) => t.speaker === "agent" && t.end_ms > t.start_ms)
    .sort((a, b) => a.start_ms - b.start_ms);
  // The caller's own speech: its utterances but backchannels and side speech.
  const caller = turns.filter((t) =>
    t.speaker === "user" && t.end_ms > t.start_ms && kindOf.get(t.i) !== "backchannel" &&
    kindOf.get(t.i) !== "side"
  ).sort((a, b) => a.start_ms - b.start_ms);
  // Caller turns: utterances back to back (fillers) or across a pause are one turn.
  const callerTurns: { start: number; end: number }[] = [];
  for (const u of caller) {
    const last = callerTurns[callerTurns.length - 1];
    if (last && (u.start_ms <= last.end || kindOf.get(u.i) === "pause")) {
      last.end = Math.max(last.end, u.end_ms);
    } else callerTurns.push({ start: u.start_ms, end: u.end_ms });
  }
  // Speaking at `t`: an utterance cut off exactly then (an agent that stops at once) counts.
  const over = (a: (typeof agent)[number], t: number) =>
    t < a.end_ms || (a.interrupted === true && t === a.end_ms);
  const speakingAt = (t: number) => agent.find((a) => a.start_ms <= t && over(a, t));
  /** The end of the agent's speech from utterance `a` on (utterances back to back, under a frame apart). */
  const speechEnd = (a: (typeof agent)[number]) => {
    let end = a.end_ms;
    for (const b of agent) {
      if (b.start_ms > a.start_ms && b.start_ms < end + BACK_TO_BACK_MS) {
        end = Math.max(end, b.end_ms);
      }
    }
    return end;
  };

  const latency: number[] = [];
  const scores: number[] = [];
  callerTurns.forEach((c, k) => {
    const next = callerTurns[k + 1]?.start ?? Infinity;
    const a = agent.find((x) => x.start_ms >= c.end && x.start_ms < next);
    if (!a) return;
    const l = a.start_ms - c.end;
    const tool = input.agent_tool_calls_ms.some((t) => t >= c.end && t <= a.start_ms);
    latency.push(r2(l));
    scores.push(r2(turnTakingScore(l, tool)));
  });

  const yields: number[] = [];
  let yielded = 0;
  for (const c of callerTurns) {
    const a = agent.find((x) => x.start_ms < c.start && over(x, c.start));
    if (!a) continue;
    const l = speechEnd(a) - c.start;
    yields.push(r2(l));
    if (l <= YIELD_WINDOW_MS) yielded++;
  }

  const agentInterruptions =
    agent.filter((a) => caller.some((u) => u.start_ms < a.start_ms && a.start_ms < u.end_ms))
      .length;

  /** The agent, speaking at `e`'s start, was cut within the stop window of its end. */
  const stopped = (e: { start_ms: number; end_ms: number }) => {
    const a = speakingAt(e.start_ms);
    return a !== undefined && a.interrupted === true && a.end_ms <= e.end_ms + STOP_WINDOW_MS;
  };
  const of = (kind: string) => events.filter((e) => e.kind === kind);
  const bc = of("backchannel").filter((e) => speakingAt(e.start_ms) !== undefined);
  const bcKept = bc.filter((e) => !stopped(e)).length;
  const fillers = of("filler").map((e) => ({
    e,
    turn: callerTurns.find((c) => c.start <= e.start_ms && e.start_ms < c.end),
  }))
    .filter((x) => x.turn !== undefined);
  const fillersKept =
    fillers.filter(({ e, turn }) =>
      !stopped(e) && !agent.some((a) => a.start_ms >= e.start_ms && a.start_ms < turn!.end)
    ).length;
  const side = of("side");
  const sideKept = side.filter((e) => {
    const resumes = caller.find((u) => u.start_ms >= e.end_ms)?.start_ms ?? Infinity;
    const took = agent.some((a) =>
      a.start_ms >= e.start_ms && a.start_ms <= e.end_ms + TAKE_WINDOW_MS && a.start_ms < resumes
    );
    return !stopped(e) && !took;
  }).length;
  const pauses = of("pause");
  const waited =
    pauses.filter((e) => !agent.some((a) => a.start_ms >= e.start_ms && a.start_ms < e.end_ms))
      .length;

  return {
    response_latency_ms: latency,
    turn_taking_scores: scores,
    turn_taking_score: scores.length === 0
      ? null
      : r2(scores.reduce((x, y) => x + y, 0) / scores.length),
    interruptions: yields.length,
    yield_latency_ms: yields,
    yield_rate: share(yielded, yields.length),
    agent_interruptions_per_turn: agent.length === 0 ? null : r2(agentInterruptions / agent.length),
    backchannel_selectivity: share(bcKept, bc.length),
    vocal_tic_selectivity: share(fillersKept, fillers.length),
    non_directed_selectivity: share(sideKept, side.length),
    pause_selectivity: share(waited, pauses.length),
    events: {
      backchannel: bc.length,
      filler: fillers.length,
      side: side.length,
      pause: pauses.length,
    },
  };
}

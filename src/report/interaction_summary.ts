/**
 * The interaction metrics (`metrics.interaction`, src/score/interaction.ts) pooled over
 * a group of verdicts: each metric's mean with a 95% confidence interval. Rates are one
 * sample per trial that has them; response latency and turn-taking scores are one
 * sample per answered turn. The interval is the normal one, mean ± 1.96 standard
 * errors (a small, dependency-free stand-in until the report's shared statistics module
 * lands; with fewer than two samples it is null).
 *
 * @module
 */
import { z } from "zod";
import type { InteractionMetrics } from "../score/interaction.ts";

/** A mean with its 95% confidence interval over `n` samples. */
export const MeanCiSchema = z.object({
  n: z.number().int().nonnegative().describe("Samples"),
  mean: z.number().nullable().describe("Their mean (null: none)"),
  ci95: z.tuple([z.number(), z.number()]).nullable().describe(
    "Mean ± 1.96 standard errors (null: fewer than two samples)",
  ),
});
export type MeanCi = z.infer<typeof MeanCiSchema>;

const r3 = (x: number) => Math.round(x * 1000) / 1000;

/** The mean of `xs` and its normal 95% interval. */
export function meanCi(xs: readonly number[]): MeanCi {
  const n = xs.length;
  if (n === 0) return { n, mean: null, ci95: null };
  const mean = xs.reduce((a, b) => a + b, 0) / n;
  if (n < 2) return { n, mean: r3(mean), ci95: null };
  const sd = Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (n - 1));
  const h = (1.96 * sd) / Math.sqrt(n);
  return { n, mean: r3(mean), ci95: [r3(mean - h), r3(mean + h)] };
}

/** The metrics a report pools, in the order it shows them. */
export const INTERACTION_KEYS = [
  "response_latency_ms",
  "turn_taking_score",
  "yield_latency_ms",
  "yield_rate",
  "agent_interruptions_per_turn",
  "backchannel_selectivity",
  "vocal_tic_selectivity",
  "non_directed_selectivity",
  "pause_selectivity",
] as const;

export const InteractionAggregateSchema = z.object({
  trials: z.number().int().positive().describe("Trials with interaction metrics"),
  ...Object.fromEntries(INTERACTION_KEYS.map((k) => [k, MeanCiSchema])) as Record<
    (typeof INTERACTION_KEYS)[number],
    typeof MeanCiSchema
  >,
}).describe(
  "Interaction metrics pooled: latencies and turn-taking scores per answered turn, rates per trial",
);
export type InteractionAggregate = z.infer<typeof InteractionAggregateSchema>;

/** Pools the interaction metrics of the verdicts that have them; undefined when none has. */
export function interactionAggregate(
  metrics: readonly (InteractionMetrics | undefined)[],
): InteractionAggregate | undefined {
  const present = metrics.filter((m): m is InteractionMetrics => m !== undefined);
  if (present.length === 0) return undefined;
  const perTrial = (k: keyof InteractionMetrics) =>
    present.flatMap((m) => (typeof m[k] === "number" ? [m[k] as number] : []));
  return {
    trials: present.length,
    response_latency_ms: meanCi(present.flatMap((m) => m.response_latency_ms)),
    turn_taking_score: meanCi(present.flatMap((m) => m.turn_taking_scores)),
    yield_latency_ms: meanCi(present.flatMap((m) => m.yield_latency_ms)),
    yield_rate: meanCi(perTrial("yield_rate")),
    agent_interruptions_per_turn: meanCi(perTrial("agent_interruptions_per_turn")),
    backchannel_selectivity: meanCi(perTrial("backchannel_selectivity")),
    vocal_tic_selectivity: meanCi(perTrial("vocal_tic_selectivity")),
    non_directed_selectivity: meanCi(perTrial("non_directed_selectivity")),
    pause_selectivity: meanCi(perTrial("pause_selectivity")),
  };
}

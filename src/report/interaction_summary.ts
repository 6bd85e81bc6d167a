/**
 * The interaction metrics (`metrics.interaction`, src/score/interaction.ts) of one
 * configuration's verdicts: each metric's mean with a 95% confidence interval. Rates
 * are one sample per trial that has them; response and yield latencies and turn-taking
 * scores are one sample per turn (or interruption).
 *
 * The interval is a percentile bootstrap over scenarios (`bootstrap` in `stats.ts`,
 * seeded, 2000 resamples): each resample draws the scenarios that have samples of the
 * metric with replacement and takes the mean of their pooled samples, so a scenario's
 * trials and turns stay together, as in `compare`. With fewer than two such scenarios
 * there is no interval (null).
 *
 * @module
 */
import { z } from "zod";
import type { InteractionMetrics } from "../score/interaction.ts";
import { bootstrap, type BootstrapOptions } from "./stats.ts";

/** A mean with its 95% confidence interval over `n` samples. */
export const MeanCiSchema = z.object({
  n: z.number().int().nonnegative().describe("Samples"),
  mean: z.number().nullable().describe("Their mean (null: none)"),
  ci95: z.tuple([z.number(), z.number()]).nullable().describe(
    "Percentile bootstrap 95% interval of the mean over scenarios, seeded (null: samples from " +
      "fewer than two scenarios)",
  ),
});
export type MeanCi = z.infer<typeof MeanCiSchema>;

const r3 = (x: number) => Math.round(x * 1000) / 1000;

/**
 * The mean of the pooled samples of `units` (one array per scenario) and its bootstrap
 * 95% interval over the units that have samples.
 */
export function meanCi(
  units: readonly (readonly number[])[],
  options: BootstrapOptions = {},
): MeanCi {
  const kept = units.filter((u) => u.length > 0);
  const sums = kept.map((u) => u.reduce((a, b) => a + b, 0));
  const counts = kept.map((u) => u.length);
  const n = counts.reduce((a, b) => a + b, 0);
  if (n === 0) return { n, mean: null, ci95: null };
  const mean = sums.reduce((a, b) => a + b, 0) / n;
  if (kept.length < 2) return { n, mean: r3(mean), ci95: null };
  const e = bootstrap(kept.length, (idx) => {
    let sum = 0;
    let count = 0;
    for (let i = 0; i < idx.length; i++) {
      sum += sums[idx[i]!]!;
      count += counts[idx[i]!]!;
    }
    return sum / count;
  }, options);
  return { n, mean: r3(mean), ci95: e.ci95 ? [r3(e.ci95[0]), r3(e.ci95[1])] : null };
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
/** One of the metrics a report pools. */
export type InteractionKey = (typeof INTERACTION_KEYS)[number];

/** A trial's samples of a pooled metric (per turn for latencies and scores, else its rate). */
export function interactionSamples(m: InteractionMetrics, key: InteractionKey): number[] {
  switch (key) {
    case "response_latency_ms":
      return m.response_latency_ms;
    case "turn_taking_score":
      return m.turn_taking_scores;
    case "yield_latency_ms":
      return m.yield_latency_ms;
    default: {
      const x = m[key];
      return typeof x === "number" ? [x] : [];
    }
  }
}

export const InteractionAggregateSchema = z.object({
  trials: z.number().int().positive().describe("Trials with interaction metrics"),
  ...Object.fromEntries(INTERACTION_KEYS.map((k) => [k, MeanCiSchema])) as Record<
    InteractionKey,
    typeof MeanCiSchema
  >,
}).describe(
  "Interaction metrics: means of latencies and turn-taking scores per turn and of rates per trial, " +
    "each with a bootstrap 95% interval over scenarios",
);
export type InteractionAggregate = z.infer<typeof InteractionAggregateSchema>;

/** What `interactionAggregate` reads of a verdict. */
export interface InteractionSource {
  scenario: string;
  metrics: { interaction?: InteractionMetrics | undefined };
}

/**
 * The interaction metrics of the verdicts that have them (one configuration's), each
 * with its bootstrap interval over scenarios; undefined when none has them.
 */
export function interactionAggregate(
  verdicts: readonly InteractionSource[],
  options: BootstrapOptions = {},
): InteractionAggregate | undefined {
  const present = verdicts.filter((v) => v.metrics.interaction !== undefined);
  if (present.length === 0) return undefined;
  const byScenario = [...Map.groupBy(present, (v) => v.scenario).entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, vs]) => vs);
  const of = (key: InteractionKey) =>
    meanCi(
      byScenario.map((vs) => vs.flatMap((v) => interactionSamples(v.metrics.interaction!, key))),
      options,
    );
  return {
    trials: present.length,
    ...Object.fromEntries(INTERACTION_KEYS.map((k) => [k, of(k)])) as Record<
      InteractionKey,
      MeanCi
    >,
  };
}

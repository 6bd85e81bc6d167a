/**
 * The report: aggregates over verdicts, overall and per suite, and a per-scenario table.
 *
 * - Verdicts are de-duplicated by trial key (scenario, trial, seed, config hash), the
 *   last one read winning, so `cat shard-*.jsonl | score | report` merges shards and a
 *   re-scored trial replaces its old verdict. Everything is then ordered by scenario
 *   and trial, so the report does not depend on the order of its input.
 * - Success and task-success rates count trials with a boolean `is_successful`
 *   (`"N/A"` ones are counted apart). An infrastructure-error trial counts as a failure,
 *   and in `errors` by kind; with `excludeErrors` it is left out of every aggregate
 *   (and still counted in `errors`).
 * - Per-signal rates, assertion counts and the judge's mean score leave out trials with
 *   too few agent turns and error trials (their signals are not the agent's doing), as
 *   the reference leaves out stalled scenarios (reference-harness §3.5).
 * - pass^k per `pass_hat_k.ts`; latency and time to first token pool every sample.
 * - Configurations (label + config hash) are never pooled: every figure is one
 *   configuration's, in `configurations` (its headline `overall`, its `by_suite`, its
 *   pass^k at its own K, its latency histogram), and each scenario row is one
 *   configuration's. Nothing in the report mixes two configurations; `input` only
 *   counts the verdicts read.
 *
 * @module
 */
import { interactionAggregate, InteractionAggregateSchema } from "./interaction_summary.ts";
import { z } from "zod";
import { Signal, SIGNALS } from "../scenario/scenario.ts";
import type { Verdict } from "../score/verdict.ts";
import type { ReportedVerdict } from "./reported_verdict.ts";
import { ParticipantInfoSchema, UsageSchema } from "../runner/trial_record.ts";
import { histogram, HistogramSchema, latencyStats, LatencyStatsSchema } from "./latency_stats.ts";
import { firstFailure } from "./failure_notes.ts";
import { ComparisonSchema } from "./compare.ts";
import { bootstrapPass1, passHatK, passHatKCurve, type ScenarioCount } from "./pass_hat_k.ts";

export const REPORT_SCHEMA = "callbench.report/2";

const Rate = z.object({
  passed: z.number().int().nonnegative(),
  total: z.number().int().nonnegative(),
  /** passed / total; `null` when total is 0. */
  rate: z.number().nullable().describe("passed / total; null when total is 0."),
});
export type Rate = z.infer<typeof Rate>;

/**
 * Audio calls' figures, pooled over the group's trials that have them: three latency
 * definitions (ours by energy, the reference's live and post-hoc ones), time to first
 * audio, and how long the agent took to stop when the caller barged in.
 */
export const AudioAggregateSchema = z.object({
  trials: z.number().int().positive().describe("Trials with audio figures"),
  v2v: LatencyStatsSchema.describe(
    "Voice-to-voice latency: the caller's last speech frame as sent to the agent's first as heard (energy)",
  ),
  ref_frame: LatencyStatsSchema.describe(
    "The reference's live latency: the agent's first audio frame after the caller's last audio sample",
  ),
  ref_segment: LatencyStatsSchema.describe(
    "The reference's post-hoc latency: agent segment start − (caller segment end − 0.3 s)",
  ),
  ttfa: LatencyStatsSchema.describe("Time to first audio of the call, one sample per trial"),
  barge_in_yield: LatencyStatsSchema.describe(
    "Per barge-in: the caller's start to the end of the agent's audio",
  ),
  barge_ins: z.object({
    count: z.number().int().nonnegative(),
    yielded: z.number().int().nonnegative().describe("The agent stopped before its end"),
  }),
});
export type AudioAggregate = z.infer<typeof AudioAggregateSchema>;

export const AggregateSchema = z.object({
  scenarios: z.number().int().nonnegative(),
  trials: z.number().int().nonnegative(),
  /** `is_successful` over trials where it is boolean. */
  success: Rate.describe("is_successful over trials where it is boolean."),
  task_success: Rate,
  /** Trials whose `is_successful` is `"N/A"` (no whitelisted signal applied). */
  not_applicable: z.number().int().nonnegative().describe(
    'Trials whose is_successful is "N/A" (no whitelisted signal applied).',
  ),
  insufficient_agent_turns: z.number().int().nonnegative(),
  /** Each signal over the trials where it applies. */
  signals: z.record(Signal, Rate).describe("Each signal over the trials where it applies."),
  assertions: z.object({ db_state: Rate, nl: Rate }),
  judge_score_mean: z.number().nullable(),
  pass_hat_k: z.array(z.object({
    k: z.number().int().positive(),
    pass_hat_k: z.number(),
    pass_power_k: z.number(),
  })),
  /** Bootstrap 95% interval of pass^1 over scenarios (seeded). */
  pass_1_ci95: z.tuple([z.number(), z.number()]).nullable().describe(
    "Bootstrap 95% interval of pass^1 over scenarios (seeded).",
  ),
  latency: LatencyStatsSchema,
  ttft: LatencyStatsSchema,
  /** Trials whose call ran on the simulated clock (their latencies are 0 ms, not measured). */
  simulated_clock_trials: z.number().int().nonnegative().describe(
    "Trials whose call ran on the simulated clock (their latencies are 0 ms, not measured).",
  ),
  usage: z.object({ agent: UsageSchema, user: UsageSchema }),
  duration_ms: z.object({ total: z.number(), mean: z.number().nullable() }),
  /** Infrastructure-error trials by kind. */
  errors: z.record(z.string(), z.number().int().positive()).describe(
    "Infrastructure-error trials by kind.",
  ),
  voice: z.object({
    trials_flagged: z.number().int().nonnegative(),
    flags: z.number().int().nonnegative(),
  }),
  /** Audio calls' figures (`eval --audio`); absent when no trial of the group has them. */
  audio: AudioAggregateSchema.optional().describe(
    "Audio calls' figures (eval --audio); absent when no trial of the group has them.",
  ),
  /** Audio calls: success by the caller's voice; absent when no trial names one. */
  by_voice: z.record(z.string(), Rate).optional().describe(
    "Audio calls: success by the caller's voice (a run spread over voices); absent when no trial names one",
  ),
  /** Audio calls' interaction metrics, mean and bootstrap 95% CI (src/report/interaction_summary.ts). */
  interaction: InteractionAggregateSchema.optional().describe(
    "Audio calls' interaction metrics, each a mean with a bootstrap 95% CI over scenarios; absent " +
      "when no trial has them.",
  ),
});
export type Aggregate = z.infer<typeof AggregateSchema>;

export const ScenarioRowSchema = z.object({
  scenario: z.string(),
  /** The configuration the row is about (one row per scenario and configuration). */
  label: z.string().nullable().describe(
    "The configuration the row is about (one row per scenario and configuration).",
  ),
  config_hash: z.string(),
  suite: z.string(),
  domain: z.string(),
  trials: z.number().int().nonnegative(),
  successes: z.number().int().nonnegative(),
  /** Trials with a boolean verdict. */
  scored: z.number().int().nonnegative().describe("Trials with a boolean verdict."),
  success_rate: z.number().nullable(),
  /** C(c,K)/C(n,K) at the report's K. */
  pass_hat_k: z.number().nullable().describe("C(c,K)/C(n,K) at the report's K."),
  errors: z.number().int().nonnegative(),
  latency_p50_ms: z.number().nullable(),
  /** Signals that failed in any trial, with how many trials. */
  failed_signals: z.partialRecord(Signal, z.number().int().positive()).describe(
    "Signals that failed in any trial, with how many trials.",
  ),
  trials_detail: z.array(z.object({
    trial: z.number().int().nonnegative(),
    seed: z.string(),
    config_hash: z.string(),
    is_successful: z.union([z.boolean(), z.literal("N/A")]),
    status: z.enum(["completed", "error"]),
    error_kind: z.string().optional(),
    stop_reason: z.string(),
    /** The agent reported its own world (`--agent-world self`): its claim, unchecked. */
    self_reported: z.literal(true).optional().describe(
      "The agent reported its own world (--agent-world self): its claim, unchecked.",
    ),
    failed: z.array(Signal),
    /** A failed trial's first failing signal (or its error) and what shows it. */
    first_failure: z.object({
      signal: z.string(),
      summary: z.string(),
      details: z.array(z.string()).describe("further evidence, at most 5 lines"),
    }).optional().describe(
      "A failed trial's first failing signal (or its error) and what shows it.",
    ),
    turns: z.number().int().nonnegative(),
    duration_ms: z.number(),
  })),
});
export type ScenarioRow = z.infer<typeof ScenarioRowSchema>;

/** One configuration (label + config hash): its participants and its own aggregate. */
export const ConfigurationSchema = z.object({
  label: z.string().nullable(),
  config_hash: z.string(),
  /** As its first verdict names them (`null` for verdicts of older versions). */
  participants: z.object({ agent: ParticipantInfoSchema, user: ParticipantInfoSchema })
    .nullable(),
  /** This configuration's K of pass^k. */
  k_max: z.number().int().nonnegative().describe("This configuration's K of pass^k."),
  /** This configuration's headline figures. */
  overall: AggregateSchema.describe("This configuration's headline figures."),
  /** This configuration's aggregate per suite (pass^k at the configuration's own K). */
  by_suite: z.record(z.string(), AggregateSchema).describe(
    "This configuration's aggregate per suite (pass^k at the configuration's own K).",
  ),
  /** Its aggregate per call language, where the trials name one (EVA-Bench's cultures). */
  by_language: z.record(z.string(), AggregateSchema).optional().describe(
    "Its aggregate per call language, where the trials name one (EVA-Bench's cultures).",
  ),
  /** This configuration's agent response latencies, binned (`null`: none). */
  latency_histogram: HistogramSchema.nullable().describe(
    "This configuration's agent response latencies, binned (null: none).",
  ),
});
export type Configuration = z.infer<typeof ConfigurationSchema>;

/** The report over a set of verdicts, version `REPORT_SCHEMA` (`callbench report`'s JSON). */
export const ReportSchema = z.object({
  schema: z.literal(REPORT_SCHEMA),
  /** Error trials were left out of the aggregates (`--exclude-errors`). */
  exclude_errors: z.boolean().describe(
    "Error trials were left out of the aggregates (--exclude-errors).",
  ),
  /** Verdicts read, and how many a later verdict with the same trial key replaced. */
  input: z.object({
    verdicts: z.number().int().nonnegative(),
    duplicates: z.number().int().nonnegative(),
    excluded_errors: z.number().int().nonnegative(),
    /** Infrastructure-error trials by kind, excluded or not. */
    errors: z.record(z.string(), z.number().int().positive()).describe(
      "Infrastructure-error trials by kind, excluded or not.",
    ),
  }),
  /**
   * Each configuration read, by label then config hash, with all its figures: the
   * report's headline is per configuration, and no figure pools two of them.
   */
  configurations: z.array(ConfigurationSchema).describe(
    "Each configuration read, by label then config hash, with all its figures: the report's " +
      "headline is per configuration, and no figure pools two of them.",
  ),
  scenarios: z.array(ScenarioRowSchema),
  /** With a baseline configuration: each other configuration compared against it. */
  baseline: z.object({
    label: z.string(),
    comparisons: z.array(ComparisonSchema),
  }).optional().describe(
    "With a baseline configuration: each other configuration compared against it.",
  ),
});
/** A report, as `summarize` returns it and `ReportSchema` parses it. */
// The type is generated from the schema above (`deno task schema`): the package
// exports it without naming zod's types, and a test holds the two the same.
export type { Report } from "../../schemas/types.ts";
import type { Report } from "../../schemas/types.ts";

/** A configuration (label + config hash) as one string. */
export function configurationOf(v: Pick<Verdict, "label" | "config_hash">): string {
  return JSON.stringify([v.label ?? null, v.config_hash]);
}

/** A trial key as one string. */
export function trialKeyOf(
  v: Pick<Verdict, "scenario" | "trial" | "seed" | "config_hash">,
): string {
  return JSON.stringify([v.scenario, v.trial, v.seed, v.config_hash]);
}

/** Keeps the last verdict of each trial key; counts the ones replaced. */
export class VerdictSet<V extends Pick<Verdict, "scenario" | "trial" | "seed" | "config_hash">> {
  readonly #byKey = new Map<string, V>();
  read = 0;
  duplicates = 0;

  add(v: V): void {
    this.read++;
    const key = trialKeyOf(v);
    if (this.#byKey.has(key)) this.duplicates++;
    this.#byKey.set(key, v);
  }

  /** The kept verdicts, by scenario, then trial, seed and config hash. */
  sorted(): V[] {
    return [...this.#byKey.values()].sort((a, b) =>
      _compare(a.scenario, b.scenario) || a.trial - b.trial || _compare(a.seed, b.seed) ||
      _compare(a.config_hash, b.config_hash)
    );
  }
}

export type { ReportedVerdict } from "./reported_verdict.ts";

/** How `summarize` builds the report. */
export interface SummaryOptions {
  /** Leave infrastructure-error trials out of every aggregate (still counted in `errors`). */
  excludeErrors?: boolean;
  /** Seed of the pass^1 bootstrap. Default 1. */
  seed?: number;
  /** Counts to carry into `input` (from a `VerdictSet`). */
  read?: number;
  /** Verdicts dropped as duplicates of a trial key (from a `VerdictSet`), carried into `input`. */
  duplicates?: number;
}

/** The report over de-duplicated verdicts, sorted by scenario and trial. */
export function summarize(all: readonly ReportedVerdict[], options: SummaryOptions = {}): Report {
  const verdicts = options.excludeErrors ? all.filter((v) => v.status !== "error") : all;
  const excluded = all.length - verdicts.length;

  const byConfiguration = [...Map.groupBy(verdicts, configurationOf).values()].sort((a, b) =>
    _compare(a[0]!.label ?? "", b[0]!.label ?? "") ||
    _compare(a[0]!.config_hash, b[0]!.config_hash)
  );
  const errors: Record<string, number> = {};
  for (const v of all) {
    if (v.status === "error") {
      const kind = v.error?.kind ?? "harness_error";
      errors[kind] = (errors[kind] ?? 0) + 1;
    }
  }

  return {
    schema: REPORT_SCHEMA,
    exclude_errors: options.excludeErrors ?? false,
    input: {
      verdicts: options.read ?? all.length,
      duplicates: options.duplicates ?? 0,
      excluded_errors: excluded,
      errors: _sortedCounts(errors),
    },
    configurations: byConfiguration.map((vs) => ({
      label: vs[0]!.label ?? null,
      config_hash: vs[0]!.config_hash,
      participants: vs[0]!.participants ?? null,
      k_max: _kMax(vs),
      overall: aggregate(vs, options.seed),
      by_suite: _bySuite(vs, options.seed),
      ...(_byLanguage(vs, options.seed)),
      latency_histogram: histogram(vs.flatMap((v) => v.metrics.latency_ms)),
    })),
    scenarios: byConfiguration.flatMap((vs) => _scenarioRows(vs, _kMax(vs))).sort((a, b) =>
      _compare(a.scenario, b.scenario) || _compare(a.label ?? "", b.label ?? "") ||
      _compare(a.config_hash, b.config_hash)
    ),
  };
}

/** The aggregate of one group of verdicts, all of one configuration. */
export function aggregate(verdicts: readonly ReportedVerdict[], seed = 1): Aggregate {
  const success = _rate();
  const task = _rate();
  const signals = Object.fromEntries(SIGNALS.map((s) => [s, _rate()])) as Record<Signal, Rate>;
  const dbAssertions = _rate();
  const nlAssertions = _rate();
  const usage = { agent: _usage(), user: _usage() };
  const errors: Record<string, number> = {};
  const latency: number[] = [];
  const ttft: number[] = [];
  let notApplicable = 0;
  let insufficient = 0;
  let judgeSum = 0;
  let judgeCount = 0;
  let duration = 0;
  let trialsFlagged = 0;
  let flags = 0;
  let simulatedTrials = 0;

  for (const v of verdicts) {
    if (typeof v.is_successful === "boolean") {
      success.total++;
      if (v.is_successful) success.passed++;
    } else {
      notApplicable++;
    }
    if (v.is_task_successful !== undefined) {
      task.total++;
      if (v.is_task_successful) task.passed++;
    }
    if (v.insufficient_agent_turns) insufficient++;
    if (v.status === "error") {
      const kind = v.error?.kind ?? "harness_error";
      errors[kind] = (errors[kind] ?? 0) + 1;
    }
    for (const side of ["agent", "user"] as const) {
      const u = v.metrics.usage[side];
      usage[side].calls += u.calls;
      usage[side].prompt_tokens += u.prompt_tokens;
      usage[side].completion_tokens += u.completion_tokens;
    }
    for (const ms of v.metrics.latency_ms) latency.push(ms);
    for (const ms of v.metrics.ttft_ms) ttft.push(ms);
    if (v.metrics.clock === "simulated") simulatedTrials++;
    duration += v.metrics.duration_ms;
    if (v.details.voice.flags.length > 0) {
      trialsFlagged++;
      flags += v.details.voice.flags.length;
    }

    if (v.insufficient_agent_turns || v.status === "error") continue;
    for (const s of SIGNALS) {
      const value = v.signals[s];
      if (value === null) continue;
      signals[s].total++;
      if (value) signals[s].passed++;
    }
    const db = v.details.db_state_assertion;
    if (db) {
      dbAssertions.passed += db.passed;
      dbAssertions.total += db.total;
    }
    const nl = v.details.nl_assertion;
    if (nl) {
      nlAssertions.passed += nl.passed;
      nlAssertions.total += nl.total;
    }
    const judge = v.details.judge;
    if (judge?.status === "completed" && judge.score !== null) {
      judgeSum += judge.score;
      judgeCount++;
    }
  }

  const counts = [..._scenarioCounts(verdicts).values()];
  const audio = audioAggregate(verdicts);
  const interaction = interactionAggregate(verdicts, { seed });
  const byVoice: Record<string, Rate> = {};
  for (const v of verdicts) {
    const voice = v.metrics.audio?.user_voice;
    if (!voice || typeof v.is_successful !== "boolean") continue;
    const r = byVoice[voice] ??= _rate();
    r.total++;
    if (v.is_successful) r.passed++;
  }
  return {
    scenarios: new Set(verdicts.map((v) => v.scenario)).size,
    trials: verdicts.length,
    success: _finish(success),
    task_success: _finish(task),
    not_applicable: notApplicable,
    insufficient_agent_turns: insufficient,
    signals: Object.fromEntries(SIGNALS.map((s) => [s, _finish(signals[s])])) as Record<
      Signal,
      Rate
    >,
    assertions: { db_state: _finish(dbAssertions), nl: _finish(nlAssertions) },
    judge_score_mean: judgeCount > 0 ? judgeSum / judgeCount : null,
    pass_hat_k: passHatKCurve(counts),
    pass_1_ci95: bootstrapPass1(counts, { seed }),
    latency: latencyStats(latency),
    ttft: latencyStats(ttft),
    simulated_clock_trials: simulatedTrials,
    usage,
    duration_ms: {
      total: duration,
      mean: verdicts.length > 0 ? duration / verdicts.length : null,
    },
    errors: _sortedCounts(errors),
    voice: { trials_flagged: trialsFlagged, flags },
    ...(audio ? { audio } : {}),
    ...(interaction ? { interaction } : {}),
    ...(Object.keys(byVoice).length > 0
      ? {
        by_voice: Object.fromEntries(
          Object.keys(byVoice).sort().map((k) => [k, _finish(byVoice[k]!)]),
        ),
      }
      : {}),
  };
}

/** The audio figures pooled over the verdicts that have them; undefined when none has. */
export function audioAggregate(verdicts: readonly ReportedVerdict[]): AudioAggregate | undefined {
  const v2v: number[] = [];
  const frame: number[] = [];
  const segment: number[] = [];
  const ttfa: number[] = [];
  const yields: number[] = [];
  let trials = 0;
  let yielded = 0;
  for (const v of verdicts) {
    const a = v.metrics.audio;
    if (!a) continue;
    trials++;
    v2v.push(...a.v2v_ms);
    frame.push(...a.ref_frame_ms);
    segment.push(...a.ref_segment_ms);
    if (a.ttfa_ms !== null) ttfa.push(a.ttfa_ms);
    yields.push(...a.barge_in_yield_ms);
    yielded += a.barge_ins_yielded;
  }
  if (trials === 0) return undefined;
  return {
    trials,
    v2v: latencyStats(v2v),
    ref_frame: latencyStats(frame),
    ref_segment: latencyStats(segment),
    ttfa: latencyStats(ttfa),
    barge_in_yield: latencyStats(yields),
    barge_ins: { count: yields.length, yielded },
  };
}

/** n and c per scenario, in scenario order, over trials with a boolean verdict. */
function _scenarioCounts(verdicts: readonly ReportedVerdict[]): Map<string, ScenarioCount> {
  const counts = new Map<string, ScenarioCount>();
  for (const v of verdicts) {
    if (typeof v.is_successful !== "boolean") continue;
    let s = counts.get(v.scenario);
    if (!s) counts.set(v.scenario, s = { n: 0, c: 0 });
    s.n++;
    if (v.is_successful) s.c++;
  }
  return new Map([...counts.entries()].sort(([a], [b]) => _compare(a, b)));
}

function _scenarioRows(verdicts: readonly ReportedVerdict[], k: number): ScenarioRow[] {
  const groups = new Map<string, ReportedVerdict[]>();
  for (const v of verdicts) {
    const list = groups.get(v.scenario);
    if (list) list.push(v);
    else groups.set(v.scenario, [v]);
  }
  const names = [...groups.keys()].sort();
  return names.map((scenario) => {
    const trials = groups.get(scenario)!.slice().sort((a, b) => a.trial - b.trial);
    const first = trials[0]!;
    let scored = 0;
    let successes = 0;
    let errors = 0;
    const failed: Partial<Record<Signal, number>> = {};
    const latency: number[] = [];
    for (const v of trials) {
      if (typeof v.is_successful === "boolean") {
        scored++;
        if (v.is_successful) successes++;
      }
      if (v.status === "error") errors++;
      // A trial that broke never tested the agent: its signals are not the agent's failures.
      else for (const s of v.success_breakdown.failed) failed[s] = (failed[s] ?? 0) + 1;
      for (const ms of v.metrics.latency_ms) latency.push(ms);
    }
    return {
      scenario,
      label: first.label ?? null,
      config_hash: first.config_hash,
      suite: first.suite,
      domain: first.domain,
      trials: trials.length,
      successes,
      scored,
      success_rate: scored > 0 ? successes / scored : null,
      pass_hat_k: k > 0 && scored >= k ? passHatK(scored, successes, k) : null,
      errors,
      latency_p50_ms: latencyStats(latency).p50_ms,
      failed_signals: Object.fromEntries(
        SIGNALS.filter((s) => failed[s] !== undefined).map((s) => [s, failed[s]!]),
      ),
      trials_detail: trials.map((v) => ({
        trial: v.trial,
        seed: v.seed,
        config_hash: v.config_hash,
        is_successful: v.is_successful,
        status: v.status,
        ...(v.error ? { error_kind: v.error.kind } : {}),
        stop_reason: v.stop_reason,
        ...(v.self_reported ? { self_reported: true as const } : {}),
        failed: v.success_breakdown.failed,
        ...(_firstFailure(v)),
        turns: v.metrics.turns,
        duration_ms: v.metrics.duration_ms,
      })),
    };
  });
}

function _bySuite(
  verdicts: readonly ReportedVerdict[],
  seed: number | undefined,
): Record<string, Aggregate> {
  const groups = Map.groupBy(verdicts, (v) => v.suite);
  return Object.fromEntries(
    [...groups.keys()].sort().map((s) => [s, aggregate(groups.get(s)!, seed)]),
  );
}

/** Per language, when any trial names one (a trial naming none counts as "unset"). */
function _byLanguage(
  verdicts: readonly ReportedVerdict[],
  seed: number | undefined,
): { by_language?: Record<string, Aggregate> } {
  if (!verdicts.some((v) => v.language !== undefined)) return {};
  const groups = Map.groupBy(verdicts, (v) => v.language ?? "unset");
  return {
    by_language: Object.fromEntries(
      [...groups.keys()].sort().map((l) => [l, aggregate(groups.get(l)!, seed)]),
    ),
  };
}

function _firstFailure(
  v: ReportedVerdict,
): { first_failure?: ScenarioRow["trials_detail"][number]["first_failure"] } {
  if (v.is_successful !== false) return {};
  const note = firstFailure(v);
  if (!note) return {};
  return {
    first_failure: {
      signal: note.signal,
      summary: note.summary,
      details: note.details.slice(0, 5),
    },
  };
}

/** The K of pass^k: the fewest scored trials of any scenario. */
function _kMax(verdicts: readonly ReportedVerdict[]): number {
  let k = 0;
  for (const { n } of _scenarioCounts(verdicts).values()) k = k === 0 ? n : Math.min(k, n);
  return k;
}

function _sortedCounts(counts: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.keys(counts).sort().map((k) => [k, counts[k]!]));
}

function _rate(): Rate {
  return { passed: 0, total: 0, rate: null };
}

function _finish(r: Rate): Rate {
  return { passed: r.passed, total: r.total, rate: r.total > 0 ? r.passed / r.total : null };
}

function _usage() {
  return { calls: 0, prompt_tokens: 0, completion_tokens: 0 };
}

function _compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

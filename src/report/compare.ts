/**
 * Two runs side by side (`callbench compare A B`): per suite and overall, each figure
 * for A, for B, and B − A with a 95% interval and a test of "no difference"; the
 * regression gate's decision on each figure it gates, line by line; then the scenarios
 * whose success changed, with the first failing signal of each.
 *
 * - Only scenarios present in both runs (with a boolean verdict in each) are compared;
 *   the others are listed apart. The interval's unit of resampling is the scenario (a
 *   paired bootstrap: both runs' figures of a scenario stay together).
 * - Success is the pooled rate over trials; its test is McNemar's exact test on the
 *   trials paired by scenario and trial index. pass^K (K the fewest trials of any
 *   compared scenario in either run: every trial passed) is tested by McNemar's exact
 *   test on the scenarios; pass^k for k < K and the sample figures (latency p50/p95, the
 *   audio figures, the interaction metrics, each an entry of `SAMPLE_METRICS`) by the
 *   bootstrap.
 * - The gate (`compare_gate.ts`) decides what is a regression: a gated figure whose
 *   change is significant after Holm-Bonferroni over the gated tests, in the worse
 *   direction, and at least its minimum effect (latency: +100 ms and +10% by default,
 *   and only with enough samples on each side); and each scenario that passed every
 *   trial in A and fails every trial in B (at least 2 each), under the success rule.
 *   A figure the gate does not check shows its p but no verdict. The line's own
 *   figures (SNR, frames lost or late) describe the condition compared, not the agent:
 *   they get an interval but no test.
 *
 * @module
 */
import { z } from "zod";
import type { ReportedVerdict } from "./reported_verdict.ts";
import { passHatK } from "./pass_hat_k.ts";
import { bootstrap, type BootstrapOptions, holmBonferroni, mcnemarExact } from "./stats.ts";
import { firstFailure } from "./failure_notes.ts";
import {
  type Gate,
  type GateKey,
  KEY_INFO,
  minEffectText,
  parseGate,
  reachesMin,
  SCENARIO_RULE_MIN_TRIALS,
} from "./compare_gate.ts";
import { type InteractionKey, interactionSamples } from "./interaction_summary.ts";

export const COMPARISON_SCHEMA = "callbench.comparison/1";

/** How a figure's values read: a share (shown as %), milliseconds, or a plain number. */
export type MetricUnit = "share" | "ms" | "number";

/**
 * A figure measured per trial as samples, pooled over a group and read at a quantile
 * or as their mean.
 */
export interface SampleMetric {
  /** The figure's name in the comparison (`latency p50 ms`). */
  name: string;
  /** Its key in a gate (`latency.p50`); none: the gate cannot check it (the line's figures). */
  key?: GateKey;
  /** Which way is better. */
  better: "higher" | "lower";
  unit: MetricUnit;
  /** A trial's samples (none: the trial does not count). */
  samples: (v: ReportedVerdict) => readonly number[];
  /**
   * The pooled samples' quantile (the report's rule `sorted[floor(n · q)]`), or their
   * mean (the report's interaction figures: rates one sample per trial, scores per turn).
   */
  at: number | "mean";
  /**
   * A figure of the condition, not of the agent (the line's SNR and lost frames): shown
   * with its interval but not tested (no p, outside the Holm-Bonferroni family), so a
   * sweep's harder line is never called the agent's regression.
   */
  condition?: true;
}

/**
 * An audio trial's share of the caller's line frames lost or late, one sample: 0 on a
 * clean line (no line block: nothing was dropped); none for a text call.
 */
function _share(v: ReportedVerdict, which: "lost" | "late"): number[] {
  const a = v.metrics.audio;
  if (!a) return [];
  const f = a.line_frames;
  if (!f) return [0];
  return f.total > 0 ? [f[which] / f.total] : [];
}

/** A trial's samples of one interaction metric (none without `metrics.interaction`). */
function _interaction(key: InteractionKey): (v: ReportedVerdict) => readonly number[] {
  return (v) => (v.metrics.interaction ? interactionSamples(v.metrics.interaction, key) : []);
}

/**
 * The sample figures compared, in order; a figure is compared where both runs have
 * samples of it. A new figure is one more entry here.
 */
export const SAMPLE_METRICS: readonly SampleMetric[] = [
  {
    name: "latency p50 ms",
    key: "latency.p50",
    better: "lower",
    unit: "ms",
    samples: (v) => v.metrics.latency_ms,
    at: 0.5,
  },
  {
    name: "latency p95 ms",
    key: "latency.p95",
    better: "lower",
    unit: "ms",
    samples: (v) => v.metrics.latency_ms,
    at: 0.95,
  },
  {
    name: "voice-to-voice p50 ms",
    key: "v2v.p50",
    better: "lower",
    unit: "ms",
    samples: (v) => v.metrics.audio?.v2v_ms ?? [],
    at: 0.5,
  },
  {
    name: "voice-to-voice p95 ms",
    key: "v2v.p95",
    better: "lower",
    unit: "ms",
    samples: (v) => v.metrics.audio?.v2v_ms ?? [],
    at: 0.95,
  },
  {
    name: "time to first audio p50 ms",
    key: "ttfa.p50",
    better: "lower",
    unit: "ms",
    samples: (v) => (v.metrics.audio?.ttfa_ms != null ? [v.metrics.audio.ttfa_ms] : []),
    at: 0.5,
  },
  // The line (audio.line): what the agent heard of the caller.
  {
    name: "line SNR p50 dB",
    condition: true,
    better: "higher",
    unit: "number",
    samples: (v) => v.metrics.audio?.line_snr_db ?? [],
    at: 0.5,
  },
  {
    name: "frames lost",
    condition: true,
    better: "lower",
    unit: "share",
    samples: (v) => _share(v, "lost"),
    at: "mean",
  },
  {
    name: "frames late",
    condition: true,
    better: "lower",
    unit: "share",
    samples: (v) => _share(v, "late"),
    at: "mean",
  },
  // The interaction metrics (metrics.interaction, audio calls).
  {
    name: "response latency p50 ms",
    key: "interaction.response_latency.p50",
    better: "lower",
    unit: "ms",
    samples: _interaction("response_latency_ms"),
    at: 0.5,
  },
  {
    name: "turn-taking score",
    key: "interaction.turn_taking_score",
    better: "higher",
    unit: "number",
    samples: _interaction("turn_taking_score"),
    at: "mean",
  },
  {
    name: "yield latency p50 ms",
    key: "interaction.yield_latency.p50",
    better: "lower",
    unit: "ms",
    samples: _interaction("yield_latency_ms"),
    at: 0.5,
  },
  {
    name: "yield rate",
    key: "interaction.yield_rate",
    better: "higher",
    unit: "share",
    samples: _interaction("yield_rate"),
    at: "mean",
  },
  {
    name: "agent interruptions per turn",
    key: "interaction.agent_interruptions_per_turn",
    better: "lower",
    unit: "number",
    samples: _interaction("agent_interruptions_per_turn"),
    at: "mean",
  },
  {
    name: "backchannel selectivity",
    key: "interaction.backchannel_selectivity",
    better: "higher",
    unit: "share",
    samples: _interaction("backchannel_selectivity"),
    at: "mean",
  },
  {
    name: "vocal tic selectivity",
    key: "interaction.vocal_tic_selectivity",
    better: "higher",
    unit: "share",
    samples: _interaction("vocal_tic_selectivity"),
    at: "mean",
  },
  {
    name: "non-directed selectivity",
    key: "interaction.non_directed_selectivity",
    better: "higher",
    unit: "share",
    samples: _interaction("non_directed_selectivity"),
    at: "mean",
  },
  {
    name: "pause selectivity",
    key: "interaction.pause_selectivity",
    better: "higher",
    unit: "share",
    samples: _interaction("pause_selectivity"),
    at: "mean",
  },
];

const Interval = z.tuple([z.number(), z.number()]);

export const MetricComparisonSchema = z.object({
  metric: z.string().describe("success, pass^k, or a sample figure such as latency p50 ms"),
  key: z.string().nullable().describe(
    "the figure's key in a gate (success, pass^k for the K compared, latency.p95...); null: not gateable",
  ),
  n: z.tuple([z.number().int(), z.number().int()]).describe(
    "what each side counts: trials (success), scenarios (pass^k) or pooled samples",
  ),
  better: z.enum(["higher", "lower"]),
  unit: z.enum(["share", "ms", "number"]).describe(
    "how a, b and delta read: share (0 to 1, shown as %), ms, or a plain number",
  ),
  a: z.number().nullable(),
  b: z.number().nullable(),
  delta: z.number().nullable().describe("b − a"),
  ci95: Interval.nullable().describe("paired bootstrap 95% interval of b − a over scenarios"),
  test: z.enum(["mcnemar", "bootstrap"]).describe(
    "mcnemar: exact test on paired outcomes (success: trials; pass^K: scenarios); " +
      "bootstrap: two-sided bootstrap p",
  ),
  p: z.number().nullable().describe(
    "the test's p (null: not tested, as the line's own figures, which describe the condition)",
  ),
  p_holm: z.number().nullable().describe(
    "p adjusted by Holm-Bonferroni over the gated tests (null: the gate does not check it)",
  ),
  significant: z.boolean().describe("gated, and p_holm <= alpha"),
  change: z.enum(["regression", "improvement", "none"]).describe(
    "the gate's verdict: significant, at least the minimum effect, worse (regression) or " +
      "better (improvement); none otherwise and for every figure the gate does not check",
  ),
  decision: z.string().nullable().describe(
    "the gate's reasoning on this figure in one line (null: not gated)",
  ),
});
export type MetricComparison = z.infer<typeof MetricComparisonSchema>;

export const ScopeComparisonSchema = z.object({
  scope: z.string().describe('"overall" or a suite'),
  scenarios: z.number().int().nonnegative().describe("scenarios compared (in both runs)"),
  metrics: z.array(MetricComparisonSchema),
});
export type ScopeComparison = z.infer<typeof ScopeComparisonSchema>;

const Outcome = z.object({
  passed: z.number().int().nonnegative(),
  scored: z.number().int().nonnegative(),
});

export const FlipSchema = z.object({
  scenario: z.string(),
  suite: z.string(),
  direction: z.enum(["regressed", "improved"]),
  a: Outcome,
  b: Outcome,
  /** The first failing trial of the run that did worse, and its first failing signal. */
  first_failure: z.object({
    run: z.enum(["a", "b"]),
    trial: z.number().int().nonnegative(),
    signal: z.string(),
    summary: z.string(),
  }).nullable().describe(
    "the first failing trial of the run that did worse, and its first failing signal",
  ),
});
export type Flip = z.infer<typeof FlipSchema>;

const RunSchema = z.object({
  name: z.string().describe("what the run was given as (a file, folder or label)"),
  configurations: z.array(z.object({ label: z.string().nullable(), config_hash: z.string() })),
  scenarios: z.number().int().nonnegative(),
  trials: z.number().int().nonnegative(),
});

/** `callbench compare`'s JSON, version `COMPARISON_SCHEMA`. */
export const ComparisonSchema = z.object({
  schema: z.literal(COMPARISON_SCHEMA),
  a: RunSchema,
  b: RunSchema,
  alpha: z.number().describe("family-wise significance level (Holm-Bonferroni)"),
  k_max: z.number().int().nonnegative().describe("the K of the pass^k compared"),
  unpaired: z.object({
    a_only: z.array(z.string()).describe("scenarios only A scored"),
    b_only: z.array(z.string()).describe("scenarios only B scored"),
  }),
  scopes: z.array(ScopeComparisonSchema),
  flips: z.array(FlipSchema).describe(
    "scenarios whose success rate changed, the largest change first",
  ),
  gate: z.object({
    rules: z.array(z.object({
      key: z.string(),
      min_effect: z.string().describe("the smallest worsening that counts, as written"),
    })),
    min_samples: z.number().int().nonnegative().describe(
      "fewest samples on each side for a figure in ms to be gated",
    ),
    scenario_rule: z.boolean().describe(
      "each scenario that passed every trial in A and failed every trial in B (at least 2 " +
        "each) is a regression (part of the success rule)",
    ),
    lines: z.array(z.string()).describe("the gate's decision, line by line"),
  }),
  regressions: z.array(z.object({
    scope: z.string(),
    metric: z.string().describe('a figure, or "scenario" for the scenario rule'),
    scenario: z.string().optional().describe("the scenario, for the scenario rule"),
  })),
});
/** A comparison of two runs (see `ComparisonSchema`). */
export type Comparison = z.infer<typeof ComparisonSchema>;

/** How `compareRuns` compares. */
export interface CompareOptions extends BootstrapOptions {
  /** Names of the two runs as the user gave them. Default "A" and "B". */
  names?: [string, string];
  /** Family-wise significance level. Default 0.05. */
  alpha?: number;
  /** What the gate checks. Default `parseGate()`: success, pass^k and latency p95. */
  gate?: Gate;
}

interface _Side {
  n: number;
  c: number;
  /** Outcome by trial index (boolean verdicts only). */
  byTrial: Map<number, boolean>;
  verdicts: ReportedVerdict[];
}

/** Compares run B against run A (each one configuration's verdicts, de-duplicated). */
export function compareRuns(
  a: readonly ReportedVerdict[],
  b: readonly ReportedVerdict[],
  options: CompareOptions = {},
): Comparison {
  const alpha = options.alpha ?? 0.05;
  const sideA = _bySide(a);
  const sideB = _bySide(b);
  const paired = [...sideA.keys()].filter((s) => sideB.has(s)).sort();
  let k = 0;
  for (const s of paired) {
    const m = Math.min(sideA.get(s)!.n, sideB.get(s)!.n);
    k = k === 0 ? m : Math.min(k, m);
  }
  const suiteOf = new Map(paired.map((s) => [s, sideA.get(s)!.verdicts[0]!.suite]));
  // One suite: its figures are the overall ones, shown (and tested) once.
  const suites = [...new Set(suiteOf.values())].sort();
  if (suites.length === 1) suites.length = 0;
  const scopes: ScopeComparison[] = [
    { scope: "overall", names: paired },
    ...suites.map((s) => ({
      scope: s,
      names: paired.filter((n) => suiteOf.get(n) === s),
    })),
  ].map(({ scope, names }) => ({
    scope,
    scenarios: names.length,
    metrics: _metrics(names.map((n) => [sideA.get(n)!, sideB.get(n)!]), k, options),
  }));
  const gate = options.gate ?? _defaultGate();
  const lines = _decide(scopes, gate, alpha);
  const flips = _flips(paired, sideA, sideB);
  const scenarioRule = gate.rules.some((r) => r.key === "success");
  const fallen = scenarioRule ? flips.filter(_allToNone) : [];
  for (const f of fallen) {
    lines.push(
      `scenario ${f.scenario}: passed ${f.a.passed}/${f.a.scored} in A, ${f.b.passed}/${f.b.scored} ` +
        `in B: regression (every trial passed before and fails now)`,
    );
  }
  if (scenarioRule && fallen.length === 0) {
    lines.push(
      `scenarios: none passed every trial in A and failed every trial in B ` +
        `(at least ${SCENARIO_RULE_MIN_TRIALS} each): no regression`,
    );
  }

  return {
    schema: COMPARISON_SCHEMA,
    a: _run(options.names?.[0] ?? "A", a),
    b: _run(options.names?.[1] ?? "B", b),
    alpha,
    k_max: k,
    unpaired: {
      a_only: [...sideA.keys()].filter((s) => !sideB.has(s)).sort(),
      b_only: [...sideB.keys()].filter((s) => !sideA.has(s)).sort(),
    },
    scopes,
    flips,
    gate: {
      rules: gate.rules.map((r) => ({
        key: r.key,
        min_effect: minEffectText(r.min, KEY_INFO[r.key]),
      })),
      min_samples: gate.minSamples,
      scenario_rule: scenarioRule,
      lines,
    },
    regressions: [
      ...scopes.flatMap((s) =>
        s.metrics.filter((m) => m.change === "regression").map((m) => ({
          scope: s.scope,
          metric: m.metric,
        }))
      ),
      ...fallen.map((f) => ({ scope: f.suite, metric: "scenario", scenario: f.scenario })),
    ],
  };
}

let _gate: Gate | undefined;
function _defaultGate(): Gate {
  if (!_gate) {
    const parsed = parseGate();
    if (parsed.problems) throw new Error(parsed.problems[0]!.message);
    _gate = parsed.gate;
  }
  return _gate;
}

/** A scenario that passed every trial in A and fails every one in B, with enough trials. */
function _allToNone(f: Flip): boolean {
  return f.a.scored >= SCENARIO_RULE_MIN_TRIALS && f.b.scored >= SCENARIO_RULE_MIN_TRIALS &&
    f.a.passed === f.a.scored && f.b.passed === 0;
}

/**
 * The gate on each scope's figures: which are gated (a rule, enough samples), their
 * Holm-Bonferroni over the gated tests, and each one's verdict and line. Sets `p_holm`,
 * `significant`, `change` and `decision` in place; returns the lines.
 */
function _decide(scopes: ScopeComparison[], gate: Gate, alpha: number): string[] {
  const rules = new Map(gate.rules.map((r) => [r.key, r]));
  const lines: string[] = [];
  const tested: { m: MetricComparison; scope: string }[] = [];
  const notes = new Map<MetricComparison, string>();
  for (const s of scopes) {
    for (const m of s.metrics) {
      const rule = m.key === null ? undefined : rules.get(m.key as GateKey);
      if (!rule) continue;
      // Latency's quantiles only where there are enough samples to read them.
      const few = m.unit === "ms" && Math.min(m.n[0], m.n[1]) < gate.minSamples;
      if (m.p === null || m.a === null || m.b === null) {
        notes.set(m, `not gated: no value on one side`);
      } else if (few) {
        notes.set(
          m,
          `${m.n[0]} and ${m.n[1]} samples, fewer than ${gate.minSamples} on a side: not gated`,
        );
      } else tested.push({ m, scope: s.scope });
    }
  }
  const holm = holmBonferroni(tested.map((t) => t.m.p!), alpha);
  tested.forEach(({ m }, i) => {
    m.p_holm = holm.adjusted[i]!;
    m.significant = holm.significant[i]!;
  });
  for (const s of scopes) {
    for (const rule of gate.rules) {
      if (!s.metrics.some((m) => m.key === rule.key)) {
        lines.push(`${s.scope} ${rule.key}: not measured in both runs: not gated`);
      }
    }
    for (const m of s.metrics) {
      const rule = m.key === null ? undefined : rules.get(m.key as GateKey);
      if (!rule) continue;
      const head = `${s.scope} ${m.metric}: ${_shown(m, m.a)} → ${_shown(m, m.b)}`;
      const note = notes.get(m);
      if (note !== undefined) {
        m.decision = note;
        lines.push(`${head}: ${note}`);
        continue;
      }
      const info = KEY_INFO[rule.key];
      const delta = m.delta ?? 0;
      const worse = m.better === "higher" ? delta < 0 : delta > 0;
      const big = reachesMin(rule.min, m.a!, delta);
      const min = minEffectText(rule.min, info);
      const rel = m.a
        ? ` (${delta >= 0 ? "+" : "−"}${(Math.abs(delta / m.a) * 100).toFixed(1)}%)`
        : "";
      const p = `p ${m.p_holm!.toPrecision(2)} after Holm-Bonferroni ${
        m.significant ? "≤" : ">"
      } ${alpha}`;
      const size = `change ${_signed(m, delta)}${rel} ${big ? "reaches" : "does not reach"} ${
        min === "any" ? "the minimum (any)" : min
      }`;
      m.change = !m.significant || !big || delta === 0
        ? "none"
        : worse
        ? "regression"
        : "improvement";
      const verdict = m.change === "regression"
        ? "regression"
        : m.change === "improvement"
        ? "improvement"
        : !m.significant
        ? "not significant: no regression"
        : !big
        ? "too small: no regression"
        : "no regression";
      m.decision = `${size}, ${p}: ${verdict}`;
      lines.push(`${head}: ${m.decision}`);
    }
  }
  return lines;
}

function _shown(m: MetricComparison, x: number | null): string {
  if (x === null) return "–";
  if (m.unit === "share") return `${(x * 100).toFixed(1)}%`;
  return m.unit === "ms" ? `${Math.round(x)} ms` : x.toFixed(3);
}

function _signed(m: MetricComparison, x: number): string {
  const sign = x > 0 ? "+" : x < 0 ? "−" : "±";
  const abs = Math.abs(x);
  if (m.unit === "share") return `${sign}${(abs * 100).toFixed(1)} pt`;
  return m.unit === "ms" ? `${sign}${Math.round(abs)} ms` : `${sign}${abs.toFixed(3)}`;
}

function _metrics(
  pairs: [_Side, _Side][],
  k: number,
  options: BootstrapOptions,
): MetricComparison[] {
  if (pairs.length === 0) return [];
  const out: MetricComparison[] = [];
  const row = (
    metric: string,
    key: GateKey | null,
    n: [number, number],
    better: "higher" | "lower",
    unit: MetricUnit,
    value: (side: 0 | 1, idx: ArrayLike<number>) => number,
    test: "mcnemar" | "bootstrap",
    mcnemarP?: number,
    tested = true,
  ) => {
    const all = pairs.map((_, i) => i);
    const a = value(0, all);
    const b = value(1, all);
    const e = bootstrap(pairs.length, (idx) => value(1, idx) - value(0, idx), options);
    out.push({
      metric,
      key,
      n,
      better,
      unit,
      a: _finite(a),
      b: _finite(b),
      delta: _finite(b - a),
      ci95: e.ci95,
      test,
      p: !tested ? null : test === "mcnemar" ? mcnemarP! : e.p,
      p_holm: null,
      significant: false,
      change: "none",
      decision: null,
    });
  };

  // Success: pooled over trials; McNemar on trials paired by index.
  let aOnly = 0;
  let bOnly = 0;
  for (const [x, y] of pairs) {
    for (const [trial, passed] of x.byTrial) {
      const other = y.byTrial.get(trial);
      if (other === undefined || other === passed) continue;
      if (passed) aOnly++;
      else bOnly++;
    }
  }
  const trials = ([0, 1] as const).map((side) => pairs.reduce((sum, p) => sum + p[side].n, 0)) as [
    number,
    number,
  ];
  row(
    "success",
    "success",
    trials,
    "higher",
    "share",
    (side, idx) => {
      let c = 0;
      let n = 0;
      for (let i = 0; i < idx.length; i++) {
        const s = pairs[idx[i]!]![side];
        c += s.c;
        n += s.n;
      }
      return n > 0 ? c / n : NaN;
    },
    "mcnemar",
    mcnemarExact(aOnly, bOnly).p,
  );

  // pass^K (every trial passed): McNemar on the scenarios; pass^k, k < K: the bootstrap.
  let aAll = 0;
  let bAll = 0;
  for (const [x, y] of pairs) {
    const ax = x.c === x.n;
    const by = y.c === y.n;
    if (ax && !by) aAll++;
    if (by && !ax) bAll++;
  }
  for (let j = 1; j <= k; j++) {
    const last = j === k;
    row(
      `pass^${j}`,
      last ? "pass^k" : null,
      [pairs.length, pairs.length],
      "higher",
      "share",
      (side, idx) => {
        let sum = 0;
        for (let i = 0; i < idx.length; i++) {
          const s = pairs[idx[i]!]![side];
          sum += passHatK(s.n, s.c, j);
        }
        return sum / idx.length;
      },
      last ? "mcnemar" : "bootstrap",
      last ? mcnemarExact(aAll, bAll).p : undefined,
    );
  }

  for (const m of SAMPLE_METRICS) {
    const pooled = ([0, 1] as const).map((side) =>
      new _Pooled(pairs.map((p) => _samples(p[side], m)))
    );
    if (pooled[0]!.size === 0 || pooled[1]!.size === 0) continue;
    const at = m.at;
    row(
      m.name,
      m.key ?? null,
      [pooled[0]!.size, pooled[1]!.size],
      m.better,
      m.unit,
      (side, idx) => at === "mean" ? pooled[side]!.mean(idx) : pooled[side]!.at(idx, at),
      "bootstrap",
      undefined,
      m.condition !== true,
    );
  }
  return out;
}

/**
 * The samples of a group's scenarios, sorted once, so that a resample's pooled
 * quantile is one pass over them with each scenario weighted by how often it was
 * drawn (no copy, no sort per resample).
 */
class _Pooled {
  readonly size: number;
  readonly #values: Float64Array;
  readonly #unit: Int32Array;
  readonly #counts: Int32Array;
  readonly #sums: Float64Array;
  readonly #weights: Int32Array;

  constructor(units: readonly number[][]) {
    const all: [number, number][] = [];
    this.#counts = new Int32Array(units.length);
    this.#sums = new Float64Array(units.length);
    units.forEach((xs, u) => {
      for (const x of xs) all.push([x, u]);
      this.#counts[u] = xs.length;
      this.#sums[u] = xs.reduce((a, b) => a + b, 0);
    });
    all.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    this.size = all.length;
    this.#values = Float64Array.from(all, (e) => e[0]);
    this.#unit = Int32Array.from(all, (e) => e[1]);
    this.#weights = new Int32Array(units.length);
  }

  /** The mean of the drawn units' pooled samples; NaN when none. */
  mean(idx: ArrayLike<number>): number {
    let sum = 0;
    let n = 0;
    for (let i = 0; i < idx.length; i++) {
      sum += this.#sums[idx[i]!]!;
      n += this.#counts[idx[i]!]!;
    }
    return n === 0 ? NaN : sum / n;
  }

  /** The pooled samples of the drawn units at a quantile; NaN when none. */
  at(idx: ArrayLike<number>, at: number): number {
    const w = this.#weights;
    w.fill(0);
    let n = 0;
    for (let i = 0; i < idx.length; i++) {
      const u = idx[i]!;
      w[u]!++;
      n += this.#counts[u]!;
    }
    if (n === 0) return NaN;
    // The report's rule: sorted[min(n - 1, floor(n · q))], counted through the weights.
    const k = Math.min(n - 1, Math.floor(n * at));
    let seen = 0;
    for (let j = 0; j < this.size; j++) {
      seen += w[this.#unit[j]!]!;
      if (seen > k) return this.#values[j]!;
    }
    return this.#values[this.size - 1]!;
  }
}

function _samples(side: _Side, m: SampleMetric): number[] {
  const out: number[] = [];
  for (const v of side.verdicts) for (const x of m.samples(v)) out.push(x);
  return out;
}

function _flips(
  names: readonly string[],
  sideA: Map<string, _Side>,
  sideB: Map<string, _Side>,
): Flip[] {
  const flips: (Flip & { change: number })[] = [];
  for (const name of names) {
    const x = sideA.get(name)!;
    const y = sideB.get(name)!;
    const change = y.c / y.n - x.c / x.n;
    if (change === 0) continue;
    const worse = change < 0 ? y : x;
    const failing = worse.verdicts.find((v) => v.is_successful === false);
    const note = failing ? firstFailure(failing) : undefined;
    flips.push({
      scenario: name,
      suite: x.verdicts[0]!.suite,
      direction: change < 0 ? "regressed" : "improved",
      a: { passed: x.c, scored: x.n },
      b: { passed: y.c, scored: y.n },
      first_failure: failing && note
        ? {
          run: change < 0 ? "b" : "a",
          trial: failing.trial,
          signal: note.signal,
          summary: note.summary,
        }
        : null,
      change,
    });
  }
  flips.sort((p, q) =>
    Math.abs(q.change) - Math.abs(p.change) || (p.scenario < q.scenario ? -1 : 1)
  );
  return flips.map(({ change: _, ...f }) => f);
}

function _bySide(verdicts: readonly ReportedVerdict[]): Map<string, _Side> {
  const out = new Map<string, _Side>();
  for (const v of verdicts) {
    if (typeof v.is_successful !== "boolean") continue;
    let s = out.get(v.scenario);
    if (!s) out.set(v.scenario, s = { n: 0, c: 0, byTrial: new Map(), verdicts: [] });
    s.n++;
    if (v.is_successful) s.c++;
    s.byTrial.set(v.trial, v.is_successful);
    s.verdicts.push(v);
  }
  for (const s of out.values()) s.verdicts.sort((p, q) => p.trial - q.trial);
  return out;
}

function _run(name: string, verdicts: readonly ReportedVerdict[]): Comparison["a"] {
  const configs = new Map<string, { label: string | null; config_hash: string }>();
  for (const v of verdicts) {
    configs.set(JSON.stringify([v.label ?? null, v.config_hash]), {
      label: v.label ?? null,
      config_hash: v.config_hash,
    });
  }
  return {
    name,
    configurations: [...configs.values()],
    scenarios: new Set(verdicts.map((v) => v.scenario)).size,
    trials: verdicts.length,
  };
}

function _finite(x: number): number | null {
  return Number.isFinite(x) ? x : null;
}

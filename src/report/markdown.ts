/**
 * The report as Markdown tables, ready for a pull-request comment: the summary, pass^k,
 * per suite, signals, latency, tokens, and the per-scenario table folded in a
 * `<details>` block. The configuration (label, config hash, participants) is named at
 * the top; several are listed side by side, each with its own figures: no table pools
 * configurations.
 *
 * @module
 */
import { INTERACTION_KEYS } from "./interaction_summary.ts";
import { SIGNALS } from "../scenario/scenario.ts";
import type { LatencyStats } from "./latency_stats.ts";
import { markdownTable as table, markdownText } from "./text.ts";
import { comparisonTable, regressionText } from "./compare_render.ts";
import {
  type Aggregate,
  aggregate,
  type AudioAggregate,
  type Configuration,
  type Rate,
  type Report,
} from "./summary.ts";

/** How `renderMarkdown` shapes the report. */
export interface MarkdownOptions {
  /** List only scenarios with a failed or broken trial in the per-scenario table. */
  failuresOnly?: boolean;
  /**
   * The most characters to print: the headline and the per-configuration tables are
   * always kept, then as many failures and per-scenario rows as fit, and a line says
   * how many were left out. None: no bound.
   */
  maxChars?: number;
}

/** A group of the report's figures: the whole report, or one configuration. */
interface Column {
  name: string;
  overall: Aggregate;
  bySuite: Record<string, Aggregate>;
  byLanguage?: Record<string, Aggregate>;
  k: number;
}

/**
 * Renders the report as Markdown. With several configurations every table has one
 * column (or row) per configuration: nothing is pooled across them.
 */
export function renderMarkdown(report: Report, options: MarkdownOptions = {}): string {
  const several = report.configurations.length > 1;
  const columns: Column[] = several
    ? report.configurations.map((c) => ({
      name: configurationName(c),
      overall: c.overall,
      bySuite: c.by_suite,
      byLanguage: c.by_language ?? {},
      k: c.k_max,
    }))
    : [_only(report)];
  const lines: string[] = ["## callbench report", ""];
  const excluded = report.exclude_errors
    ? ` · ${report.input.excluded_errors} error trials excluded`
    : "";
  if (!several) {
    const o = columns[0]!.overall;
    lines.push(
      `**Success ${ratio(o.success)}** · task success ${ratio(o.task_success)} · ` +
        `${o.scenarios} scenarios, ${o.trials} trials${excluded}`,
      "",
    );
  } else {
    // The headline is each configuration's: a pooled rate would hide a bad one.
    for (const c of report.configurations) {
      const o = c.overall;
      const worse = _worseThanBaseline(report, c);
      lines.push(
        `- ${configurationName(c)}: **Success ${ratio(o.success)}** · task success ` +
          `${ratio(o.task_success)} · ${o.scenarios} scenarios, ${o.trials} trials` +
          (worse ? ` · **▼ significantly worse than ${markdownText(worse)}**` : ""),
      );
    }
    lines.push("");
    if (excluded) lines.push(excluded.slice(3), "");
  }
  lines.push(...configurationLines(report));
  if (report.baseline) {
    lines.push(`### Against the baseline ${markdownText(report.baseline.label)}`, "");
    for (const c of report.baseline.comparisons) {
      lines.push(
        `**${markdownText(c.b.name)}** − **${markdownText(c.a.name)}**: ` +
          (c.regressions.length === 0
            ? "no significant regression"
            : `**significantly worse**, ${c.regressions.length} significant regression(s) ` +
              `(${markdownText(regressionText(c))})`) +
          `, ${c.flips.length} scenario(s) changed (Holm-Bonferroni, α = ${c.alpha})`,
        "",
        ...comparisonTable(c),
        "",
      );
    }
  }

  const selfReported = report.scenarios.reduce(
    (n, s) => n + s.trials_detail.filter((t) => t.self_reported).length,
    0,
  );
  if (selfReported > 0) {
    lines.push(
      `**${selfReported} trial(s) self-reported:** the agent held its own world ` +
        "(`--agent-world self`); their final state is the agent's claim, not checked by " +
        "callbench. Scenarios marked *(self-reported)*.",
      "",
    );
  }

  const head = (first: string) => [first, ...(several ? columns.map((c) => c.name) : ["value"])];
  const each = (f: (a: Aggregate, c: Column) => string) => columns.map((c) => f(c.overall, c));
  lines.push("### Summary", "");
  lines.push(
    ...table(head("metric"), [
      ["scenarios", ...each((a) => String(a.scenarios))],
      ["trials", ...each((a) => String(a.trials))],
      ["success rate", ...each((a) => ratio(a.success))],
      ["task success rate (clean exit aside)", ...each((a) => ratio(a.task_success))],
      ["pass^1 (95% bootstrap interval)", ...each((a) => pass1(a))],
      ["not applicable (no gating signal applied)", ...each((a) => String(a.not_applicable))],
      ["too few agent turns", ...each((a) => String(a.insufficient_agent_turns))],
      ["errors", ...each((a) => errorsText(a.errors))],
      ...(several ? [] : [["duplicates replaced", String(report.input.duplicates)]]),
      [
        "judge mean score",
        ...each((a) => (a.judge_score_mean === null ? "–" : a.judge_score_mean.toFixed(3))),
      ],
      [
        "voice readability flags",
        ...each((a) => `${a.voice.flags} in ${a.voice.trials_flagged} trials`),
      ],
    ]),
    "",
  );
  if (several && report.input.duplicates > 0) {
    lines.push(`${report.input.duplicates} duplicate verdict(s) replaced.`, "");
  }

  const kMax = Math.max(0, ...columns.map((c) => c.k));
  if (kMax > 0) {
    lines.push("### pass^k", "");
    const rows: string[][] = [];
    for (let k = 1; k <= kMax; k++) {
      rows.push([
        String(k),
        ...columns.flatMap((c) => {
          const p = c.overall.pass_hat_k.find((x) => x.k === k);
          const cells = [p ? p.pass_hat_k.toFixed(3) : "–"];
          if (!several) cells.push(p ? p.pass_power_k.toFixed(3) : "–");
          return cells;
        }),
      ]);
    }
    lines.push(
      ...table(several ? ["k", ...columns.map((c) => c.name)] : ["k", "pass^k", "(c/n)^k"], rows),
      "",
    );
  }

  const suites = [...new Set(columns.flatMap((c) => Object.keys(c.bySuite)))].sort();
  if (suites.length > 0) {
    // The header names K only when one K holds for every row; never pass^0.
    const ks = new Set(columns.map((c) => c.k).filter((k) => k > 0));
    const passHeader = !several && ks.size === 1 ? `pass^${[...ks][0]}` : "pass^K";
    lines.push("### Per suite", "");
    lines.push(
      ...table(
        [
          "suite",
          ...(several ? ["configuration"] : []),
          "scenarios",
          "trials",
          "success",
          "task success",
          passHeader,
          "p50 ms",
          "p95 ms",
          "errors",
        ],
        suites.flatMap((name) =>
          columns.filter((c) => c.bySuite[name]).map((c) => {
            const a = c.bySuite[name]!;
            return [
              markdownText(name),
              ...(several ? [c.name] : []),
              String(a.scenarios),
              String(a.trials),
              ratio(a.success),
              ratio(a.task_success),
              c.k > 0 ? passAt(a, c.k) + (several ? ` (K=${c.k})` : "") : "–",
              ms(a.latency.p50_ms),
              ms(a.latency.p95_ms),
              errorsText(a.errors),
            ];
          })
        ),
      ),
      "",
    );
  }

  // Calls in several languages (EVA-Bench's cultures): success by language.
  const languages = [...new Set(columns.flatMap((c) => Object.keys(c.byLanguage ?? {})))].sort();
  if (languages.length > 0) {
    lines.push("### Per language", "");
    lines.push(
      ...table(
        ["language", ...(several ? ["configuration"] : []), "scenarios", "trials", "success"],
        languages.flatMap((name) =>
          columns.filter((c) => c.byLanguage?.[name]).map((c) => {
            const a = c.byLanguage![name]!;
            return [
              markdownText(name),
              ...(several ? [c.name] : []),
              String(a.scenarios),
              String(a.trials),
              ratio(a.success),
            ];
          })
        ),
      ),
      "",
    );
  }

  const signals = SIGNALS.filter((s) => columns.some((c) => c.overall.signals[s]!.total > 0));
  if (signals.length > 0) {
    lines.push("### Signals", "");
    lines.push(
      ...table(
        several
          ? ["signal", ...columns.map((c) => `${c.name} rate`)]
          : ["signal", "passed", "applied", "rate"],
        signals.map((s) => {
          if (several) {
            return [
              s,
              ...each((a) =>
                `${percent(a.signals[s]!.rate)} (${a.signals[s]!.passed}/${a.signals[s]!.total})`
              ),
            ];
          }
          const r = columns[0]!.overall.signals[s]!;
          return [s, String(r.passed), String(r.total), percent(r.rate)];
        }),
      ),
      "",
    );
  }
  const assertionRows = columns.flatMap((c) => {
    const { db_state, nl } = c.overall.assertions;
    if (db_state.total + nl.total === 0) return [];
    const who = several ? [c.name] : [];
    return [
      ["DB state", ...who, String(db_state.passed), String(db_state.total), percent(db_state.rate)],
      ["natural language", ...who, String(nl.passed), String(nl.total), percent(nl.rate)],
    ];
  });
  if (assertionRows.length > 0) {
    lines.push(
      ...table(
        ["assertions", ...(several ? ["configuration"] : []), "passed", "total", "rate"],
        assertionRows,
      ),
      "",
    );
  }

  lines.push("### Latency", "");
  for (const c of columns) {
    const o = c.overall;
    if (o.simulated_clock_trials === 0) continue;
    const who = several ? `${c.name}: ` : "";
    lines.push(
      who +
        (o.simulated_clock_trials === o.trials
          ? "Every call ran on the simulated clock: these latencies are not measured."
          : `${o.simulated_clock_trials} of ${o.trials} calls ran on the simulated clock (latencies not measured).`),
      "",
    );
  }
  lines.push(
    ...table(
      [
        "",
        ...(several ? ["configuration"] : []),
        "count",
        "mean ms",
        "p50 ms",
        "p90 ms",
        "p95 ms",
        "max ms",
      ],
      columns.flatMap((c) => {
        const who = several ? [c.name] : [];
        const [n1, ...r1] = latencyRow("agent response", c.overall.latency);
        const [n2, ...r2] = latencyRow("time to first token", c.overall.ttft);
        return [[n1!, ...who, ...r1], [n2!, ...who, ...r2]];
      }),
    ),
    "",
  );

  for (const c of columns) lines.push(...audioLines(c.overall, c.bySuite, several ? c.name : ""));
  for (const c of columns) lines.push(...interactionLines(c.overall, several ? c.name : ""));

  lines.push("### Tokens", "");
  lines.push(
    ...table(
      [
        "side",
        ...(several ? ["configuration"] : []),
        "LLM calls",
        "prompt tokens",
        "completion tokens",
      ],
      (["agent", "user"] as const).flatMap((side) =>
        columns.map((c) => {
          const u = c.overall.usage[side];
          return [
            side,
            ...(several ? [c.name] : []),
            String(u.calls),
            String(u.prompt_tokens),
            String(u.completion_tokens),
          ];
        })
      ),
    ),
    "",
  );

  return _bounded(lines.join("\n"), report, several, options);
}

/**
 * The failures and the per-scenario table after the fixed part, as many as fit in
 * `maxChars`, with a line saying how many were left out.
 */
function _bounded(
  fixed: string,
  report: Report,
  several: boolean,
  options: MarkdownOptions,
): string {
  const failures = failureItems(report);
  const k = several ? 0 : (report.configurations[0]?.k_max ?? 0);
  const rows = report.scenarios.filter((s) =>
    !options.failuresOnly || s.successes < s.scored || s.errors > 0
  );
  const max = options.maxChars ?? Infinity;
  // Room kept for the closing note and the blocks' own lines.
  const reserve = 400;
  let size = fixed.length;
  const out = [fixed];
  let leftFailures = 0;
  let leftRows = 0;
  if (failures.length > 0) {
    const trials = report.scenarios.reduce(
      (n, s) => n + s.trials_detail.filter((t) => t.is_successful === false).length,
      0,
    );
    const header = `### Failures (${trials} trial(s))\n\n`;
    const kept: string[] = [];
    if (size + header.length + reserve <= max) {
      size += header.length;
      for (const item of failures) {
        if (size + item.length + 1 + reserve > max) break;
        kept.push(item);
        size += item.length + 1;
      }
    }
    leftFailures = failures.length - kept.length;
    if (kept.length > 0) out.push(header + kept.join("\n") + "\n");
  }
  if (rows.length > 0) {
    const title = options.failuresOnly ? "Scenarios with failures" : "Per scenario";
    const [h1, h2, ...body] = table(
      [
        "scenario",
        ...(several ? ["configuration"] : []),
        "suite",
        "trials",
        "successes",
        "rate",
        several ? "pass^k (its K)" : k > 0 ? `pass^${k}` : "pass^k",
        "failed signals",
        "errors",
      ],
      rows.map((s) => [
        markdownText(s.scenario) +
        (s.trials_detail.some((t) => t.self_reported) ? " *(self-reported)*" : ""),
        ...(several ? [configurationName(s)] : []),
        markdownText(s.suite),
        String(s.trials),
        String(s.successes),
        percent(s.success_rate),
        s.pass_hat_k === null ? "–" : s.pass_hat_k.toFixed(3),
        Object.entries(s.failed_signals).map(([k, n]) => `${k} ×${n}`).join(", ") || "–",
        String(s.errors),
      ]),
    );
    const open = `<details><summary>${title} (${rows.length})</summary>\n\n${h1}\n${h2}\n`;
    const close = "\n</details>\n";
    const kept: string[] = [];
    if (size + open.length + close.length + reserve <= max) {
      size += open.length + close.length;
      for (const row of body) {
        if (size + row.length + 1 + reserve > max) break;
        kept.push(row);
        size += row.length + 1;
      }
    }
    leftRows = rows.length - kept.length;
    if (kept.length > 0) out.push(open + kept.join("\n") + close);
  }
  if (leftFailures + leftRows > 0) {
    out.push(
      `*Left out to stay under ${max} characters: ${leftFailures} failure(s) and ` +
        `${leftRows} per-scenario row(s); the JSON and HTML reports have them all.*\n`,
    );
  }
  return out.join("\n");
}

/**
 * One list item per failed or broken trial: where, and its first failing signal; the
 * trials of one scenario and configuration that failed the same way share an item.
 */
function failureItems(report: Report): string[] {
  const several = report.configurations.length > 1;
  const items: string[] = [];
  for (const s of report.scenarios) {
    const byWhy = new Map<string, number[]>();
    for (const t of s.trials_detail) {
      if (t.is_successful !== false) continue;
      const first = t.first_failure;
      const why = first
        ? `**${first.signal}**: ${markdownText(first.summary)}`
        : t.failed.length > 0
        ? `failed ${t.failed.join(", ")}`
        : "failed";
      const trials = byWhy.get(why);
      if (trials) trials.push(t.trial);
      else byWhy.set(why, [t.trial]);
    }
    for (const [why, trials] of byWhy) {
      items.push(
        `- ${markdownText(s.scenario)}${several ? ` · ${configurationName(s)}` : ""} · ` +
          `${trials.length > 1 ? "trials" : "trial"} ${trials.join(", ")}: ${why}`,
      );
    }
  }
  return items;
}

/** The audio figures' names and what each measures, in the order the report shows them. */
export const AUDIO_METRICS: readonly {
  key: keyof Pick<AudioAggregate, "v2v" | "ref_frame" | "ref_segment" | "ttfa" | "barge_in_yield">;
  name: string;
  definition: string;
}[] = [
  {
    key: "v2v",
    name: "voice-to-voice",
    definition: "callbench's: the caller's last speech frame as sent to the agent's first as " +
      "heard, by energy (PROTOCOL.md, Audio measures)",
  },
  {
    key: "ref_frame",
    name: "reference live",
    definition: "the reference's live latency: the agent's first audio frame after the " +
      "caller's last audio sample",
  },
  {
    key: "ref_segment",
    name: "reference post-hoc",
    definition: "the reference's post-hoc latency: the agent's first audio frame − (the " +
      "caller's audio end − 0.3 s)",
  },
  {
    key: "ttfa",
    name: "time to first audio",
    definition: "the call's connection (after the handshake) to the agent's first speech, one " +
      "per call",
  },
  {
    key: "barge_in_yield",
    name: "barge-in yield",
    definition: "the caller's start over the agent to the end of the agent's audio",
  },
];

/** Audio figures by scope: `overall`, then each suite that has audio calls. */
export function audioScopes(
  report: Pick<Configuration, "overall" | "by_suite">,
): [string, AudioAggregate][] {
  const out: [string, AudioAggregate][] = [];
  if (report.overall.audio) out.push(["overall", report.overall.audio]);
  for (const [suite, a] of Object.entries(report.by_suite)) {
    if (a.audio) out.push([suite, a.audio]);
  }
  return out;
}

/** A note when audio latencies come from the simulated clock (no measured agent delay). */
export function audioClockNote(o: Aggregate): string | undefined {
  if (!o.audio || o.simulated_clock_trials === 0) return undefined;
  return `${o.simulated_clock_trials} of ${o.trials} calls ran on the simulated clock: an ` +
    "agent answers there when its definition says, the oracle at once (its latencies are then " +
    "the audio's own leading and trailing silence), vad-oracle after its VAD's hangover and " +
    "reply delay; none is a measured agent delay.";
}

/** The Audio section of a group (the report, or one named configuration). */
function audioLines(
  overall: Aggregate,
  bySuite: Record<string, Aggregate>,
  name: string,
): string[] {
  const report = { overall, by_suite: bySuite };
  const scopes = audioScopes(report);
  if (scopes.length === 0) return [];
  const o = report.overall.audio!;
  const lines = [name ? `### Audio: ${name}` : "### Audio", ""];
  lines.push(
    `${o.trials} audio calls · ${o.barge_ins.count} barge-ins, the agent yielded in ` +
      `${o.barge_ins.yielded}.`,
    "",
    ...AUDIO_METRICS.map((m) => `- **${m.name}**: ${m.definition}.`),
    "",
  );
  const note = audioClockNote(overall);
  if (note) lines.push(note, "");
  lines.push(
    ...table(
      ["scope", "metric", "count", "p50 ms", "p90 ms", "p95 ms", "max ms"],
      scopes.flatMap(([scope, a]) =>
        AUDIO_METRICS.map((m) => {
          const s = a[m.key];
          return [
            markdownText(scope),
            m.name,
            String(s.count),
            ms(s.p50_ms),
            ms(s.p90_ms),
            ms(s.p95_ms),
            ms(s.max_ms),
          ];
        })
      ),
    ),
    "",
  );
  return lines;
}

/** The configuration line, or a table of configurations when there are several. */
function configurationLines(report: Report): string[] {
  const configs = report.configurations;
  if (configs.length === 0) return [];
  if (configs.length === 1) {
    const c = configs[0]!;
    return [`Configuration: ${configurationName(c)} · ${participantsText(c)}`, ""];
  }
  return [
    "### Configurations",
    "",
    `${configs.length} configurations: every table below gives each its own figures ` +
    "(nothing is pooled across configurations; each has its own pass^k).",
    "",
    ...table(
      ["configuration", "participants", "scenarios", "trials", "success", "pass^1", "pass^K"],
      configs.map((c) => [
        configurationName(c),
        participantsText(c),
        String(c.overall.scenarios),
        String(c.overall.trials),
        ratio(c.overall.success),
        pass1(c.overall),
        c.k_max > 0 ? `${passAt(c.overall, c.k_max)} (K=${c.k_max})` : "–",
      ]),
    ),
    "",
  ];
}

/** The one configuration's figures as a column (an empty one when nothing was read). */
function _only(report: Report): Column {
  const c = report.configurations[0];
  return c
    ? { name: "", overall: c.overall, bySuite: c.by_suite, byLanguage: c.by_language, k: c.k_max }
    : { name: "", overall: aggregate([]), bySuite: {}, k: 0 };
}

/** `**label** (config abc123)`, or the config hash alone. */
/** The baseline's label when `c` is compared against it with a significant regression. */
function _worseThanBaseline(report: Report, c: Configuration): string | undefined {
  const cmp = report.baseline?.comparisons.find((x) =>
    x.b.configurations.some((k) => k.config_hash === c.config_hash && k.label === c.label)
  );
  return cmp && cmp.regressions.length > 0 ? report.baseline!.label : undefined;
}

function configurationName(c: Pick<Configuration, "label" | "config_hash">): string {
  const hash = markdownText(c.config_hash);
  return c.label !== null ? `**${markdownText(c.label)}** (config ${hash})` : `config ${hash}`;
}

function participantsText(c: Configuration): string {
  if (!c.participants) return "participants unknown";
  const one = (p: { kind: string; model?: string; url?: string }) =>
    markdownText(p.kind + (p.model ? ` ${p.model}` : p.url ? ` ${p.url}` : ""));
  // An audio agent that was told the caller's words is not measured on audio alone.
  const given = c.participants.agent.settings?.transcripts === true
    ? " (agent given transcripts)"
    : "";
  return `agent ${one(c.participants.agent)}${given}, user ${one(c.participants.user)}`;
}

/** `62.5% (5/8)`, or `–` when nothing was scored. */
export function ratio(r: Rate): string {
  return r.rate === null ? "–" : `${percent(r.rate)} (${r.passed}/${r.total})`;
}

export function percent(x: number | null): string {
  return x === null ? "–" : `${(x * 100).toFixed(1)}%`;
}

function pass1(a: Aggregate): string {
  const p = a.pass_hat_k[0];
  if (!p) return "–";
  const ci = a.pass_1_ci95;
  return p.pass_hat_k.toFixed(3) + (ci ? ` (${ci[0].toFixed(3)}–${ci[1].toFixed(3)})` : "");
}

function passAt(a: Aggregate, k: number): string {
  const p = a.pass_hat_k.find((x) => x.k === k) ?? a.pass_hat_k.at(-1);
  return p ? p.pass_hat_k.toFixed(3) : "–";
}

function ms(x: number | null): string {
  return x === null ? "–" : String(Math.round(x));
}

function latencyRow(name: string, s: LatencyStats): string[] {
  return [
    name,
    String(s.count),
    ms(s.mean_ms),
    ms(s.p50_ms),
    ms(s.p90_ms),
    ms(s.p95_ms),
    ms(s.max_ms),
  ];
}

function errorsText(errors: Record<string, number>): string {
  const entries = Object.entries(errors);
  return entries.length === 0 ? "0" : entries.map(([k, n]) => `${k}: ${n}`).join(", ");
}

/** The Interaction section of one configuration (or the one report): each metric's mean and 95% CI. */
function interactionLines(o: Aggregate, name: string): string[] {
  const x = o.interaction;
  if (!x) return [];
  const of = name ? `: ${name}` : ""; // already Markdown (configurationName)
  // (Success by voice is shown with it: both exist only for audio calls.)
  const fmt = (v: number | null) => (v === null ? "–" : String(v));
  const voices = Object.entries(o.by_voice ?? {});
  return [
    ...(voices.length > 1
      ? [
        `### Success by caller voice${of}`,
        "",
        ...table(
          ["voice", "passed", "trials", "rate"],
          voices.map((
            [v, r],
          ) => [v, String(r.passed), String(r.total), r.rate === null ? "–" : r.rate.toFixed(2)]),
        ),
        "",
      ]
      : []),
    `### Interaction${of}`,
    "",
    `${x.trials} audio calls. Definitions and τ-voice's names: PROTOCOL.md, "Interaction metrics"; ` +
    "the interval is a bootstrap over scenarios.",
    "",
    ...table(
      ["metric", "n", "mean", "95% CI"],
      INTERACTION_KEYS.map((k) => {
        const m = x[k];
        return [k, String(m.n), fmt(m.mean), m.ci95 ? `${m.ci95[0]} – ${m.ci95[1]}` : "–"];
      }),
    ),
    "",
  ];
}

/**
 * The report as Markdown tables, ready for a pull-request comment: the summary, pass^k,
 * per suite, signals, latency, tokens, and the per-scenario table folded in a
 * `<details>` block. The configuration (label, config hash, participants) is named at
 * the top; several are listed side by side, each with its own pass^k, and the pooled
 * tables below then show none.
 *
 * @module
 */
import { INTERACTION_KEYS } from "./interaction_summary.ts";
import { SIGNALS } from "../scenario/scenario.ts";
import type { LatencyStats } from "./latency_stats.ts";
import type { Aggregate, AudioAggregate, Configuration, Rate, Report } from "./summary.ts";

/** Renders the report as Markdown. */
export function renderMarkdown(report: Report): string {
  const o = report.overall;
  const lines: string[] = ["## callbench report", ""];
  lines.push(
    `**Success ${ratio(o.success)}** · task success ${ratio(o.task_success)} · ` +
      `${o.scenarios} scenarios, ${o.trials} trials` +
      (report.exclude_errors ? ` · ${report.input.excluded_errors} error trials excluded` : ""),
    "",
  );
  lines.push(...configurationLines(report));

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

  lines.push("### Summary", "");
  lines.push(
    ...table(["metric", "value"], [
      ["scenarios", String(o.scenarios)],
      ["trials", String(o.trials)],
      ["success rate", ratio(o.success)],
      ["task success rate (clean exit aside)", ratio(o.task_success)],
      ["pass^1 (95% bootstrap interval)", pass1(o)],
      ["not applicable (no gating signal applied)", String(o.not_applicable)],
      ["too few agent turns", String(o.insufficient_agent_turns)],
      ["errors", errorsText(report.input.errors)],
      ["duplicates replaced", String(report.input.duplicates)],
      ["judge mean score", o.judge_score_mean === null ? "–" : o.judge_score_mean.toFixed(3)],
      ["voice readability flags", `${o.voice.flags} in ${o.voice.trials_flagged} trials`],
    ]),
    "",
  );

  if (o.pass_hat_k.length > 0) {
    lines.push("### pass^k", "");
    lines.push(
      ...table(
        ["k", "pass^k", "(c/n)^k"],
        o.pass_hat_k.map((p) => [String(p.k), p.pass_hat_k.toFixed(3), p.pass_power_k.toFixed(3)]),
      ),
      "",
    );
  }

  const suites = Object.entries(report.by_suite);
  if (suites.length > 0) {
    lines.push("### Per suite", "");
    lines.push(
      ...table(
        [
          "suite",
          "scenarios",
          "trials",
          "success",
          "task success",
          `pass^${report.k_max}`,
          "p50 ms",
          "p95 ms",
          "errors",
        ],
        suites.map(([name, a]) => [
          name,
          String(a.scenarios),
          String(a.trials),
          ratio(a.success),
          ratio(a.task_success),
          passAt(a, report.k_max),
          ms(a.latency.p50_ms),
          ms(a.latency.p95_ms),
          errorsText(a.errors),
        ]),
      ),
      "",
    );
  }

  const signals = SIGNALS.filter((s) => o.signals[s]!.total > 0);
  if (signals.length > 0) {
    lines.push("### Signals", "");
    lines.push(
      ...table(
        ["signal", "passed", "applied", "rate"],
        signals.map((s) => {
          const r = o.signals[s]!;
          return [s, String(r.passed), String(r.total), percent(r.rate)];
        }),
      ),
      "",
    );
  }
  const { db_state, nl } = o.assertions;
  if (db_state.total + nl.total > 0) {
    lines.push(
      ...table(["assertions", "passed", "total", "rate"], [
        ["DB state", String(db_state.passed), String(db_state.total), percent(db_state.rate)],
        ["natural language", String(nl.passed), String(nl.total), percent(nl.rate)],
      ]),
      "",
    );
  }

  lines.push("### Latency", "");
  if (o.simulated_clock_trials > 0) {
    lines.push(
      o.simulated_clock_trials === o.trials
        ? "Every call ran on the simulated clock: these latencies are not measured."
        : `${o.simulated_clock_trials} of ${o.trials} calls ran on the simulated clock (0 ms latencies).`,
      "",
    );
  }
  lines.push(
    ...table(["", "count", "mean ms", "p50 ms", "p90 ms", "p95 ms", "max ms"], [
      latencyRow("agent response", o.latency),
      latencyRow("time to first token", o.ttft),
    ]),
    "",
  );

  lines.push(...audioLines(report));
  lines.push(...interactionLines(report));

  lines.push("### Tokens", "");
  lines.push(
    ...table(
      ["side", "LLM calls", "prompt tokens", "completion tokens"],
      (["agent", "user"] as const).map((side) => {
        const u = o.usage[side];
        return [side, String(u.calls), String(u.prompt_tokens), String(u.completion_tokens)];
      }),
    ),
    "",
  );

  const several = report.configurations.length > 1;
  if (report.scenarios.length > 0) {
    lines.push(
      "<details><summary>Per scenario (" + report.scenarios.length + ")</summary>",
      "",
    );
    lines.push(
      ...table(
        [
          "scenario",
          ...(several ? ["configuration"] : []),
          "suite",
          "trials",
          "successes",
          "rate",
          several ? "pass^k (its K)" : `pass^${report.k_max}`,
          "failed signals",
          "errors",
        ],
        report.scenarios.map((s) => [
          s.scenario + (s.trials_detail.some((t) => t.self_reported) ? " *(self-reported)*" : ""),
          ...(several ? [configurationName(s)] : []),
          s.suite,
          String(s.trials),
          String(s.successes),
          percent(s.success_rate),
          s.pass_hat_k === null ? "–" : s.pass_hat_k.toFixed(3),
          Object.entries(s.failed_signals).map(([k, n]) => `${k} ×${n}`).join(", ") || "–",
          String(s.errors),
        ]),
      ),
      "",
      "</details>",
      "",
    );
  }
  return lines.join("\n");
}

/** The audio figures' names and what each measures, in the order the report shows them. */
export const AUDIO_METRICS: readonly {
  key: keyof Pick<AudioAggregate, "v2v" | "ref_frame" | "ref_segment" | "ttfa" | "barge_in_yield">;
  name: string;
  definition: string;
}[] = [
  {
    key: "v2v",
    name: "voice-to-voice (VAD)",
    definition: "callbench's: end of the caller's voiced audio to the agent's first voiced " +
      "audio, both found by VAD",
  },
  {
    key: "ref_frame",
    name: "reference live",
    definition: "the reference's live latency: the agent's first audio frame after the " +
      "caller stopped speaking (bot-stopped-speaking)",
  },
  {
    key: "ref_segment",
    name: "reference post-hoc",
    definition: "the reference's post-hoc latency: agent segment start − (caller segment " +
      "end − 0.3 s)",
  },
  {
    key: "ttfa",
    name: "time to first audio",
    definition: "call start to the agent's first voiced audio, one per call",
  },
  {
    key: "barge_in_yield",
    name: "barge-in yield",
    definition: "the caller's start over the agent to the end of the agent's audio",
  },
];

/** Audio figures by scope: `overall`, then each suite that has audio calls. */
export function audioScopes(report: Report): [string, AudioAggregate][] {
  const out: [string, AudioAggregate][] = [];
  if (report.overall.audio) out.push(["overall", report.overall.audio]);
  for (const [suite, a] of Object.entries(report.by_suite)) {
    if (a.audio) out.push([suite, a.audio]);
  }
  return out;
}

/** A note when audio latencies come from the simulated clock (no agent think time). */
export function audioClockNote(o: Aggregate): string | undefined {
  if (!o.audio || o.simulated_clock_trials === 0) return undefined;
  return `${o.simulated_clock_trials} of ${o.trials} calls ran on the simulated clock: the ` +
    "agent answers at once there, so these latencies are the audio's own leading and " +
    "trailing silence (the reference's live latency is 0 ms), not a measured agent delay.";
}

/** The Audio section: p50/p90/p95 of each audio figure, overall and per suite. */
function audioLines(report: Report): string[] {
  const scopes = audioScopes(report);
  if (scopes.length === 0) return [];
  const o = report.overall.audio!;
  const lines = ["### Audio", ""];
  lines.push(
    `${o.trials} audio calls · ${o.barge_ins.count} barge-ins, the agent yielded in ` +
      `${o.barge_ins.yielded}.`,
    "",
    ...AUDIO_METRICS.map((m) => `- **${m.name}**: ${m.definition}.`),
    "",
  );
  const note = audioClockNote(report.overall);
  if (note) lines.push(note, "");
  lines.push(
    ...table(
      ["scope", "metric", "count", "p50 ms", "p90 ms", "p95 ms", "max ms"],
      scopes.flatMap(([scope, a]) =>
        AUDIO_METRICS.map((m) => {
          const s = a[m.key];
          return [
            scope,
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
    `${configs.length} configurations: each has its own pass^k; the pooled tables below ` +
    "show none (pass^k is never computed across configurations).",
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

/** `**label** (config abc123)`, or the config hash alone. */
function configurationName(c: Pick<Configuration, "label" | "config_hash">): string {
  return c.label !== null ? `**${c.label}** (config ${c.config_hash})` : `config ${c.config_hash}`;
}

function participantsText(c: Configuration): string {
  if (!c.participants) return "participants unknown";
  const one = (p: { kind: string; model?: string; url?: string }) =>
    p.kind + (p.model ? ` ${p.model}` : p.url ? ` ${p.url}` : "");
  // An audio agent that was told the caller's words is not measured on audio alone.
  const given = c.participants.agent.settings?.transcripts === true
    ? " (agent given transcripts)"
    : "";
  return `agent ${one(c.participants.agent)}${given}, user ${one(c.participants.user)}`;
}

function table(header: string[], rows: string[][]): string[] {
  const cell = (s: string) => s.replaceAll("|", "\\|").replace(/\r?\n/g, " ");
  return [
    `| ${header.map(cell).join(" | ")} |`,
    `| ${header.map((_, i) => (i === 0 ? "---" : "---:")).join(" | ")} |`,
    ...rows.map((r) => `| ${r.map(cell).join(" | ")} |`),
  ];
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

/** The Interaction section: each metric's mean and 95% CI per configuration group (overall). */
function interactionLines(report: Report): string[] {
  const x = report.overall.interaction;
  if (!x) return [];
  // (Success by voice is shown with it: both exist only for audio calls.)
  const fmt = (v: number | null) => (v === null ? "–" : String(v));
  const voices = Object.entries(report.overall.by_voice ?? {});
  return [
    ...(voices.length > 1
      ? [
        "### Success by caller voice",
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
    "### Interaction",
    "",
    `${x.trials} audio calls. Definitions and τ-voice's names: PROTOCOL.md, "Interaction metrics".`,
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

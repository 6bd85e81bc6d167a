/**
 * A comparison as Markdown (a pull-request comment) or one self-contained HTML page:
 * the two runs named, the regressions first, then per scope each figure as A, B,
 * B − A with its interval and its significance, then the scenarios that changed with
 * the first failing signal of each.
 *
 * @module
 */
import type { Comparison, MetricComparison } from "./compare.ts";
import { escapeHtml, markdownTable, markdownText } from "./text.ts";

/** Renders the comparison as Markdown. */
export function renderComparisonMarkdown(c: Comparison): string {
  const lines = ["## callbench compare", ""];
  lines.push(
    `**A** ${_runText(c.a)} · **B** ${_runText(c.b)} · ` +
      `${c.scopes[0]?.scenarios ?? 0} scenarios in both`,
    "",
  );
  if (c.unpaired.a_only.length + c.unpaired.b_only.length > 0) {
    lines.push(
      `Not compared: ${c.unpaired.a_only.length} scenario(s) only in A, ` +
        `${c.unpaired.b_only.length} only in B.`,
      "",
    );
  }
  lines.push(
    c.regressions.length === 0
      ? `**No regression** (the gate: ${_rulesText(c)}; α = ${c.alpha}).`
      : `**${c.regressions.length} regression(s)** (the gate: ${_rulesText(c)}; α = ${c.alpha}): ` +
        c.regressions.map((r) => markdownText(_regressionName(r))).join(", "),
    "",
  );
  lines.push("### Gate", "", ...c.gate.lines.map((l) => `- ${markdownText(l)}`), "");
  for (const scope of c.scopes) {
    lines.push(`### ${markdownText(scope.scope)} (${scope.scenarios} scenarios)`, "");
    lines.push(
      ...markdownTable(
        ["metric", "A", "B", "B − A", "95% CI", "p", "p (Holm)", ""],
        scope.metrics.map((m) => _cells(m)),
      ),
      "",
    );
  }
  lines.push(`### Changed scenarios (${c.flips.length})`, "");
  if (c.flips.length === 0) lines.push("No scenario's success changed.", "");
  else {
    lines.push(
      ...markdownTable(
        ["scenario", "suite", "", "A", "B", "first failing signal"],
        c.flips.map((f) => [
          markdownText(f.scenario),
          markdownText(f.suite),
          f.direction === "regressed" ? "▼ regressed" : "▲ improved",
          `${f.a.passed}/${f.a.scored}`,
          `${f.b.passed}/${f.b.scored}`,
          f.first_failure
            ? `${f.first_failure.run.toUpperCase()} trial ${f.first_failure.trial}: ` +
              `${f.first_failure.signal}: ${markdownText(f.first_failure.summary)}`
            : "–",
        ]),
      ),
      "",
    );
  }
  return lines.join("\n");
}

/**
 * One scope's figures as Markdown table lines (`report --baseline` shows the overall
 * scope of each comparison this way).
 */
export function comparisonTable(c: Comparison, scope = "overall"): string[] {
  const s = c.scopes.find((x) => x.scope === scope);
  if (!s) return [];
  return markdownTable(
    ["metric", markdownText(c.a.name), markdownText(c.b.name), "delta", "95% CI", "p (Holm)", ""],
    s.metrics.map((m) => _cells(m, { p: false })),
  );
}

/**
 * The figures that got significantly worse, each with its change (`success −100.0 pt,
 * pass^1 −100.0 pt`; a suite's own figures prefixed with the suite): how a report says
 * that a configuration is worse than its baseline. Empty when none is.
 */
export function regressionText(c: Comparison): string {
  const scenarios = c.regressions.flatMap((r) => r.scenario !== undefined ? [r.scenario] : []);
  const fallen = scenarios.length === 0 ? [] : [
    `${scenarios.length} scenario(s) from every trial passing to none (${
      scenarios.slice(0, 3).join(", ")
    }${scenarios.length > 3 ? ` and ${scenarios.length - 3} more` : ""})`,
  ];
  return [
    ...c.regressions.filter((r) => r.scenario === undefined).map((r) => {
      const m = c.scopes.find((s) => s.scope === r.scope)?.metrics.find((x) =>
        x.metric === r.metric
      );
      const name = r.scope === "overall" ? r.metric : `${r.scope} ${r.metric}`;
      return m ? `${name} ${metricDelta(m, m.delta)}` : name;
    }),
    ...fallen,
  ].join(", ");
}

/** Renders the comparison as one HTML page. */
export function renderComparisonHtml(c: Comparison): string {
  const e = escapeHtml;
  const table = (header: string[], rows: string[][]) =>
    `<div class="wide"><table><thead><tr>${
      header.map((h) => `<th>${e(h)}</th>`).join("")
    }</tr></thead><tbody>${
      rows.map((r) => `<tr>${r.map((x) => `<td>${e(x)}</td>`).join("")}</tr>`).join("")
    }</tbody></table></div>`;
  const body = [
    `<h1>callbench compare</h1>`,
    `<p><b>A</b> ${e(_runText(c.a))} · <b>B</b> ${e(_runText(c.b))}</p>`,
    `<p class="${c.regressions.length ? "bad" : "good"}">${
      c.regressions.length === 0
        ? "No regression"
        : `${c.regressions.length} regression(s): ${
          e(c.regressions.map(_regressionName).join(", "))
        }`
    } (the gate: ${e(_rulesText(c))}; α = ${c.alpha})</p>`,
    `<h2>Gate</h2><ul>${c.gate.lines.map((l) => `<li>${e(l)}</li>`).join("")}</ul>`,
    ...c.scopes.map((s) =>
      `<h2>${e(s.scope)} (${s.scenarios} scenarios)</h2>` +
      table(
        ["metric", "A", "B", "B − A", "95% CI", "p", "p (Holm)", ""],
        s.metrics.map((m) => _cells(m)),
      )
    ),
    `<h2>Changed scenarios (${c.flips.length})</h2>`,
    table(
      ["scenario", "suite", "", "A", "B", "first failing signal"],
      c.flips.map((f) => [
        f.scenario,
        f.suite,
        f.direction,
        `${f.a.passed}/${f.a.scored}`,
        `${f.b.passed}/${f.b.scored}`,
        f.first_failure
          ? `${f.first_failure.run.toUpperCase()} trial ${f.first_failure.trial}: ${f.first_failure.signal}: ${f.first_failure.summary}`
          : "–",
      ]),
    ),
  ];
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>callbench compare</title>
<style>body{font:14px/1.4 system-ui,sans-serif;margin:1rem auto;max-width:1100px;padding:0 1rem}
.wide{overflow-x:auto}table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;
padding:.25rem .5rem;text-align:right;overflow-wrap:anywhere}td:first-child,th:first-child{text-align:left}
.bad{color:#b00020;font-weight:600}.good{color:#1b5e20;font-weight:600}</style></head>
<body>
${body.join("\n")}
</body></html>
`;
}

/** A figure's table cells: metric, A, B, B − A, 95% CI, p (unless `p: false`), p (Holm), mark. */
function _cells(m: MetricComparison, options: { p?: boolean } = {}): string[] {
  return [
    m.metric,
    _value(m, m.a),
    _value(m, m.b),
    _delta(m, m.delta),
    m.ci95 ? `${_delta(m, m.ci95[0])} … ${_delta(m, m.ci95[1])}` : "–",
    ...(options.p === false ? [] : [_p(m.p)]),
    _p(m.p_holm),
    _mark(m),
  ];
}

/** A regression's name: a scope's figure, or a scenario. */
function _regressionName(r: Comparison["regressions"][number]): string {
  return r.scenario !== undefined ? `scenario ${r.scenario}` : `${r.scope} ${r.metric}`;
}

/** The gate's rules as one phrase: `success (any), latency.p95 (+100 ms and +10%)`. */
function _rulesText(c: Comparison): string {
  return c.gate.rules.map((r) => `${r.key} (${r.min_effect})`).join(", ") || "nothing";
}

function _runText(r: Comparison["a"]): string {
  const configs = r.configurations.map((c) =>
    c.label !== null ? `${c.label} (config ${c.config_hash})` : `config ${c.config_hash}`
  ).join(", ");
  return `${r.name}: ${configs || "no verdicts"}, ${r.trials} trials`;
}

/** A figure's value as shown: a share as a percentage, ms rounded, a number to 3 places. */
export function metricValue(m: Pick<MetricComparison, "unit">, x: number | null): string {
  if (x === null) return "–";
  if (m.unit === "share") return `${(x * 100).toFixed(1)}%`;
  return m.unit === "ms" ? String(Math.round(x)) : x.toFixed(3);
}

/** A difference of a figure as shown, signed: points for shares. */
export function metricDelta(m: Pick<MetricComparison, "unit">, x: number | null): string {
  if (x === null) return "–";
  const sign = x > 0 ? "+" : x < 0 ? "−" : "±";
  const abs = Math.abs(x);
  if (m.unit === "share") return `${sign}${(abs * 100).toFixed(1)} pt`;
  return m.unit === "ms" ? `${sign}${Math.round(abs)}` : `${sign}${abs.toFixed(3)}`;
}

const _value = metricValue;
const _delta = metricDelta;

function _p(p: number | null): string {
  if (p === null) return "–";
  return p < 0.001 ? "<0.001" : p.toFixed(3);
}

function _mark(m: MetricComparison): string {
  return m.change === "regression" ? "▼ worse" : m.change === "improvement" ? "▲ better" : "";
}

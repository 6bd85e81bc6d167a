/**
 * The report as one self-contained HTML file (no network, no library): summary cards,
 * a pass^k curve, a response-latency histogram and per-suite success bars drawn as
 * inline SVG, the signal rates, and a per-scenario table that sorts on a header click.
 * Each trial of a scenario is a button that opens its transcript (speaker, text, times,
 * tool calls with their arguments and results, failed signals); transcripts ride along
 * as JSON inside the page and are rendered on demand (as text nodes, never markup), so
 * a large run stays a light page.
 *
 * Read in a browser at 800 px and up: long scenario names wrap anywhere so the table's
 * other columns stay in view; one pass^k card when K is 1; latency that is all 0 ms
 * (the simulated clock of deterministic participants) is said to be simulated.
 *
 * @module
 */
import { SIGNALS } from "../scenario/scenario.ts";
import { type Histogram, histogram } from "./latency_stats.ts";
import { AUDIO_METRICS, audioClockNote, audioScopes, percent, ratio } from "./markdown.ts";
import { escapeHtml as _esc } from "./text.ts";
import type { LatencyStats } from "./latency_stats.ts";
import {
  type Aggregate,
  aggregate,
  type Configuration,
  type Report,
  type ReportedVerdict,
  trialKeyOf,
} from "./summary.ts";
import { failureNotes } from "./failure_notes.ts";
import { metricDelta, metricValue, regressionText } from "./compare_render.ts";
import { interactionSection, LATENCY_KEYS } from "./interaction_charts.ts";

/** Renders the report; `verdicts` (with turns) supply the transcripts. */
export function renderHtml(report: Report, verdicts: readonly ReportedVerdict[]): string {
  const only = _only(report);
  const o = only.overall;
  const transcripts = _transcripts(report, verdicts);
  const several = report.configurations.length > 1;
  const scenarios = new Set(report.scenarios.map((s) => s.scenario)).size;
  const trials = report.configurations.reduce((n, c) => n + c.overall.trials, 0);
  const body = [
    `<header><h1>callbench report</h1><p>${scenarios} scenarios · ${trials} trials` +
    (several ? ` · ${report.configurations.length} configurations, never pooled` : "") +
    (report.exclude_errors ? ` · ${report.input.excluded_errors} error trials excluded` : "") +
    (report.input.duplicates ? ` · ${report.input.duplicates} duplicates replaced` : "") +
    `</p>${_configurationLine(report)}</header>`,
    several
      ? report.configurations.map((c) =>
        `<section class="config-headline"><h2>${_esc(_configName(c))} <span class="hash">config ${
          _esc(c.config_hash)
        }</span></h2>${_cards(c.overall, c.k_max, c.overall.errors)}</section>`
      ).join("")
      : _cards(o, only.k_max, report.input.errors),
    _configurationTable(report),
    _baselineSection(report),
    `<section class="charts">`,
    _figure("pass^k", several ? passHatKCurves(report) : passHatKChart(o)),
    ...(several
      ? report.configurations.map((c) =>
        _figure(
          `Agent response latency: ${_configName(c)}` +
            (simulatedClock(c.overall) ? " (simulated clock: not a measured delay)" : ""),
          latencyHistogramChart(histogram(_latencies(verdicts, c))),
        )
      )
      : [_figure(
        simulatedClock(o)
          ? "Agent response latency (simulated clock: not a measured delay)"
          : "Agent response latency",
        latencyHistogramChart(only.latency_histogram),
      )]),
    _figure("Success by suite", suiteSuccessChart(report)),
    `</section>`,
    _audioSection(report, verdicts),
    _interactionSection(report, verdicts),
    _signalsTable(report),
    _scenarioTable(report, transcripts.index),
    `<dialog id="transcript"><form method="dialog"><button class="close">Close</button></form>` +
    `<h2 id="transcript-title"></h2><p id="transcript-meta"></p><div id="transcript-why"></div>` +
    `<div id="transcript-audio"></div><ol id="transcript-turns"></ol></dialog>`,
    `<script type="application/json" id="transcripts">${_jsonInHtml(transcripts.data)}</script>`,
    `<script>${SCRIPT}</script>`,
  ];
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>callbench report</title>
<style>${STYLE}</style></head>
<body>
${body.join("\n")}
</body></html>
`;
}

/** pass^k (solid) and (c/n)^k (dashed) for k = 1..K, on a 0-1 axis. */
export function passHatKChart(a: Aggregate): string {
  const w = 440, h = 240, left = 44, right = 16, top = 16, bottom = 36;
  const pts = a.pass_hat_k;
  const parts = [_svgOpen("pass-k-chart", w, h, "pass^k by k")];
  parts.push(..._yGrid(w, h, left, right, top, bottom));
  if (pts.length === 0) {
    parts.push(`<text x="${w / 2}" y="${h / 2}" text-anchor="middle">no scored trials</text>`);
    return parts.join("") + "</svg>";
  }
  const kMax = pts.length;
  const x = (k: number) =>
    kMax === 1 ? (left + w - right) / 2 : left + ((k - 1) / (kMax - 1)) * (w - left - right);
  const y = (v: number) => top + (1 - v) * (h - top - bottom);
  const line = (get: (p: (typeof pts)[number]) => number, cls: string) =>
    `<polyline class="${cls}" fill="none" points="${
      pts.map((p) => `${_n(x(p.k))},${_n(y(get(p)))}`).join(" ")
    }"/>`;
  parts.push(line((p) => p.pass_power_k, "series power"));
  parts.push(line((p) => p.pass_hat_k, "series hat"));
  for (const p of pts) {
    parts.push(
      `<circle class="point" cx="${_n(x(p.k))}" cy="${_n(y(p.pass_hat_k))}" r="3.5">` +
        `<title>k=${p.k}: pass^k ${p.pass_hat_k.toFixed(3)}, (c/n)^k ${
          p.pass_power_k.toFixed(3)
        }</title></circle>`,
    );
    parts.push(
      `<text class="tick" x="${_n(x(p.k))}" y="${
        h - bottom + 16
      }" text-anchor="middle">${p.k}</text>`,
    );
  }
  parts.push(
    `<text class="axis" x="${(left + w - right) / 2}" y="${h - 4}" text-anchor="middle">k</text>`,
  );
  parts.push(
    `<g class="legend"><line x1="${w - 150}" x2="${w - 130}" y1="${top + 6}" y2="${
      top + 6
    }" class="series hat"/>` +
      `<text x="${w - 126}" y="${top + 10}">pass^k</text>` +
      `<line x1="${w - 80}" x2="${w - 60}" y1="${top + 6}" y2="${top + 6}" class="series power"/>` +
      `<text x="${w - 56}" y="${top + 10}">(c/n)^k</text></g>`,
  );
  return parts.join("") + "</svg>";
}

/** The colours of configurations' curves, in the report's order (then repeated). */
const SERIES_COLOURS = ["#2b6cb0", "#c05621", "#2f855a", "#6b46c1", "#b83280", "#2c7a7b"];

/** pass^k of each configuration, one curve each (its own K), on a 0-1 axis. */
export function passHatKCurves(report: Report): string {
  const w = 440, h = 240, left = 44, right = 16, top = 16, bottom = 36;
  const parts = [_svgOpen("pass-k-chart", w, h, "pass^k by k, one curve per configuration")];
  parts.push(..._yGrid(w, h, left, right, top, bottom));
  const kMax = Math.max(0, ...report.configurations.map((c) => c.overall.pass_hat_k.length));
  if (kMax === 0) {
    parts.push(`<text x="${w / 2}" y="${h / 2}" text-anchor="middle">no scored trials</text>`);
    return parts.join("") + "</svg>";
  }
  const x = (k: number) =>
    kMax === 1 ? (left + w - right) / 2 : left + ((k - 1) / (kMax - 1)) * (w - left - right);
  const y = (v: number) => top + (1 - v) * (h - top - bottom);
  report.configurations.forEach((c, i) => {
    const colour = SERIES_COLOURS[i % SERIES_COLOURS.length]!;
    const pts = c.overall.pass_hat_k;
    const name = _esc(_configName(c));
    parts.push(
      `<polyline class="series config" data-config="${name}" fill="none" stroke="${colour}" ` +
        `points="${pts.map((p) => `${_n(x(p.k))},${_n(y(p.pass_hat_k))}`).join(" ")}"/>`,
    );
    for (const p of pts) {
      parts.push(
        `<circle class="point" fill="${colour}" cx="${_n(x(p.k))}" cy="${
          _n(y(p.pass_hat_k))
        }" r="3.5"><title>${name} k=${p.k}: pass^k ${p.pass_hat_k.toFixed(3)}</title></circle>`,
      );
    }
    const ly = top + 6 + i * 14;
    parts.push(
      `<g class="legend"><line x1="${left + 8}" x2="${left + 28}" y1="${ly}" y2="${ly}" ` +
        `stroke="${colour}" stroke-width="2"/><text x="${left + 32}" y="${ly + 4}">${
          _esc(_clip(_configName(c), 40))
        }</text></g>`,
    );
  });
  for (let k = 1; k <= kMax; k++) {
    parts.push(
      `<text class="tick" x="${_n(x(k))}" y="${h - bottom + 16}" text-anchor="middle">${k}</text>`,
    );
  }
  parts.push(
    `<text class="axis" x="${(left + w - right) / 2}" y="${h - 4}" text-anchor="middle">k</text>`,
  );
  return parts.join("") + "</svg>";
}

/** Bars of response-latency counts per bin. */
export function latencyHistogramChart(hist: Histogram | null): string {
  return _histogramChart(
    "latency-histogram",
    "agent response latency histogram",
    "no latency samples",
    hist,
    [],
  );
}

/** One horizontal bar per suite (and configuration, when there are several): its success rate. */
export function suiteSuccessChart(report: Report): string {
  const several = report.configurations.length > 1;
  const suites = [...new Set(report.configurations.flatMap((c) => Object.keys(c.by_suite)))]
    .sort();
  const bars: [string, string, Aggregate, number][] = suites.flatMap((suite) =>
    report.configurations.flatMap((c, i) =>
      c.by_suite[suite]
        ? [[suite, several ? _configName(c) : "", c.by_suite[suite]!, i] as const]
        : []
    )
  ).map(([a, b, c, d]) => [a, b, c, d]);
  const row = 26, left = 150, right = 60, top = 8;
  const w = 440, h = Math.max(60, top * 2 + bars.length * row);
  const parts = [_svgOpen("suite-success", w, h, "success rate by suite")];
  bars.forEach(([name, config, a, ci], i) => {
    const y = top + i * row;
    const rate = a.success.rate;
    const bw = (rate ?? 0) * (w - left - right);
    const label = config ? `${name} · ${config}` : name;
    const colour = several ? ` style="fill:${SERIES_COLOURS[ci % SERIES_COLOURS.length]}"` : "";
    parts.push(
      `<text class="label" x="${left - 6}" y="${y + 16}" text-anchor="end">${
        _esc(_clip(label, 22))
      }</text>`,
      `<rect class="track" x="${left}" y="${y + 4}" width="${w - left - right}" height="16"/>`,
      `<rect class="bar suite-bar" data-suite="${_esc(name)}"${
        config ? ` data-config="${_esc(config)}"` : ""
      }${colour} x="${left}" y="${y + 4}" width="${_n(bw)}" height="16">` +
        `<title>${_esc(label)}: ${ratio(a.success)}</title></rect>`,
      `<text class="value" x="${w - right + 6}" y="${y + 16}">${percent(rate)}</text>`,
    );
  });
  if (bars.length === 0) {
    parts.push(`<text x="${w / 2}" y="30" text-anchor="middle">no suites</text>`);
  }
  return parts.join("") + "</svg>";
}

/**
 * Whether an aggregate's latency is the simulated clock's: every trial says it ran on
 * the simulated clock, or (verdicts of older versions, which do not say) there are
 * samples and all are 0 ms, which a real agent never answers in.
 */
export function simulatedClock(
  agg: { latency: LatencyStats; trials: number; simulated_clock_trials?: number },
): boolean {
  if ((agg.simulated_clock_trials ?? 0) > 0) return agg.simulated_clock_trials === agg.trials;
  return agg.latency.count > 0 && agg.latency.max_ms === 0;
}

function _cards(o: Aggregate, k: number, errorCounts: Record<string, number>): string {
  const p1 = o.pass_hat_k[0];
  const ci = o.pass_1_ci95;
  const errors = Object.values(errorCounts).reduce((a, b) => a + b, 0);
  const card = (label: string, value: string, note = "") =>
    `<div class="card"><div class="value">${_esc(value)}</div><div class="label">${
      _esc(label)
    }</div>` +
    (note ? `<div class="note">${_esc(note)}</div>` : "") + `</div>`;
  return `<section class="cards">` + [
    card("success rate", percent(o.success.rate), `${o.success.passed}/${o.success.total} trials`),
    card("task success rate", percent(o.task_success.rate), "clean exit aside"),
    card(
      "pass^1",
      p1 ? p1.pass_hat_k.toFixed(3) : "–",
      ci ? `95% CI ${ci[0].toFixed(3)}–${ci[1].toFixed(3)}` : "",
    ),
    // With K = 1 the pass^K card would repeat the pass^1 card.
    ...(k > 1 ? [card(`pass^${k}`, o.pass_hat_k.at(-1)?.pass_hat_k.toFixed(3) ?? "–")] : []),
    simulatedClock(o)
      ? card(
        "p50 / p95 response",
        "simulated clock",
        `${o.latency.count} responses, all 0 ms: not a measured latency`,
      )
      : card("p50 / p95 response", `${_ms(o.latency.p50_ms)} / ${_ms(o.latency.p95_ms)}`, "ms"),
    card(
      "errors",
      String(errors),
      Object.entries(errorCounts).map(([kind, n]) => `${kind} ${n}`).join(", "),
    ),
  ].join("") + `</section>`;
}

/**
 * Audio calls: cards for the headline figures, voice-to-voice and time-to-first-audio
 * histograms with their p50 and p95 marked, and p50/p90/p95 of each figure, overall
 * and per suite; per configuration when there are several.
 */
function _audioSection(report: Report, verdicts: readonly ReportedVerdict[]): string {
  const several = report.configurations.length > 1;
  const groups = several
    ? report.configurations.map((c) => ({
      name: _configName(c),
      scope: { overall: c.overall, by_suite: c.by_suite },
      verdicts: verdicts.filter((v) =>
        (v.label ?? null) === c.label && v.config_hash === c.config_hash
      ),
    }))
    : [{ name: "", scope: _only(report), verdicts }];
  const blocks = groups.filter((g) => g.scope.overall.audio).map((g) => _audioBlock(g));
  if (blocks.length === 0) return "";
  const defs = AUDIO_METRICS.map((m) => `<dt>${_esc(m.name)}</dt><dd>${_esc(m.definition)}</dd>`)
    .join("");
  return `<section id="audio">${blocks.join("")}<dl class="definitions">${defs}</dl></section>`;
}

function _audioBlock(g: {
  name: string;
  scope: Pick<Configuration, "overall" | "by_suite">;
  verdicts: readonly ReportedVerdict[];
}): string {
  const o = g.scope.overall.audio!;
  const scopes = audioScopes(g.scope);
  const card = (label: string, value: string, note: string) =>
    `<div class="card"><div class="value">${_esc(value)}</div><div class="label">${
      _esc(label)
    }</div><div class="note">${_esc(note)}</div></div>`;
  const pair = (s: LatencyStats) => `${_ms(s.p50_ms)} / ${_ms(s.p95_ms)}`;
  const cards = `<div class="cards audio-cards"${g.name ? "" : ' id="audio-cards"'}>` +
    card("p50 / p95 voice-to-voice", pair(o.v2v), `ms, energy · ${o.v2v.count} agent turns`) +
    card("p50 / p95 time to first audio", pair(o.ttfa), `ms · ${o.ttfa.count} calls`) +
    card(
      "p50 / p95 barge-in yield",
      pair(o.barge_in_yield),
      `ms · yielded ${o.barge_ins.yielded} of ${o.barge_ins.count} barge-ins`,
    ) + `</div>`;
  const v2v = g.verdicts.flatMap((v) => v.metrics.audio?.v2v_ms ?? []);
  const ttfa = g.verdicts.flatMap((v) =>
    v.metrics.audio?.ttfa_ms != null ? [v.metrics.audio.ttfa_ms] : []
  );
  const charts = `<div class="charts">` +
    _figure("Voice-to-voice latency (VAD)", markedHistogramChart("v2v-histogram", v2v, o.v2v)) +
    _figure("Time to first audio", markedHistogramChart("ttfa-histogram", ttfa, o.ttfa)) +
    `</div>`;
  const rows = scopes.flatMap(([scope, a]) =>
    AUDIO_METRICS.map((m) => {
      const st = a[m.key];
      return `<tr data-scope="${_esc(scope)}" data-metric="${m.key}"><td>${_esc(scope)}</td>` +
        `<td>${_esc(m.name)}</td><td>${st.count}</td><td>${_ms(st.p50_ms)}</td>` +
        `<td>${_ms(st.p90_ms)}</td><td>${_ms(st.p95_ms)}</td><td>${_ms(st.max_ms)}</td></tr>`;
    })
  ).join("");
  const note = audioClockNote(g.scope.overall);
  return `<h2>Audio${g.name ? `: ${_esc(g.name)}` : ""} (${o.trials} calls)</h2>${cards}` +
    (note ? `<p class="note">${_esc(note)}</p>` : "") + charts +
    `<div class="wide"><table class="audio-table"${
      g.name ? "" : ' id="audio-table"'
    }><thead><tr><th>scope</th><th>metric</th><th>count</th>` +
    `<th>p50 ms</th><th>p90 ms</th><th>p95 ms</th><th>max ms</th></tr></thead>` +
    `<tbody>${rows}</tbody></table></div>`;
}

/** A histogram of `samples` with vertical marks at the stats' p50 and p95. */
export function markedHistogramChart(id: string, samples: number[], stats: LatencyStats): string {
  return _histogramChart(
    id,
    `${id}: histogram with p50 and p95 marked`,
    "no samples",
    histogram(samples),
    [["p50", stats.p50_ms], ["p95", stats.p95_ms]],
  );
}

/** Bars of counts per bin (ms), each named mark a vertical line at its value. */
function _histogramChart(
  id: string,
  title: string,
  empty: string,
  hist: Histogram | null,
  marks: readonly (readonly [string, number | null])[],
): string {
  const w = 440, h = 240, left = 44, right = 16, top = 16, bottom = 36;
  const parts = [_svgOpen(id, w, h, title)];
  if (hist === null) {
    parts.push(`<text x="${w / 2}" y="${h / 2}" text-anchor="middle">${empty}</text>`);
    return parts.join("") + "</svg>";
  }
  const max = Math.max(...hist.counts, 1);
  const plotW = w - left - right;
  const plotH = h - top - bottom;
  const end = hist.counts.length * hist.bin_width_ms;
  const bw = plotW / hist.counts.length;
  hist.counts.forEach((c, i) => {
    const bh = (c / max) * plotH;
    const from = i * hist.bin_width_ms;
    parts.push(
      `<rect class="bar" x="${_n(left + i * bw + 1)}" y="${_n(top + plotH - bh)}" width="${
        _n(Math.max(1, bw - 2))
      }" height="${_n(bh)}"><title>${from}–${from + hist.bin_width_ms} ms: ${c}</title></rect>`,
    );
  });
  for (const [name, value] of marks) {
    if (value === null) continue;
    const x = left + (Math.min(value, end) / end) * plotW;
    parts.push(
      `<line class="mark ${name}" data-mark="${name}" x1="${_n(x)}" x2="${_n(x)}" y1="${top}" ` +
        `y2="${top + plotH}"><title>${name} ${_ms(value)} ms</title></line>`,
      `<text class="tick mark-label" x="${_n(x + 3)}" y="${top + 10}">${name} ${_ms(value)}</text>`,
    );
  }
  parts.push(
    `<text class="tick" x="${left}" y="${top + plotH + 16}" text-anchor="middle">0</text>`,
    `<text class="tick" x="${w - right}" y="${
      top + plotH + 16
    }" text-anchor="middle">${end}</text>`,
    `<text class="tick" x="${left - 6}" y="${top + 4}" text-anchor="end">${max}</text>`,
    `<text class="axis" x="${(left + w - right) / 2}" y="${h - 4}" text-anchor="middle">ms</text>`,
  );
  return parts.join("") + "</svg>";
}

function _signalsTable(report: Report): string {
  const groups = report.configurations.length > 1
    ? report.configurations.map((c) => ({ name: _configName(c), o: c.overall }))
    : [{ name: "", o: _only(report).overall }];
  const shown = SIGNALS.filter((s) => groups.some((g) => g.o.signals[s]!.total > 0));
  const head = groups.length > 1
    ? groups.map((g) => `<th>${_esc(g.name)}</th>`).join("")
    : "<th>passed</th><th>applied</th><th>rate</th>";
  const rows = shown.map((s) => {
    const cells = groups.length > 1
      ? groups.map((g) => {
        const r = g.o.signals[s]!;
        return `<td>${percent(r.rate)} (${r.passed}/${r.total})</td>`;
      }).join("")
      : (() => {
        const r = groups[0]!.o.signals[s]!;
        return `<td>${r.passed}</td><td>${r.total}</td><td>${percent(r.rate)}</td>`;
      })();
    return `<tr><td>${s}</td>${cells}</tr>`;
  });
  return `<section><h2>Signals</h2><div class="wide"><table id="signals-table"><thead><tr>` +
    `<th>signal</th>${head}</tr></thead><tbody>${rows.join("")}</tbody></table></div></section>`;
}

/** `report --baseline`: each configuration's overall figures as a delta from the baseline. */
function _baselineSection(report: Report): string {
  if (!report.baseline) return "";
  const blocks = report.baseline.comparisons.map((c) => {
    const scope = c.scopes.find((s) => s.scope === "overall");
    const rows = (scope?.metrics ?? []).map((m) => {
      const v = (x: number | null) => metricValue(m, x);
      const d = (x: number | null) => metricDelta(m, x);
      return `<tr class="${m.change}"><td>${_esc(m.metric)}</td><td>${v(m.a)}</td><td>${v(m.b)}` +
        `</td><td>${d(m.delta)}</td><td>${m.ci95 ? `${d(m.ci95[0])} … ${d(m.ci95[1])}` : "–"}` +
        `</td><td>${m.p_holm === null ? "–" : m.p_holm.toPrecision(2)}</td><td>${
          m.change === "regression" ? "▼ worse" : m.change === "improvement" ? "▲ better" : ""
        }</td></tr>`;
    }).join("");
    const worse = c.regressions.length > 0
      ? `<span class="worse">significantly worse</span>, ${c.regressions.length} significant ` +
        `regression(s) (${_esc(regressionText(c))})`
      : "no significant regression";
    return `<h3>${_esc(c.b.name)} against ${_esc(c.a.name)}: ${worse}, ` +
      `${c.flips.length} scenario(s) changed</h3><div class="wide">` +
      `<table class="baseline"><thead><tr><th>metric</th><th>${_esc(c.a.name)}</th><th>${
        _esc(c.b.name)
      }</th><th>delta</th><th>95% CI</th><th>p (Holm)</th><th></th></tr></thead><tbody>${rows}` +
      `</tbody></table></div>`;
  }).join("");
  return `<section id="baseline"><h2>Against the baseline ${
    _esc(report.baseline.label)
  }</h2>${blocks}</section>`;
}

/** The response latencies of one configuration's verdicts. */
function _latencies(
  verdicts: readonly ReportedVerdict[],
  c: { label: string | null; config_hash: string },
): number[] {
  return verdicts.filter((v) => (v.label ?? null) === c.label && v.config_hash === c.config_hash)
    .flatMap((v) => v.metrics.latency_ms);
}

function _scenarioTable(report: Report, index: Map<string, number>): string {
  const only = _only(report);
  const k = only.k_max;
  const several = report.configurations.length > 1;
  const head = [
    ["scenario", "text"],
    ...(several ? [["configuration", "text"]] : []),
    ["suite", "text"],
    ["trials", "num"],
    ["successes", "num"],
    ["rate", "num"],
    [several ? "pass^k (its K)" : k > 0 ? `pass^${k}` : "pass^k", "num"],
    [simulatedClock(only.overall) ? "p50 ms (sim. clock)" : "p50 ms", "num"],
    ["errors", "num"],
    ["trials (click for transcript)", ""],
  ];
  // What needs a look first: a configuration's scenarios that regressed against the
  // baseline, then those that failed or erred, each group in the report's order (a header
  // click sorts again).
  const regressed = new Set(
    (report.baseline?.comparisons ?? []).flatMap((c) =>
      c.flips.filter((f) => f.direction === "regressed").map((f) => `${c.b.name}\n${f.scenario}`)
    ),
  );
  const rank = (s: Report["scenarios"][number]) =>
    regressed.has(`${s.label ?? `config ${s.config_hash}`}\n${s.scenario}`)
      ? 0
      : s.errors > 0 || (s.success_rate ?? 1) < 1
      ? 1
      : 2;
  const ordered = report.scenarios.map((s, i) => ({ s, i })).sort((a, b) =>
    rank(a.s) - rank(b.s) || a.i - b.i
  ).map((x) => x.s);
  const rows = ordered.map((s) => {
    const chips = s.trials_detail.map((t) => {
      const i = index.get(trialKeyOf({ scenario: s.scenario, ...t }));
      const cls = t.status === "error"
        ? "error"
        : t.is_successful === true
        ? "pass"
        : t.is_successful === false
        ? "fail"
        : "na";
      const mark = t.status === "error"
        ? "!"
        : t.is_successful === true
        ? "✓"
        : t.is_successful === false
        ? "✗"
        : "–";
      // A self-reported world (--agent-world self) is the agent's claim: say so.
      const self = t.self_reported ? " · self-reported (the agent's own world)" : "";
      return `<button class="trial ${cls}" data-i="${i ?? -1}" title="trial ${t.trial}: ${
        _esc(t.stop_reason)
      }${self}">${t.trial}${mark}${t.self_reported ? "*" : ""}</button>`;
    }).join("");
    const cell = (v: string | number | null, text: string) =>
      `<td data-v="${_esc(String(v ?? ""))}">${_esc(text)}</td>`;
    return `<tr>` +
      // Names break after an underscore only ("__" first), never inside a word.
      `<td data-v="${_esc(s.scenario)}" class="name">${
        _esc(s.scenario).replace(/_+/g, (u) => `${u}<wbr>`)
      }</td>` +
      (several
        ? `<td data-v="${_esc(_configName(s))}" class="config">${_esc(_configName(s))}</td>`
        : "") +
      cell(s.suite, s.suite) +
      cell(s.trials, String(s.trials)) +
      cell(s.successes, String(s.successes)) +
      cell(s.success_rate ?? -1, percent(s.success_rate)) +
      cell(s.pass_hat_k ?? -1, s.pass_hat_k === null ? "–" : s.pass_hat_k.toFixed(3)) +
      cell(s.latency_p50_ms ?? -1, _ms(s.latency_p50_ms)) +
      cell(s.errors, String(s.errors)) +
      `<td><div class="chips">${chips}</div></td></tr>`;
  });
  return `<section><h2>Scenarios</h2><div class="wide"><table id="scenario-table"><thead><tr>` +
    head.map(([label, type]) =>
      `<th${type ? ` data-type="${type}" class="sortable"` : ""}>${_esc(label!)}</th>`
    ).join("") +
    `</tr></thead><tbody>${rows.join("\n")}</tbody></table></div></section>`;
}

/** A configuration as a reader names it: its label, else the start of its config hash. */
function _configName(c: { label: string | null; config_hash: string }): string {
  return c.label ?? `config ${c.config_hash.slice(0, 12)}`;
}

/** Who ran, in the header: one configuration's name and participants. */
function _configurationLine(report: Report): string {
  if (report.configurations.length !== 1) return "";
  const c = report.configurations[0]!;
  return `<p class="config">${_esc(_configName(c))}${_esc(_participantsText(c.participants))}</p>`;
}

function _participantsText(p: Report["configurations"][number]["participants"]): string {
  if (!p) return "";
  const one = (i: { kind: string; url?: string; model?: string }) =>
    [i.kind, i.model, i.url].filter(Boolean).join(" ");
  // An audio agent that was told the caller's words is not measured on audio alone.
  const given = p.agent.settings?.transcripts === true ? " (agent given transcripts)" : "";
  return ` · agent ${one(p.agent)}${given} · caller ${one(p.user)}`;
}

/** Interaction plots, one series per configuration (`interaction_charts.ts`). */
function _interactionSection(report: Report, verdicts: readonly ReportedVerdict[]): string {
  return interactionSection(report.configurations.map((c, i) => {
    const own = verdicts.filter((v) =>
      (v.label ?? null) === c.label && v.config_hash === c.config_hash
    );
    return {
      name: _configName(c),
      colour: SERIES_COLOURS[i % SERIES_COLOURS.length]!,
      aggregate: c.overall.interaction,
      samples: Object.fromEntries(
        LATENCY_KEYS.map((k) => [k, own.flatMap((v) => v.metrics.interaction?.[k] ?? [])]),
      ) as Record<(typeof LATENCY_KEYS)[number], number[]>,
    };
  }));
}

/** The one configuration of a report (an empty one when nothing was read). */
function _only(report: Report): Pick<
  Configuration,
  "overall" | "by_suite" | "k_max" | "latency_histogram"
> {
  return report.configurations[0] ??
    { overall: aggregate([]), by_suite: {}, k_max: 0, latency_histogram: null };
}

/** With several configurations, each one's own figures (pass^k is never pooled). */
function _configurationTable(report: Report): string {
  if (report.configurations.length < 2) return "";
  const rows = report.configurations.map((c) => {
    const p1 = c.overall.pass_hat_k[c.k_max - 1];
    return `<tr><td>${_esc(_configName(c))}</td><td>${_esc(c.config_hash.slice(0, 12))}</td>` +
      `<td>${_esc(_participantsText(c.participants).replace(/^ · /, ""))}</td>` +
      `<td>${c.overall.trials}</td><td>${_esc(percent(c.overall.success.rate))}</td>` +
      `<td>${p1 ? `pass^${c.k_max} ${p1.pass_hat_k.toFixed(3)}` : "–"}</td></tr>`;
  }).join("");
  return `<section><h2>Configurations</h2><p>Figures are per configuration; pass^k is never ` +
    `computed across them.</p><table id="configurations"><thead><tr><th>configuration</th>` +
    `<th>config hash</th><th>participants</th><th>trials</th><th>success</th><th>pass^k</th>` +
    `</tr></thead><tbody>${rows}</tbody></table></section>`;
}

interface TranscriptEntry {
  scenario: string;
  trial: number;
  is_successful: boolean | "N/A";
  status: string;
  error?: string;
  stop_reason: string;
  failed: string[];
  /** [speaker, text, start_ms, end_ms] */
  turns: [string, string, number, number][];
  /** [side, name, arguments JSON, result JSON, ok, at_ms] */
  tools: [string, string, string, string, boolean, number][];
  /** The call's recording, relative to the report (written into the `eval --out` folder). */
  wav?: string;
  /** Why it failed: per failed signal, its summary and evidence lines. */
  why: [string, string, string[]][];
  /**
   * [kind, side, text, at_ms, end_ms]: keys, beeps, flow nodes, holds (with their end),
   * voicemail, the end, barge-ins; `end_ms` is null but for holds.
   */
  events: [string, string, string, number, number | null][];
  /** The call's length, ms (the recording's timeline, for the barge-in marks). */
  duration_ms: number;
}

/**
 * A recording path the page may play: relative, inside the folder (as `eval --out`
 * writes them, `audio/<trial>.wav`); anything else is not linked.
 */
export function playableWav(path: string | undefined): string | undefined {
  if (path === undefined) return undefined;
  if (!/^[A-Za-z0-9_][A-Za-z0-9_./-]*\.wav$/.test(path) || path.split("/").includes("..")) {
    return undefined;
  }
  return path;
}

function _transcripts(report: Report, verdicts: readonly ReportedVerdict[]) {
  const shown = new Set(
    report.scenarios.flatMap((s) =>
      s.trials_detail.map((t) => trialKeyOf({ scenario: s.scenario, ...t }))
    ),
  );
  const index = new Map<string, number>();
  const data: TranscriptEntry[] = [];
  for (const v of verdicts) {
    const key = trialKeyOf(v);
    if (!shown.has(key)) continue;
    index.set(key, data.length);
    data.push({
      scenario: v.scenario,
      trial: v.trial,
      is_successful: v.is_successful,
      status: v.status,
      ...(v.error ? { error: `${v.error.kind}: ${v.error.message}` } : {}),
      stop_reason: v.stop_reason,
      failed: v.success_breakdown.failed,
      turns: (v.turns ?? []).map((t) => [t.speaker, t.text, t.start_ms, t.end_ms]),
      tools: (v.tool_calls ?? []).map((c) => [
        c.side,
        c.name,
        c.arguments,
        c.result,
        c.ok,
        c.at_ms,
      ]),
      ...(playableWav(v.metrics.audio?.wav) ? { wav: v.metrics.audio!.wav } : {}),
      why: failureNotes(v).map((n) => [n.signal, n.summary, n.details]),
      events: (v.events ?? []).map((
        e,
      ) => [e.kind, e.side ?? "", e.text, e.at_ms, e.end_ms ?? null]),
      duration_ms: v.metrics.duration_ms,
    });
  }
  return { index, data };
}

function _figure(caption: string, svg: string): string {
  return `<figure>${svg}<figcaption>${_esc(caption)}</figcaption></figure>`;
}

function _svgOpen(id: string, w: number, h: number, label: string): string {
  return `<svg id="${id}" class="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${w} ${h}" width="${w}" height="${h}" role="img" aria-label="${
    _esc(label)
  }">`;
}

function _yGrid(
  w: number,
  h: number,
  left: number,
  right: number,
  top: number,
  bottom: number,
): string[] {
  const out: string[] = [];
  for (const v of [0, 0.25, 0.5, 0.75, 1]) {
    const y = top + (1 - v) * (h - top - bottom);
    out.push(
      `<line class="grid" x1="${left}" x2="${w - right}" y1="${_n(y)}" y2="${_n(y)}"/>`,
      `<text class="tick" x="${left - 6}" y="${_n(y + 4)}" text-anchor="end">${v}</text>`,
    );
  }
  return out;
}

function _n(x: number): string {
  return String(Math.round(x * 10) / 10);
}

function _ms(x: number | null): string {
  return x === null ? "–" : String(Math.round(x));
}

function _clip(s: string, n: number): string {
  return s.length > n ? s.slice(0, n - 1) + "…" : s;
}

/** JSON safe inside a `<script>` element. */
function _jsonInHtml(value: unknown): string {
  return JSON.stringify(value).replace(/</g, "\\u003c").replace(/\u2028/g, "\\u2028").replace(
    /\u2029/g,
    "\\u2029",
  );
}

const STYLE = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px;color:#1d2330;background:#fafbfc}
h1{margin:0 0 4px;font-size:22px}h2{font-size:17px;margin:24px 0 8px}
header p{margin:0;color:#5b6475}
.cards{display:flex;flex-wrap:wrap;gap:12px;margin:16px 0}
.card{background:#fff;border:1px solid #dde1e8;border-radius:8px;padding:10px 14px;min-width:140px}
.card .value{font-size:22px;font-weight:600}.card .label{color:#5b6475}.card .note{color:#8a93a3;font-size:12px}
.charts{display:flex;flex-wrap:wrap;gap:16px}
figure{margin:0;background:#fff;border:1px solid #dde1e8;border-radius:8px;padding:8px}
figcaption{text-align:center;color:#5b6475}
.chart text{font-size:11px;fill:#5b6475}.grid{stroke:#eceff3}
.series{stroke-width:2}.series.hat{stroke:#2b6cb0}.series.power{stroke:#a0aec0;stroke-dasharray:4 3}
.point{fill:#2b6cb0}.bar{fill:#4a90d9}.track{fill:#eceff3}.suite-bar{fill:#38a169}
table{border-collapse:collapse;background:#fff;border:1px solid #dde1e8;max-width:100%}
#scenario-table td.name{overflow-wrap:break-word;width:24em;min-width:10em}
#scenario-table td.config{overflow-wrap:anywhere;min-width:6em;max-width:12em}
#scenario-table th{overflow-wrap:break-word}
th,td{padding:4px 10px;border-bottom:1px solid #eceff3;text-align:left;vertical-align:top}
th.sortable{cursor:pointer;user-select:none}th.sortable:hover{background:#f0f3f7}
th[aria-sort=ascending]::after{content:" ▲"}th[aria-sort=descending]::after{content:" ▼"}
.chips{display:flex;flex-wrap:wrap;gap:4px}
button.trial{border:1px solid #ccd2dc;border-radius:4px;background:#fff;cursor:pointer;font-size:12px;padding:1px 6px}
button.trial.pass{border-color:#38a169;color:#276749}button.trial.fail{border-color:#e53e3e;color:#9b2c2c}
button.trial.error{border-color:#d69e2e;color:#975a16}
dialog{max-width:760px;width:90%;border:1px solid #ccd2dc;border-radius:8px}
dialog ol{padding-left:0;list-style:none}dialog li{margin:6px 0}
dialog h2{overflow-wrap:anywhere}
dialog .who{font-weight:600;margin-right:6px}dialog .t{color:#8a93a3;font-size:12px;margin-right:6px}
dialog li.agent .who{color:#2b6cb0}dialog li.user .who{color:#805ad5}
dialog li.tool{background:#f5f7fa;border-radius:4px;padding:2px 6px}dialog li.tool .who{color:#2f855a}
dialog li.tool.failed .who{color:#c53030}
#baseline .worse{color:#c53030;font-weight:600}#baseline tr.regression td{color:#9b2c2c}
dialog code{font:12px/1.4 ui-monospace,monospace;white-space:pre-wrap;overflow-wrap:anywhere}
dialog code.result{display:block;color:#4a5568}
#transcript-audio{position:sticky;top:0;background:#fff;padding:4px 0;z-index:1}
#transcript-audio audio{width:100%}
dialog button.t{border:0;background:none;padding:0;cursor:pointer;text-decoration:underline dotted}
#audio .definitions dt{font-weight:600;margin-top:4px}#audio .definitions dd{margin:0 0 0 16px;color:#5b6475}
#audio p.note{color:#5b6475}
.close{float:right}
#transcript-why .why{background:#fff5f5;border-left:3px solid #e53e3e;padding:4px 8px;margin:4px 0;overflow-wrap:anywhere}
#transcript-why ul{margin:2px 0 0;padding-left:18px;font:12px/1.4 ui-monospace,monospace}
dialog li.event{color:#4a5568;font-size:13px}dialog li.event .who{color:#975a16}
dialog li.event.node .who,dialog li.event.end .who{color:#2c7a7b}
dialog details.long summary{cursor:pointer;font:12px/1.4 ui-monospace,monospace;color:#4a5568;overflow-wrap:anywhere}
.timeline{position:relative;height:12px;margin:2px 0 4px;background:#eceff3;border-radius:3px}
.timeline .barge{position:absolute;top:0;width:4px;height:12px;margin-left:-2px;padding:0;border:0;background:#c05621;cursor:pointer;z-index:1}
.timeline .hold{position:absolute;top:2px;height:8px;min-width:2px;padding:0;border:0;background:#805ad5;opacity:.6;cursor:pointer}
dialog li.event.hold .who{color:#6b46c1}
.mark{stroke:#c53030;stroke-width:1.5;stroke-dasharray:3 2}.mark.p50{stroke:#2f855a}
#interaction .mark.p50{stroke-dasharray:none}#interaction .whisker line{stroke:#1a202c;stroke-width:1.5}
.legend-list{list-style:none;margin:4px 0 0;padding:0;font-size:12px;max-width:440px}
.legend-list li{overflow-wrap:anywhere}.swatch{display:inline-block;width:10px;height:10px;margin-right:4px;border-radius:2px}
.config-headline h2 .hash{font-weight:400;color:#8a93a3;font-size:13px}
.wide{max-width:100%;overflow-x:auto}
@media (max-width:900px){body{margin:12px}th,td{padding:4px 6px}
#scenario-table td.name{width:auto;min-width:8em}#scenario-table td.config{min-width:5em}
#scenario-table td{overflow-wrap:anywhere}#scenario-table td.name{overflow-wrap:break-word}
#scenario-table th{font-size:12px}}
`;

const SCRIPT = `
(() => {
  const data = JSON.parse(document.getElementById("transcripts").textContent);
  const dlg = document.getElementById("transcript");
  const fmt = (ms) => (ms / 1000).toFixed(1) + "s";
  // Closing the transcript stops its recording.
  dlg.addEventListener("close", () => document.querySelectorAll("#transcript-audio audio")
    .forEach((a) => a.pause()));
  document.querySelectorAll("button.trial").forEach((b) => b.addEventListener("click", () => {
    const t = data[Number(b.dataset.i)];
    if (!t) return;
    document.getElementById("transcript-title").textContent = t.scenario + " · trial " + t.trial;
    document.getElementById("transcript-meta").textContent =
      "success: " + t.is_successful + " · status: " + t.status + " · stop: " + t.stop_reason +
      (t.failed.length ? " · failed: " + t.failed.join(", ") : "") + (t.error ? " · " + t.error : "");
    const el = (tag, cls, text) => {
      const e = document.createElement(tag); if (cls) e.className = cls; e.textContent = text;
      return e;
    };
    // The call's recording, beside its transcript: a turn's time seeks it there.
    const box = document.getElementById("transcript-audio");
    let player = null;
    if (t.wav) {
      player = document.createElement("audio");
      player.controls = true;
      player.preload = "metadata";
      player.setAttribute("src", t.wav);
      box.replaceChildren(player);
    } else {
      box.replaceChildren();
    }
    const turns = t.turns.map(([who, text, start, end]) => {
      const li = document.createElement("li");
      li.className = who;
      const time = el(player ? "button" : "span", "t", fmt(start) + "–" + fmt(end));
      if (player) {
        time.type = "button";
        time.title = "play from here";
        time.addEventListener("click", () => { player.currentTime = start / 1000; player.play(); });
      }
      li.append(el("span", "who", who), time, document.createTextNode(text));
      return [start, li];
    });
    const LONG = 300;
    const tools = t.tools.map(([side, name, args, result, ok, at]) => {
      const li = document.createElement("li");
      li.className = ok ? "tool" : "tool failed";
      const shown = (ok ? "→ " : "→ error: ") + result;
      li.append(el("span", "who", side + " tool"), el("span", "t", fmt(at)),
        el("code", "call", name + "(" + args + ")"));
      if (shown.length > LONG) {
        // A long result folds: its start, its size, the rest on a click.
        const fold = document.createElement("details");
        fold.className = "long";
        fold.append(el("summary", "", shown.slice(0, 120) + "… (" + shown.length + " characters)"),
          el("code", "result", shown));
        li.append(fold);
      } else {
        li.append(el("code", "result", shown));
      }
      return [at, li];
    });
    const NAMES = { keys: "keys", beep: "beep", node: "flow node", hold: "hold",
      voicemail: "voicemail", end: "flow end", barge_in: "barge-in" };
    const seconds = (ms) => (ms / 1000).toFixed(1) + " s";
    const holdText = (text, at, end) =>
      "on hold at " + text + " for " + seconds(end - at) + " (until " + fmt(end) + ")";
    const events = t.events.map(([kind, side, text, at, end]) => {
      const li = document.createElement("li");
      li.className = "event " + kind;
      li.append(el("span", "who", (side ? side + " " : "") + (NAMES[kind] || kind)),
        el("span", "t", kind === "hold" && end !== null ? fmt(at) + "–" + fmt(end) : fmt(at)),
        document.createTextNode(kind === "hold" && end !== null ? holdText(text, at, end) : text));
      return [at, li];
    });
    // Why it failed, beside the transcript: each failed signal and its evidence.
    const why = document.getElementById("transcript-why");
    why.replaceChildren(...t.why.map(([signal, summary, details]) => {
      const box = document.createElement("div");
      box.className = "why";
      box.append(el("b", "", signal + ": "), document.createTextNode(summary));
      if (details.length > 1) {
        const ul = document.createElement("ul");
        ul.append(...details.map((d) => el("li", "", d)));
        box.append(ul);
      }
      return box;
    }));
    // Barge-ins and holds on the recording's timeline: a mark at each barge-in, a band
    // over each hold, seeking there on a click.
    const marked = (e) => e[0] === "barge_in" || (e[0] === "hold" && e[4] !== null);
    if (player && t.duration_ms > 0 && t.events.some(marked)) {
      const line = document.createElement("div");
      line.className = "timeline";
      const pct = (ms) => (100 * Math.min(1, Math.max(0, ms / t.duration_ms))).toFixed(2) + "%";
      for (const [kind, , text, at, end] of t.events) {
        if (!marked([kind, "", text, at, end])) continue;
        const mark = document.createElement("button");
        mark.type = "button";
        mark.className = kind === "hold" ? "hold" : "barge";
        mark.title = kind === "hold"
          ? "hold " + fmt(at) + "–" + fmt(end) + ": " + holdText(text, at, end)
          : "barge-in at " + fmt(at) + ": " + text;
        mark.style.left = pct(at);
        if (kind === "hold") {
          mark.style.width = (100 * Math.min(1, Math.max(0, end - at) / t.duration_ms)).toFixed(2) + "%";
        }
        mark.addEventListener("click", () => { player.currentTime = at / 1000; player.play(); });
        line.append(mark);
      }
      box.append(line);
    }
    // By time, a turn before a tool call made at its start (the sort is stable).
    const all = [...turns, ...tools, ...events].sort((a, b) => a[0] - b[0]);
    document.getElementById("transcript-turns").replaceChildren(...all.map((e) => e[1]));
    if (typeof dlg.showModal === "function") dlg.showModal(); else dlg.setAttribute("open", "");
  }));
  const table = document.getElementById("scenario-table");
  table.querySelectorAll("th.sortable").forEach((th, col) => th.addEventListener("click", () => {
    const dir = th.getAttribute("aria-sort") === "ascending" ? "descending" : "ascending";
    table.querySelectorAll("th").forEach((h) => h.removeAttribute("aria-sort"));
    th.setAttribute("aria-sort", dir);
    const num = th.dataset.type === "num";
    const body = table.tBodies[0];
    const rows = [...body.rows];
    rows.sort((a, b) => {
      const x = a.cells[col].dataset.v, y = b.cells[col].dataset.v;
      const c = num ? Number(x) - Number(y) : x.localeCompare(y);
      return dir === "ascending" ? c : -c;
    });
    body.append(...rows);
  }));
})();
`;

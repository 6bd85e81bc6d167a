/**
 * The HTML report's interaction plots (inline SVG, one series per configuration): a
 * histogram of each latency metric (response latency L_R, yield latency L_Y) with each
 * configuration's p50 and p95 marked, and the rates (yield rate, the selectivities,
 * agent interruptions per turn, the turn-taking score) as bars of their mean with the
 * 95% interval as a whisker. Each chart is 440 px wide, so the page fits at 800 px.
 *
 * @module
 */
import { histogram, latencyStats } from "./latency_stats.ts";
import type { InteractionAggregate, InteractionKey } from "./interaction_summary.ts";
import { escapeHtml as _esc } from "./text.ts";

/** One configuration's interaction figures and its samples of the latency metrics. */
export interface InteractionSeries {
  name: string;
  colour: string;
  aggregate: InteractionAggregate | undefined;
  /** The configuration's pooled samples of each latency metric, ms. */
  samples: Record<LatencyKey, readonly number[]>;
}

/** The latency metrics, drawn as histograms. */
export const LATENCY_KEYS = ["response_latency_ms", "yield_latency_ms"] as const;
export type LatencyKey = (typeof LATENCY_KEYS)[number];

const LATENCY_NAMES: Record<LatencyKey, string> = {
  response_latency_ms: "Response latency (L_R)",
  yield_latency_ms: "Yield latency (L_Y)",
};

/** The rates, drawn as bars with their interval, in this order. */
export const RATE_KEYS = [
  "yield_rate",
  "backchannel_selectivity",
  "vocal_tic_selectivity",
  "non_directed_selectivity",
  "pause_selectivity",
  "agent_interruptions_per_turn",
  "turn_taking_score",
] as const satisfies readonly InteractionKey[];

const RATE_NAMES: Record<(typeof RATE_KEYS)[number], string> = {
  yield_rate: "yield rate R_Y",
  backchannel_selectivity: "backchannels S_BC",
  vocal_tic_selectivity: "fillers S_VT",
  non_directed_selectivity: "side speech S_ND",
  pause_selectivity: "pauses",
  agent_interruptions_per_turn: "interruptions/turn I_A",
  turn_taking_score: "turn-taking score",
};

/** The Interaction section: the figures, or "" when no configuration has them. */
export function interactionSection(series: readonly InteractionSeries[]): string {
  const shown = series.filter((s) => s.aggregate !== undefined);
  if (shown.length === 0) return "";
  const figures = LATENCY_KEYS.filter((k) => shown.some((s) => s.samples[k].length > 0))
    .map((k) =>
      _figure(
        `${LATENCY_NAMES[k]}, ms: ${shown.length > 1 ? "one colour per configuration, " : ""}` +
          "p50 solid, p95 dashed",
        latencyHistogram(k, shown),
        _legend(shown, (s) => {
          const st = latencyStats(s.samples[k]);
          return st.count === 0
            ? "no samples"
            : `${st.count} samples · p50 ${st.p50_ms} ms · p95 ${st.p95_ms} ms`;
        }),
      )
    );
  const rates = RATE_KEYS.filter((k) => shown.some((s) => s.aggregate![k].n > 0));
  if (rates.length > 0) {
    figures.push(
      _figure(
        "Rates: mean and bootstrap 95% interval over scenarios",
        rateBars(rates, shown),
        shown.length > 1 ? _legend(shown, () => "") : "",
      ),
    );
  }
  return `<section id="interaction"><h2>Interaction</h2><p>Definitions and τ-voice's names: ` +
    `PROTOCOL.md, "Interaction metrics".</p><div class="charts">${
      figures.join("")
    }</div></section>`;
}

/** A histogram of one latency metric: each configuration's bars side by side per bin. */
export function latencyHistogram(key: LatencyKey, series: readonly InteractionSeries[]): string {
  const w = 440, h = 240, left = 44, right = 16, top = 16, bottom = 36;
  const id = `${key.replace(/_ms$/, "").replaceAll("_", "-")}-histogram`;
  const parts = [_svgOpen(id, w, h, `${LATENCY_NAMES[key]} histogram`)];
  const all = series.flatMap((s) => [...s.samples[key]]);
  const shared = histogram(all);
  if (shared === null) {
    parts.push(`<text x="${w / 2}" y="${h / 2}" text-anchor="middle">no samples</text>`);
    return parts.join("") + "</svg>";
  }
  const width = shared.bin_width_ms;
  const bins = shared.counts.length;
  const counts = series.map((s) => {
    const c = new Array<number>(bins).fill(0);
    for (const x of s.samples[key]) c[Math.min(bins - 1, Math.max(0, Math.floor(x / width)))]!++;
    return c;
  });
  const max = Math.max(1, ...counts.flat());
  const plotW = w - left - right;
  const plotH = h - top - bottom;
  const end = bins * width;
  const group = plotW / bins;
  const bw = Math.max(1, (group - 2) / series.length);
  series.forEach((s, j) => {
    counts[j]!.forEach((c, i) => {
      if (c === 0) return;
      const bh = (c / max) * plotH;
      const from = i * width;
      parts.push(
        `<rect class="bar" data-config="${_esc(s.name)}" style="fill:${s.colour}" x="${
          _n(left + i * group + 1 + j * bw)
        }" y="${_n(top + plotH - bh)}" width="${_n(bw)}" height="${_n(bh)}"><title>${
          _esc(s.name)
        } ${from}–${from + width} ms: ${c}</title></rect>`,
      );
    });
  });
  for (const s of series) {
    const st = latencyStats(s.samples[key]);
    for (const [mark, value] of [["p50", st.p50_ms], ["p95", st.p95_ms]] as const) {
      if (value === null) continue;
      const x = left + (Math.min(value, end) / end) * plotW;
      parts.push(
        `<line class="mark ${mark}" data-mark="${mark}" data-config="${_esc(s.name)}" ` +
          `style="stroke:${s.colour}" x1="${_n(x)}" x2="${_n(x)}" y1="${top}" y2="${
            top + plotH
          }">` +
          `<title>${_esc(s.name)} ${mark} ${Math.round(value)} ms</title></line>`,
      );
    }
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

/** The rates on a 0–1 axis: per rate, one bar per configuration with its interval. */
export function rateBars(
  keys: readonly (typeof RATE_KEYS)[number][],
  series: readonly InteractionSeries[],
): string {
  const row = 16, gap = 10, left = 150, right = 44, top = 8, axis = 22;
  const w = 440;
  const groupH = series.length * row + gap;
  const h = top + keys.length * groupH + axis;
  const plotW = w - left - right;
  const x = (v: number) => left + Math.min(1, Math.max(0, v)) * plotW;
  const parts = [_svgOpen("interaction-rates", w, h, "interaction rates with 95% intervals")];
  for (const v of [0, 0.5, 1]) {
    parts.push(
      `<line class="grid" x1="${_n(x(v))}" x2="${_n(x(v))}" y1="${top}" y2="${h - axis}"/>`,
      `<text class="tick" x="${_n(x(v))}" y="${h - axis + 14}" text-anchor="middle">${v}</text>`,
    );
  }
  keys.forEach((k, g) => {
    const y0 = top + g * groupH;
    parts.push(
      `<text class="label" x="${left - 6}" y="${y0 + (series.length * row) / 2 + 4}" ` +
        `text-anchor="end">${_esc(RATE_NAMES[k])}</text>`,
    );
    series.forEach((s, j) => {
      const m = s.aggregate?.[k];
      const y = y0 + j * row;
      if (!m || m.mean === null) {
        parts.push(
          `<text class="value" x="${left + 4}" y="${y + 12}">–</text>`,
        );
        return;
      }
      const ci = m.ci95;
      const title = `${_esc(s.name)} ${_esc(RATE_NAMES[k])}: ${m.mean.toFixed(3)}` +
        (ci ? ` (95% CI ${ci[0].toFixed(3)}–${ci[1].toFixed(3)})` : "") + `, n ${m.n}`;
      parts.push(
        `<rect class="bar rate" data-metric="${k}" data-config="${
          _esc(s.name)
        }" style="fill:${s.colour}" ` +
          `x="${left}" y="${y + 3}" width="${_n(x(m.mean) - left)}" height="${row - 6}">` +
          `<title>${title}</title></rect>`,
      );
      if (ci) {
        const cy = y + row / 2;
        parts.push(
          `<g class="whisker" data-metric="${k}" data-config="${_esc(s.name)}">` +
            `<line x1="${_n(x(ci[0]))}" x2="${_n(x(ci[1]))}" y1="${_n(cy)}" y2="${_n(cy)}"/>` +
            `<line x1="${_n(x(ci[0]))}" x2="${_n(x(ci[0]))}" y1="${_n(cy - 4)}" y2="${
              _n(cy + 4)
            }"/>` +
            `<line x1="${_n(x(ci[1]))}" x2="${_n(x(ci[1]))}" y1="${_n(cy - 4)}" y2="${
              _n(cy + 4)
            }"/><title>${title}</title></g>`,
        );
      }
      parts.push(
        `<text class="value" x="${w - right + 4}" y="${y + 12}">${m.mean.toFixed(2)}</text>`,
      );
    });
  });
  return parts.join("") + "</svg>";
}

function _legend(
  series: readonly InteractionSeries[],
  text: (s: InteractionSeries) => string,
): string {
  return `<ul class="legend-list">${
    series.map((s) =>
      `<li><span class="swatch" style="background:${s.colour}"></span>${_esc(s.name)}${
        text(s) ? `: ${_esc(text(s))}` : ""
      }</li>`
    ).join("")
  }</ul>`;
}

function _figure(caption: string, svg: string, legend: string): string {
  return `<figure>${svg}${legend}<figcaption>${_esc(caption)}</figcaption></figure>`;
}

function _svgOpen(id: string, w: number, h: number, label: string): string {
  return `<svg id="${id}" class="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${w} ${h}" width="${w}" height="${h}" role="img" aria-label="${
    _esc(label)
  }">`;
}

function _n(x: number): string {
  return String(Math.round(x * 10) / 10);
}

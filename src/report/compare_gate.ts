/**
 * The regression gate of a comparison: which figures it gates, and the smallest change
 * of each that counts. A figure regresses when its change is significant (its test,
 * Holm-Bonferroni over the gated tests), in the worse direction, and at least the
 * stated minimum effect; a latency figure is gated only where each side has enough
 * samples. The `success` rule also gates each scenario on its own: one that passed every
 * trial in A and fails every trial in B, with at least two trials on each side.
 *
 * A gate is written as a list (`success,pass^k,latency.p95:+150ms,interaction.yield_rate:-0.1`):
 * each entry a figure's key and, after `:`, its minimum effect: an amount in the
 * figure's unit (`+150ms`, `-0.1` for a share or a score), a share of A's value (`+10%`),
 * or both (`+100ms,+10%`: both must be reached). An entry without one takes the default:
 * the latency minimum for a figure in ms, none (any significant worsening) for the rest.
 *
 * @module
 */
import type { Problem } from "../problem/problem.ts";

/** The gate's figures by key: success, pass^k (k = the trials compared), the samples. */
export const GATE_KEYS = [
  "success",
  "pass^k",
  "latency.p50",
  "latency.p95",
  "v2v.p50",
  "v2v.p95",
  "ttfa.p50",
  "interaction.response_latency.p50",
  "interaction.turn_taking_score",
  "interaction.yield_latency.p50",
  "interaction.yield_rate",
  "interaction.agent_interruptions_per_turn",
  "interaction.backchannel_selectivity",
  "interaction.vocal_tic_selectivity",
  "interaction.non_directed_selectivity",
  "interaction.pause_selectivity",
] as const;
/** One of {@link GATE_KEYS}. */
export type GateKey = typeof GATE_KEYS[number];

/** The gate when none is given. */
export const DEFAULT_GATE = "success,pass^k,latency.p95";
/** The latency minimum when none is given: +100 ms and +10% of A's value. */
export const DEFAULT_MIN_LATENCY = "+100ms,+10%";
/** The fewest samples on each side for a sample figure to be gated. */
export const DEFAULT_MIN_SAMPLES = 20;
/** The fewest trials on each side for the scenario rule. */
export const SCENARIO_RULE_MIN_TRIALS = 2;

/** The smallest worsening that counts: an amount, a share of A's value, or both. */
export interface MinEffect {
  /** In the figure's unit, as a magnitude (ms, or a share 0..1, or a score). */
  amount: number;
  /** As a share of A's value (0.1 = 10%), a magnitude; 0: none. */
  relative: number;
}

/** One figure the gate checks. */
export interface GateRule {
  key: GateKey;
  min: MinEffect;
  /** Written by the user (true) or the default (false). */
  explicit: boolean;
}

/** The whole gate. */
export interface Gate {
  rules: GateRule[];
  /** Fewest samples on each side for a figure in ms (a quantile of too few says little). */
  minSamples: number;
}

/** Which way a figure gets worse, by its unit: latency figures up, the rest as given. */
export interface KeyInfo {
  unit: "share" | "ms" | "number";
  better: "higher" | "lower";
}

/**
 * The unit and better direction of each key (the sample figures' entries of
 * `SAMPLE_METRICS` agree; compare_test checks it).
 */
export const KEY_INFO: Readonly<Record<GateKey, KeyInfo>> = {
  "success": { unit: "share", better: "higher" },
  "pass^k": { unit: "share", better: "higher" },
  "latency.p50": { unit: "ms", better: "lower" },
  "latency.p95": { unit: "ms", better: "lower" },
  "v2v.p50": { unit: "ms", better: "lower" },
  "v2v.p95": { unit: "ms", better: "lower" },
  "ttfa.p50": { unit: "ms", better: "lower" },
  "interaction.response_latency.p50": { unit: "ms", better: "lower" },
  "interaction.turn_taking_score": { unit: "number", better: "higher" },
  "interaction.yield_latency.p50": { unit: "ms", better: "lower" },
  "interaction.yield_rate": { unit: "share", better: "higher" },
  "interaction.agent_interruptions_per_turn": { unit: "number", better: "lower" },
  "interaction.backchannel_selectivity": { unit: "share", better: "higher" },
  "interaction.vocal_tic_selectivity": { unit: "share", better: "higher" },
  "interaction.non_directed_selectivity": { unit: "share", better: "higher" },
  "interaction.pause_selectivity": { unit: "share", better: "higher" },
};

/** A parsed gate, or the problems of its text (the `field` names which text). */
export type GateParse = { gate: Gate; problems?: undefined } | {
  gate?: undefined;
  problems: Problem[];
};

/**
 * Parses a gate (`success,pass^k,latency.p95:+150ms`) with the latency minimum for
 * figures in ms that give none (`+100ms,+10%`).
 */
export function parseGate(
  text: string = DEFAULT_GATE,
  minLatency: string = DEFAULT_MIN_LATENCY,
  minSamples: number = DEFAULT_MIN_SAMPLES,
): GateParse {
  const problems: Problem[] = [];
  const latency = parseMinEffect(minLatency, { unit: "ms", better: "lower" });
  if ("problem" in latency) problems.push({ field: "min_latency", message: latency.problem });
  const rules: GateRule[] = [];
  for (const entry of _entries(text)) {
    const colon = entry.indexOf(":");
    const key = (colon < 0 ? entry : entry.slice(0, colon)).trim();
    if (!(GATE_KEYS as readonly string[]).includes(key)) {
      problems.push({
        field: "gate",
        message: `${JSON.stringify(key)} is not a figure the gate knows`,
        hint: `one of ${GATE_KEYS.join(", ")}`,
      });
      continue;
    }
    const k = key as GateKey;
    const info = KEY_INFO[k];
    if (rules.some((r) => r.key === k)) {
      problems.push({ field: "gate", message: `${k} is gated twice` });
      continue;
    }
    if (colon < 0) {
      const min = info.unit === "ms" && !("problem" in latency)
        ? latency
        : { amount: 0, relative: 0 };
      rules.push({ key: k, min, explicit: false });
      continue;
    }
    const min = parseMinEffect(entry.slice(colon + 1), info);
    if ("problem" in min) {
      problems.push({ field: "gate", message: `${k}: ${min.problem}` });
      continue;
    }
    rules.push({ key: k, min, explicit: true });
  }
  if (problems.length) return { problems };
  return { gate: { rules, minSamples } };
}

/**
 * A minimum effect written as one or two amounts (`+150ms`, `+10%`, `-0.1`, `+100ms,+10%`),
 * signed the way the figure gets worse (or unsigned).
 */
export function parseMinEffect(text: string, info: KeyInfo): MinEffect | { problem: string } {
  const min: MinEffect = { amount: 0, relative: 0 };
  const worse = info.better === "lower" ? "+" : "-";
  const parts = text.split(",").map((p) => p.trim());
  for (const part of parts) {
    const m = /^([+-]?)(\d+(?:\.\d+)?)(ms|%)?$/.exec(part);
    if (!m) {
      return {
        problem: `${JSON.stringify(part)} is not an amount (such as ${
          info.unit === "ms" ? "+150ms or +10%" : `${worse}0.1 or ${worse}10%`
        })`,
      };
    }
    const [, sign, digits, suffix] = m;
    if (sign && sign !== worse) {
      return {
        problem: `${part} points the better way: this figure gets worse ${
          worse === "+" ? "upwards (+)" : "downwards (-)"
        }`,
      };
    }
    const x = Number(digits);
    if (suffix === "%") min.relative = x / 100;
    else if (suffix === "ms" && info.unit !== "ms") {
      return { problem: `${part} is in ms, and this figure is not` };
    } else if (info.unit === "share" && x > 1) {
      return { problem: `${part} is more than a whole share (1 = 100 points)` };
    } else min.amount = x;
  }
  return min;
}

/** A minimum effect as written: `+100 ms and +10%`, `−0.1`, `any`. */
export function minEffectText(min: MinEffect, info: KeyInfo): string {
  const sign = info.better === "lower" ? "+" : "−";
  const parts: string[] = [];
  if (min.amount > 0) {
    parts.push(
      info.unit === "ms"
        ? `${sign}${min.amount} ms`
        : info.unit === "share"
        ? `${sign}${(min.amount * 100).toFixed(1)} pt`
        : `${sign}${min.amount}`,
    );
  }
  if (min.relative > 0) parts.push(`${sign}${+(min.relative * 100).toFixed(3)}%`);
  return parts.length ? parts.join(" and ") : "any";
}

/** Whether a worsening of `delta` from `a` reaches the minimum (both parts that are set). */
export function reachesMin(min: MinEffect, a: number, delta: number): boolean {
  const size = Math.abs(delta);
  return size >= min.amount && size >= min.relative * Math.abs(a) && size > 0;
}

/** The entries of a gate's text: a part starting with a sign or a digit continues the last. */
function _entries(text: string): string[] {
  const out: string[] = [];
  for (const part of text.split(",")) {
    const p = part.trim();
    if (p === "") continue;
    if (/^[+\-\d.]/.test(p) && out.length) out[out.length - 1] += `,${p}`;
    else out.push(p);
  }
  return out;
}

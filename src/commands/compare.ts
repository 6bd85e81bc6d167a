import type { Command, Io } from "../cli/io.ts";
import { InputError } from "../cli/problem.ts";
import {
  choiceFlag,
  flagRows,
  type FlagTable,
  fractionFlag,
  intFlag,
  parseFlags,
} from "../cli/args.ts";
import { readVerdicts } from "../score/read_records.ts";
import { runFile } from "../cli/run_file.ts";
import { VerdictWithoutTranscriptSchema } from "../score/verdict.ts";
import { configurationOf, type ReportedVerdict, VerdictSet } from "../report/summary.ts";
import { compareRuns, type Comparison } from "../report/compare.ts";
import {
  DEFAULT_GATE,
  DEFAULT_MIN_LATENCY,
  DEFAULT_MIN_SAMPLES,
  GATE_KEYS,
  parseGate,
  SCENARIO_RULE_MIN_TRIALS,
} from "../report/compare_gate.ts";
import {
  metricValue,
  renderComparisonHtml,
  renderComparisonMarkdown,
} from "../report/compare_render.ts";

const FLAGS = {
  in: {
    type: "string",
    value: "FILE",
    multiple: true,
    description: "where labels are looked up (repeatable; stdin when none)",
  },
  format: {
    type: "string",
    value: "F",
    description: "json (one line), md (Markdown for a pull-request comment) or html",
    default: "json",
  },
  "fail-on-regression": {
    type: "boolean",
    description:
      "exit 1 when the gate finds a regression, naming each (the gate's lines on stderr)",
  },
  gate: {
    type: "string",
    value: "LIST",
    description: "the figures the gate checks, each with its minimum effect after a colon\n" +
      "(success,pass^k,latency.p95:+150ms,interaction.yield_rate:-0.1)",
    default: DEFAULT_GATE,
  },
  "min-latency-delta": {
    type: "string",
    value: "D",
    description: "the minimum worsening of a gated figure in ms that gives none of its own:\n" +
      "+N ms, +N% of A's value, or both (both must be reached)",
    default: DEFAULT_MIN_LATENCY,
  },
  "min-samples": {
    type: "string",
    value: "N",
    description: "the fewest samples on each side for a figure in ms to be gated",
    default: String(DEFAULT_MIN_SAMPLES),
  },
  alpha: {
    type: "string",
    value: "X",
    description: "family-wise significance level (Holm-Bonferroni)",
    default: "0.05",
  },
  seed: { type: "string", value: "N", description: "seed of the bootstrap", default: "1" },
  "exclude-errors": {
    type: "boolean",
    description: "leave infrastructure-error trials out (they count as failures otherwise)",
  },
} as const satisfies FlagTable;

const help = `compare: two runs side by side: what got better, what got worse

Usage: cli.ts compare A B [--in FILE]... [--format json|md|html] [--fail-on-regression]
                      [--gate LIST] [--min-latency-delta D] [--min-samples N]
                      [--alpha X] [--seed N] [--exclude-errors]

A and B are each a run: a JSON Lines file of verdicts or trial records (records are
scored here, offline, without a judge), an eval --out folder (its verdicts.jsonl when
there is one, else its trials.jsonl), or a label (eval --label): that configuration's
verdicts in the --in files, or on stdin ("cat all.jsonl | cli.ts compare v1 v2"). A run
must be one configuration.

Over the scenarios both runs scored, per suite and overall: success, pass^k for
k = 1..K, latency p50/p95 (and, when both have them, the audio figures and the
interaction metrics: response and yield latency p50, turn-taking score, yield rate,
agent interruptions per turn, the selectivities; and the line's SNR and frames lost or
late, which describe the condition, so they get an interval and no test), each as A, B and
B − A with a 95% interval (paired bootstrap over scenarios, seeded) and a p-value
(success: McNemar's exact test on trials paired by scenario and trial index; pass^K,
every trial passed: McNemar's exact test on the scenarios; the rest: the bootstrap's);
then the scenarios whose success changed, with the first failing signal of each.

The gate (what --fail-on-regression fails on) decides each figure it checks, and says
why, line by line. A figure regresses when its change is all of: significant (p after
Holm-Bonferroni over the gated tests at most --alpha), in the worse direction, and at
least its minimum effect. By default it checks ${DEFAULT_GATE}:
  success       pooled over trials; any significant drop. Each scenario that passed
                every trial in A and fails every trial in B, with at least
                ${SCENARIO_RULE_MIN_TRIALS} trials on each side, is a regression on its own.
  pass^k        every trial of a scenario passed (k = K); any significant drop
  latency.p95   at least ${
  DEFAULT_MIN_LATENCY.replace(",", " and ")
} of A's p95 (--min-latency-delta), and only
                where each side has at least ${DEFAULT_MIN_SAMPLES} samples (--min-samples)
Figures --gate can check:
${_wrapped(GATE_KEYS.join(", ") + ".", 88, "  ")}
A minimum effect is written in the figure's unit, signed the way it gets worse:
+150ms, +10% (of A's value), +100ms,+10% (both), -0.1 (a share or a score).

Flags:
${flagRows(FLAGS)}`;

const FORMATS = ["json", "md", "html"] as const;

export const command: Command = {
  summary: "two runs side by side: deltas, significance, flipped scenarios",
  help,
  flags: FLAGS,
  async main(args, io) {
    const { values, positionals } = parseFlags(args, FLAGS);
    const format = choiceFlag("format", values.format, FORMATS, "json");
    if (positionals.length !== 2) {
      throw new InputError({
        message: `expected two runs (A and B), got ${positionals.length}`,
        hint: "cli.ts compare A B, each a verdicts file, an eval --out folder or a label",
      });
    }
    const alpha = fractionFlag("alpha", values.alpha) ?? Number(FLAGS.alpha.default);
    const seed = intFlag("seed", values.seed, Number(FLAGS.seed.default), 0);
    const exclude = values["exclude-errors"] ?? false;
    const minSamples = intFlag("min-samples", values["min-samples"], DEFAULT_MIN_SAMPLES, 0);
    const parsed = parseGate(
      values.gate ?? DEFAULT_GATE,
      values["min-latency-delta"] ?? DEFAULT_MIN_LATENCY,
      minSamples,
    );
    if (parsed.problems) {
      throw new InputError(
        parsed.problems.map((p) => ({
          ...p,
          field: p.field === "min_latency" ? "--min-latency-delta" : "--gate",
        })),
      );
    }

    let pool: ReportedVerdict[] | undefined;
    const runs: ReportedVerdict[][] = [];
    for (const [i, name] of positionals.entries()) {
      const side = i === 0 ? "A" : "B";
      let verdicts: ReportedVerdict[];
      const path = await runFile(name);
      if (path) verdicts = await _read([path], io);
      else {
        // A label is looked up on stdin without --in: at a terminal that would only wait.
        if (!values.in?.length && io.stdinIsTerminal) {
          throw new InputError({
            field: side,
            message: `${JSON.stringify(name)} is neither a file nor a folder`,
            hint: "a label (eval --label) is looked up in --in FILE, or in verdicts on stdin",
          });
        }
        pool ??= await _read(values.in ?? [], io);
        verdicts = pool.filter((v) => v.label === name);
        if (verdicts.length === 0) {
          const labels = [...new Set(pool.map((v) => v.label).filter((l) => l !== undefined))];
          throw new InputError({
            field: side,
            message: `${JSON.stringify(name)} is neither a file, a folder nor a label of the ` +
              `verdicts read`,
            hint: labels.length
              ? `labels read: ${labels.sort().join(", ")}`
              : "give a verdicts file or an eval --out folder",
          });
        }
      }
      const configs = new Set(verdicts.map(configurationOf));
      if (configs.size > 1) {
        const labels = [...new Set(verdicts.map((v) => v.label ?? `(config ${v.config_hash})`))];
        throw new InputError({
          field: side,
          message: `${JSON.stringify(name)} holds ${configs.size} configurations (${
            labels.sort().join(", ")
          })`,
          hint: "compare one configuration with another: name each by its label",
        });
      }
      runs.push(exclude ? verdicts.filter((v) => v.status !== "error") : verdicts);
    }

    const comparison = compareRuns(runs[0]!, runs[1]!, {
      names: [positionals[0]!, positionals[1]!],
      alpha,
      seed,
      gate: parsed.gate,
    });
    if (format === "json") io.out(JSON.stringify(comparison));
    else if (format === "md") io.out(renderComparisonMarkdown(comparison));
    else io.out(renderComparisonHtml(comparison));
    await io.flush();

    if (!values["fail-on-regression"]) return 0;
    for (const line of comparison.gate.lines) io.err(`compare: gate: ${line}`);
    if (comparison.regressions.length === 0) {
      io.err("compare: no regression");
      return 0;
    }
    for (const line of regressionLines(comparison)) io.err(`compare: regression: ${line}`);
    return 1;
  },
};

/**
 * Each regression as one line: a figure's scope, A → B, change and adjusted p; a
 * scenario's trials passed on each side.
 */
export function regressionLines(c: Comparison): string[] {
  const figures = c.scopes.flatMap((s) =>
    s.metrics.filter((m) => m.change === "regression").map((m) => {
      const v = (x: number | null) =>
        x === null ? "–" : metricValue(m, x) + (m.unit === "ms" ? " ms" : "");
      return `${s.scope} ${m.metric}: ${v(m.a)} → ${v(m.b)} (p ${
        m.p_holm === null ? "–" : m.p_holm.toPrecision(2)
      } after Holm-Bonferroni)`;
    })
  );
  const scenarios = c.regressions.filter((r) => r.scenario !== undefined).map((r) => {
    const f = c.flips.find((x) => x.scenario === r.scenario)!;
    return `scenario ${r.scenario}: ${f.a.passed}/${f.a.scored} → ${f.b.passed}/${f.b.scored}`;
  });
  return [...figures, ...scenarios];
}

/** Verdicts (trial records scored on the way), the newest of each trial key. */
async function _read(files: string[], io: Io): Promise<ReportedVerdict[]> {
  const set = new VerdictSet<ReportedVerdict>();
  for await (const { record } of readVerdicts(files, io.stdin, VerdictWithoutTranscriptSchema)) {
    set.add(record);
  }
  return set.sorted();
}

/** `text` wrapped at `width` columns, each line indented by `indent`. */
function _wrapped(text: string, width: number, indent: string): string {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line && indent.length + line.length + 1 + word.length > width) {
      lines.push(indent + line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(indent + line);
  return lines.join("\n");
}

import type { Command } from "../cli/io.ts";
import { printable } from "../problem/quote.ts";
import { InputError } from "../cli/problem.ts";
import {
  choiceFlag,
  flagRows,
  type FlagTable,
  fractionFlag,
  intFlag,
  parseFlags,
} from "../cli/args.ts";
import { VerdictSchema, VerdictWithoutTranscriptSchema } from "../score/verdict.ts";
import { readVerdicts } from "../score/read_records.ts";
import { nothingRead, runFiles } from "../cli/run_file.ts";
import {
  configurationOf,
  type Report,
  type ReportedVerdict,
  summarize,
  VerdictSet,
} from "../report/summary.ts";
import { compareRuns } from "../report/compare.ts";
import { renderMarkdown } from "../report/markdown.ts";
import { renderHtml } from "../report/html.ts";

const FLAGS = {
  format: {
    type: "string",
    value: "F",
    description: "json (default; one line), md (Markdown for a pull-request comment), or\n" +
      "html (one self-contained page: charts, sortable table, transcripts)",
  },
  "exclude-errors": {
    type: "boolean",
    description: "leave infrastructure-error trials out (they count as failures\n" +
      "otherwise; they are counted by kind either way)",
  },
  "failures-only": {
    type: "boolean",
    description: "md: list only failed trials and the scenarios that have them",
  },
  "max-chars": {
    type: "string",
    value: "N",
    description: "md: at most N characters; the headline and per-configuration tables\n" +
      "are kept, then as many failures as fit, and it says how many were left out\n" +
      "(0: no bound)",
    default: "60000, under a pull-request comment's 65,536",
  },
  baseline: {
    type: "string",
    value: "LABEL",
    description: "show each other configuration as a delta from this one (as compare)",
  },
  "min-success-rate": {
    type: "string",
    value: "X",
    description: "exit 1 when the success rate is below X (0 to 1); with several\n" +
      "configurations, when any configuration's is",
  },
} as const satisfies FlagTable;

const help = `report: verdicts in, a summary out

Usage: cli.ts report [FILE... | -] [--format json|md|html] [--exclude-errors]
                     [--failures-only] [--max-chars N] [--baseline LABEL]
                     [--min-success-rate X]

Reads verdicts (JSON Lines, files or stdin; an eval --out folder is its verdicts.jsonl,
else its trials.jsonl, and trial records are scored on the way; nothing read is exit 2),
keeps the last verdict of each trial key (scenario, trial, seed, config hash), so
"cat shard-*.jsonl | score | report" merges
shards and a retried trial's newest verdict wins, and prints: success and task-success rates, per-signal rates, pass^k for
k = 1..K (K = fewest trials of any scenario) with (c/n)^k and a bootstrap 95% interval
for pass^1, per suite and overall; agent response latency and time to first token
(p50/p90/p95/max); tokens per side; infrastructure errors by kind; a per-scenario table.
Audio runs (eval --audio) add voice-to-voice latency by VAD beside the reference's two
latencies, time to first audio and barge-in yield time (p50/p90/p95). Written into the
eval --out folder (report --format html > OUT/report.html), the HTML page plays each
trial's recording (OUT/audio/<trial>.wav) beside its transcript.
Verdicts are grouped by configuration (eval --label and config hash): each gets its own
headline and figures, and nothing (pass^k least of all) is pooled across configurations;
the JSON has every figure under configurations[] (label, config_hash, overall, by_suite).
Audio runs' interaction metrics are means with a bootstrap 95% interval over scenarios.
A failed trial is listed with its first failing signal and what shows it (the paths
where the world differs from the expected one, the unmet assertion, the missing
reference action, where a flow left its path).

Flags:
${flagRows(FLAGS)}`;

const FORMATS = ["json", "md", "html"] as const;

export const command: Command = {
  summary: "verdicts in, a summary out (json, md, html)",
  help,
  flags: FLAGS,
  async main(args, io) {
    const { values, positionals } = parseFlags(args, FLAGS);
    const format = choiceFlag("format", values.format, FORMATS, "json");
    const minRate = fractionFlag("min-success-rate", values["min-success-rate"]);
    const maxChars = intFlag("max-chars", values["max-chars"], 60_000, 0);

    const schema = format === "html" ? VerdictSchema : VerdictWithoutTranscriptSchema;
    const set = new VerdictSet<ReportedVerdict>();
    const files = await runFiles(positionals);
    let read = 0;
    for await (const { record } of readVerdicts(files, io.stdin, schema)) {
      set.add(record as ReportedVerdict);
      read++;
    }
    if (read === 0) throw nothingRead("verdicts", files);
    const verdicts = set.sorted();
    const excludeErrors = values["exclude-errors"] ?? false;
    const report = summarize(verdicts, {
      excludeErrors,
      read: set.read,
      duplicates: set.duplicates,
    });
    if (values.baseline !== undefined) {
      report.baseline = againstBaseline(values.baseline, verdicts, excludeErrors);
    }

    if (format === "json") io.out(JSON.stringify(report));
    else if (format === "md") {
      // Names and notes may quote a peer: no control byte of theirs reaches a terminal.
      io.out(printable(renderMarkdown(report, {
        failuresOnly: values["failures-only"] ?? false,
        ...(maxChars > 0 ? { maxChars } : {}),
      })));
    } else io.out(printable(renderHtml(report, verdicts)));
    await io.flush();

    if (minRate !== undefined) {
      // Each configuration is held to the bar: a pooled rate could hide a bad one.
      const several = report.configurations.length > 1;
      const groups = report.configurations.length === 0
        ? [{ name: "", rate: null }]
        : report.configurations.map((c) => ({
          name: several ? ` of configuration ${c.label ?? c.config_hash}` : "",
          rate: c.overall.success.rate,
        }));
      let below = false;
      for (const { name, rate } of groups) {
        if (rate !== null && rate >= minRate) continue;
        below = true;
        io.err(
          `report: success rate${name} ${
            rate === null ? "N/A" : `${(rate * 100).toFixed(1)}%`
          } is below the minimum ${(minRate * 100).toFixed(1)}%`,
        );
      }
      if (below) return 1;
    }
    return 0;
  },
};

/** Each configuration other than the one labelled `label`, compared against it. */
function againstBaseline(
  label: string,
  verdicts: readonly ReportedVerdict[],
  excludeErrors: boolean,
): NonNullable<Report["baseline"]> {
  const kept = excludeErrors ? verdicts.filter((v) => v.status !== "error") : verdicts;
  const groups = Map.groupBy(kept, configurationOf);
  const base = [...groups.entries()].filter(([, vs]) => vs[0]!.label === label);
  if (base.length !== 1) {
    const labels = [...new Set(kept.map((v) => v.label).filter((l) => l !== undefined))].sort();
    throw new InputError({
      field: "--baseline",
      message: base.length === 0
        ? `no configuration is labelled ${JSON.stringify(label)}`
        : `${base.length} configurations are labelled ${JSON.stringify(label)}`,
      hint: labels.length ? `labels read: ${labels.join(", ")}` : "the verdicts carry no label",
    });
  }
  const [baseKey, baseVerdicts] = base[0]!;
  return {
    label,
    // In the report's order of configurations: by label, then config hash.
    comparisons: [...groups.entries()].filter(([key]) => key !== baseKey).sort(([, x], [, y]) =>
      _order(x[0]!.label ?? "", y[0]!.label ?? "") ||
      _order(x[0]!.config_hash, y[0]!.config_hash)
    ).map(([, vs]) =>
      compareRuns(baseVerdicts, vs, {
        names: [label, vs[0]!.label ?? `config ${vs[0]!.config_hash}`],
      })
    ),
  };
}

function _order(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

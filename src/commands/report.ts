import type { Command } from "../cli/io.ts";
import { InputError } from "../cli/problem.ts";
import { flagRows, type FlagTable, fractionFlag, parseFlags } from "../cli/args.ts";
import { VerdictSchema } from "../score/verdict.ts";
import { readRecords } from "../score/read_records.ts";
import { type ReportedVerdict, summarize, VerdictSet } from "../report/summary.ts";
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
  "min-success-rate": {
    type: "string",
    value: "X",
    description: "exit 1 when the success rate is below X (0 to 1); with several\n" +
      "configurations, when any configuration's is",
  },
} as const satisfies FlagTable;

const help = `report: verdicts in, a summary out

Usage: cli.ts report [FILE... | -] [--format json|md|html] [--exclude-errors]
                     [--min-success-rate X]

Reads verdicts (JSON Lines, files or stdin), keeps the last verdict of each trial key
(scenario, trial, seed, config hash), so "cat shard-*.jsonl | score | report" merges
shards and a retried trial's newest verdict wins, and prints: success and task-success rates, per-signal rates, pass^k for
k = 1..K (K = fewest trials of any scenario) with (c/n)^k and a bootstrap 95% interval
for pass^1, per suite and overall; agent response latency and time to first token
(p50/p90/p95/max); tokens per side; infrastructure errors by kind; a per-scenario table.
Audio runs (eval --audio) add voice-to-voice latency by VAD beside the reference's two
latencies, time to first audio and barge-in yield time (p50/p90/p95). Written into the
eval --out folder (report --format html > OUT/report.html), the HTML page plays each
trial's recording (OUT/audio/<trial>.wav) beside its transcript.
Verdicts are grouped by configuration (eval --label and config hash): each gets its own
figures, and pass^k is never computed across configurations.

Flags:
${flagRows(FLAGS)}`;

const FORMATS = ["json", "md", "html"] as const;

/** Without the transcript (turns, tool calls): what json and md need, lighter to hold. */
const VerdictWithoutTurns = VerdictSchema.omit({ turns: true, tool_calls: true });

export const command: Command = {
  summary: "verdicts in, a summary out (json, md, html)",
  help,
  flags: FLAGS,
  async main(args, io) {
    const { values, positionals } = parseFlags(args, FLAGS);
    const format = values.format ?? "json";
    if (!(FORMATS as readonly string[]).includes(format)) {
      throw new InputError({
        field: "--format",
        message: `unknown format ${JSON.stringify(format)}`,
        hint: `one of ${FORMATS.join(", ")}`,
      });
    }
    const minRate = fractionFlag("min-success-rate", values["min-success-rate"]);

    const schema = format === "html" ? VerdictSchema : VerdictWithoutTurns;
    const set = new VerdictSet<ReportedVerdict>();
    for await (const { record } of readRecords(positionals, io.stdin, schema, "verdict")) {
      set.add(record);
    }
    const verdicts = set.sorted();
    const report = summarize(verdicts, {
      excludeErrors: values["exclude-errors"] ?? false,
      read: set.read,
      duplicates: set.duplicates,
    });

    if (format === "json") io.out(JSON.stringify(report));
    else if (format === "md") io.out(renderMarkdown(report));
    else io.out(renderHtml(report, verdicts));
    await io.flush();

    if (minRate !== undefined) {
      // Each configuration is held to the bar: a pooled rate could hide a bad one.
      const groups = report.configurations.length > 1
        ? report.configurations.map((c) => ({
          name: ` of configuration ${c.label ?? c.config_hash}`,
          rate: c.overall.success.rate,
        }))
        : [{ name: "", rate: report.overall.success.rate }];
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

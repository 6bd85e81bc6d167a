import type { Command } from "../cli/io.ts";
import { InputError } from "../cli/problem.ts";
import { parseFlags } from "../cli/args.ts";
import { VerdictSchema } from "../score/verdict.ts";
import { readRecords } from "../score/read_records.ts";
import { type ReportedVerdict, summarize, VerdictSet } from "../report/summary.ts";
import { renderMarkdown } from "../report/markdown.ts";
import { renderHtml } from "../report/html.ts";

const help = `report: verdicts in, a summary out

Usage: cli.ts report [FILE... | -] [--format json|md|html] [--exclude-errors]
                     [--min-success-rate X]

Reads verdicts (JSON Lines, files or stdin), keeps the last verdict of each trial key
(scenario, trial, seed, config hash), so "cat shard-*.jsonl | score | report" merges
shards, and prints: success and task-success rates, per-signal rates, pass^k for
k = 1..K (K = fewest trials of any scenario) with (c/n)^k and a bootstrap 95% interval
for pass^1, per suite and overall; agent response latency and time to first token
(p50/p90/p95/max); tokens per side; infrastructure errors by kind; a per-scenario table.

  --format F            json (default), md (Markdown for a pull-request comment), or
                        html (one self-contained page: charts, sortable table, transcripts)
  --exclude-errors      leave infrastructure-error trials out (they count as failures
                        otherwise; they are counted by kind either way)
  --min-success-rate X  exit 1 when the overall success rate is below X (0 to 1)`;

const FORMATS = ["json", "md", "html"] as const;

/** Without the transcript: what the json and md formats need, lighter to hold. */
const VerdictWithoutTurns = VerdictSchema.omit({ turns: true });

export const command: Command = {
  summary: "verdicts in, a summary out (json, md, html)",
  help,
  async main(args, io) {
    const { values, positionals } = parseFlags(args, {
      format: { type: "string" },
      "exclude-errors": { type: "boolean" },
      "min-success-rate": { type: "string" },
    });
    const format = values.format ?? "json";
    if (!(FORMATS as readonly string[]).includes(format)) {
      throw new InputError({
        field: "--format",
        message: `unknown format ${JSON.stringify(format)}`,
        hint: `one of ${FORMATS.join(", ")}`,
      });
    }
    let minRate: number | undefined;
    if (values["min-success-rate"] !== undefined) {
      minRate = Number(values["min-success-rate"]);
      if (!Number.isFinite(minRate) || minRate < 0 || minRate > 1) {
        throw new InputError({
          field: "--min-success-rate",
          message: `expected a number from 0 to 1, got ${
            JSON.stringify(values["min-success-rate"])
          }`,
        });
      }
    }

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

    if (format === "json") io.out(JSON.stringify(report, null, 2));
    else if (format === "md") io.out(renderMarkdown(report));
    else io.out(renderHtml(report, verdicts));
    await io.flush();

    if (minRate !== undefined) {
      const rate = report.overall.success.rate;
      if (rate === null || rate < minRate) {
        io.err(
          `report: success rate ${
            rate === null ? "N/A" : `${(rate * 100).toFixed(1)}%`
          } is below the minimum ${(minRate * 100).toFixed(1)}%`,
        );
        return 1;
      }
    }
    return 0;
  },
};

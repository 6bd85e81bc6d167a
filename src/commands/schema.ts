import { z } from "zod";
import type { Command } from "../cli/io.ts";
import { InputError } from "../cli/problem.ts";
import { flagRows, type FlagTable, parseFlags } from "../cli/args.ts";
import { ScenarioSchema } from "../scenario/scenario.ts";
import { FlowGroupSchema } from "../flow/schema.ts";
import { TRIAL_RECORD_SCHEMA, TrialRecordSchema } from "../runner/trial_record.ts";
import { VERDICT_SCHEMA, VerdictSchema } from "../score/verdict.ts";
import { REPORT_SCHEMA, ReportSchema } from "../report/summary.ts";

const FLAGS = {
  out: {
    type: "string",
    value: "DIR",
    description: "where to write the files",
    default: "schemas/",
  },
} as const satisfies FlagTable;

const help = `schema: write JSON Schemas of callbench's files and records

Usage: cli.ts schema [--out DIR]

Flags:
${flagRows(FLAGS)}

Writes, generated from the zod schemas that validate them:
  scenario.schema.json       scenario files (as written: defaults optional)
  flow.schema.json           flow files (scenarios.yaml groups: nodes and labelled scenarios)
  trial_record.schema.json   what eval prints
  verdict.schema.json        what score prints
  report.schema.json         what report --format json prints
into DIR (default schemas/), and prints one {"file","title"} line per file.`;

/** Each schema file: its name, title, zod schema and which side of parsing it describes. */
export const SCHEMA_FILES = [
  {
    file: "scenario.schema.json",
    title: "callbench scenario",
    schema: ScenarioSchema,
    io: "input",
  },
  {
    file: "flow.schema.json",
    title: "callbench flow group (scenarios.yaml)",
    schema: FlowGroupSchema,
    io: "input",
  },
  {
    file: "trial_record.schema.json",
    title: `callbench trial record (${TRIAL_RECORD_SCHEMA})`,
    schema: TrialRecordSchema,
    io: "output",
  },
  {
    file: "verdict.schema.json",
    title: `callbench verdict (${VERDICT_SCHEMA})`,
    schema: VerdictSchema,
    io: "output",
  },
  {
    file: "report.schema.json",
    title: `callbench report (${REPORT_SCHEMA})`,
    schema: ReportSchema,
    io: "output",
  },
] as const;

/** The JSON Schema text of one entry of `SCHEMA_FILES`. */
export function schemaText(entry: (typeof SCHEMA_FILES)[number]): string {
  const { $schema, ...json } = z.toJSONSchema(entry.schema, {
    target: "draft-2020-12",
    io: entry.io,
  });
  return JSON.stringify({ $schema, title: entry.title, ...json }, null, 2) + "\n";
}

export const command: Command = {
  summary: "write JSON Schemas for scenario and flow files, trial records, verdicts and reports",
  help,
  flags: FLAGS,
  async main(args, io) {
    const { values, positionals } = parseFlags(args, FLAGS);
    if (positionals.length > 0) {
      throw new InputError({ message: `unexpected argument ${JSON.stringify(positionals[0])}` });
    }
    const dir = (values.out ?? "schemas").replace(/\/+$/, "") || "/";
    try {
      await Deno.mkdir(dir, { recursive: true });
    } catch (e) {
      throw new InputError({ file: dir, message: `cannot create: ${(e as Error).message}` });
    }
    for (const entry of SCHEMA_FILES) {
      const path = `${dir}/${entry.file}`;
      try {
        await Deno.writeTextFile(path, schemaText(entry));
      } catch (e) {
        throw new InputError({ file: path, message: `cannot write: ${(e as Error).message}` });
      }
      io.out(JSON.stringify({ file: path, title: entry.title }));
    }
    return 0;
  },
};

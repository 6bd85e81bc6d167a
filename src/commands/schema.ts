import { z } from "zod";
import type { Command } from "../cli/io.ts";
import { InputError } from "../cli/problem.ts";
import { flagRows, type FlagTable, parseFlags } from "../cli/args.ts";
import { ReferenceActionSchema, ScenarioSchema } from "../scenario/scenario.ts";
import { SpeechOptionsSchema } from "../speech/speech_options.ts";
import { speechErrorSchema } from "../speech/speech.ts";
import { type TypeDeclaration, typeScriptModule } from "../schema/typescript.ts";
import { FlowGroupSchema } from "../flow/schema.ts";
import {
  ErrorKind,
  RunConcurrencySchema,
  StopReason,
  TRIAL_RECORD_SCHEMA,
  TrialKeySchema,
  TrialRecordSchema,
  TurnSchema,
} from "../runner/trial_record.ts";
import { JudgeResultSchema, VERDICT_SCHEMA, VerdictSchema } from "../score/verdict.ts";
import { REPORT_SCHEMA, ReportSchema } from "../report/summary.ts";
import { COMPARISON_SCHEMA, ComparisonSchema } from "../report/compare.ts";
import { WIRE_MESSAGES, wireSchemaFile } from "../protocol/wire_schemas.ts";

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
  comparison.schema.json     what compare --format json prints
  wire/*.schema.json         every wire message, one file per type (and per client-message
                             handler): client.*, server.*, twilio.*, twilio-agent.*
  wire/index.json            the list of wire messages: file, direction, type, t, summary
  types.ts                   the record types as TypeScript (the library's public types)
into DIR (default schemas/), and prints one {"file","title"} line per file.`;

/** One schema file: its path under the output folder, title, zod schema and parsing side. */
export interface SchemaFile {
  file: string;
  title: string;
  schema: z.ZodType;
  io: "input" | "output";
}

/** Each record schema file: its name, title, zod schema and which side of parsing it describes. */
export const RECORD_SCHEMA_FILES = [
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
  {
    file: "comparison.schema.json",
    title: `callbench comparison (${COMPARISON_SCHEMA})`,
    schema: ComparisonSchema,
    io: "output",
  },
] as const satisfies readonly SchemaFile[];

/** Each wire message's schema file (as a receiver reads it: defaulted fields optional). */
export const WIRE_SCHEMA_FILES: readonly SchemaFile[] = WIRE_MESSAGES.map((m) => ({
  file: `wire/${wireSchemaFile(m)}`,
  title: `callbench wire: ${m.direction} ${m.type}${m.t ? ` ${m.t}` : ""}`,
  schema: m.schema,
  io: "input",
}));

/** Every schema file `schema` writes. */
export const SCHEMA_FILES: readonly SchemaFile[] = [...RECORD_SCHEMA_FILES, ...WIRE_SCHEMA_FILES];

/** `wire/index.json`: the wire messages, each with its file and one line on its use. */
export const WIRE_INDEX_FILE = "wire/index.json";

/** The text of `wire/index.json`. */
export function wireIndexText(): string {
  const messages = WIRE_MESSAGES.map((m) => ({
    file: wireSchemaFile(m),
    direction: m.direction,
    type: m.type,
    ...(m.t ? { t: m.t } : {}),
    summary: m.summary,
  }));
  const about = "callbench wire messages: client = RTVI client to bot, server = bot to " +
    "client, twilio = Twilio (played by callbench) to the agent, twilio-agent = agent to " +
    "Twilio. See PROTOCOL.md.";
  return JSON.stringify({ about, messages }, null, 2) + "\n";
}

/** `types.ts`: the record types the library exports, as TypeScript declarations. */
export const TYPES_FILE = "types.ts";

/** Each public record type: its name, doc and zod schema (read on the output side). */
const PUBLIC_TYPES: readonly { name: string; doc: string; schema: z.ZodType }[] = [
  { name: "Scenario", doc: "A scenario, as loaded.", schema: ScenarioSchema },
  {
    name: "ReferenceAction",
    doc: "One reference action: a tool call the gold path makes.",
    schema: ReferenceActionSchema,
  },
  {
    name: "SpeechOptions",
    doc: "How both sides of an audio call sound.",
    schema: SpeechOptionsSchema,
  },
  { name: "SpeechError", doc: "A speech provider's failure.", schema: speechErrorSchema },
  { name: "ErrorKind", doc: "The kind of an infrastructure error.", schema: ErrorKind },
  { name: "StopReason", doc: "Why a call ended.", schema: StopReason },
  { name: "Turn", doc: "One turn of a call's transcript.", schema: TurnSchema },
  { name: "TrialKey", doc: "What identifies a trial.", schema: TrialKeySchema },
  {
    name: "RunConcurrency",
    doc: "How many trials a run held at once: asked, used, and why fewer.",
    schema: RunConcurrencySchema,
  },
  {
    name: "TrialRecord",
    doc: "One trial's record: what `eval` prints.",
    schema: TrialRecordSchema,
  },
  { name: "JudgeResult", doc: "The LLM judge's answer.", schema: JudgeResultSchema },
  { name: "Verdict", doc: "One trial's verdict: what `score` prints.", schema: VerdictSchema },
  {
    name: "Report",
    doc: "A run's summary: what `report --format json` prints.",
    schema: ReportSchema,
  },
];

/** The text of `types.ts`. */
export function typesText(): string {
  const declarations: TypeDeclaration[] = PUBLIC_TYPES.map(({ name, doc, schema }) => {
    const { $schema: _, ...json } = z.toJSONSchema(schema, {
      target: "draft-2020-12",
      io: "output",
      unrepresentable: "any",
    }) as Record<string, unknown>;
    return { name, doc, schema: json };
  });
  const header = [
    "/**",
    " * The record types callbench's library exports, generated by `deno task schema` from the",
    " * zod schemas that validate the records (do not edit: regenerate).",
    " *",
    " * @module",
    " */",
  ].join("\n");
  return typeScriptModule(header, declarations);
}

/** The JSON Schema text of one schema file. */
export function schemaText(entry: SchemaFile): string {
  const { $schema, ...json } = z.toJSONSchema(entry.schema, {
    target: "draft-2020-12",
    io: entry.io,
  });
  return JSON.stringify({ $schema, title: entry.title, ...json }, null, 2) + "\n";
}

export const command: Command = {
  summary:
    "write JSON Schemas for scenario and flow files, trial records, verdicts, reports and wire messages",
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
    try {
      await Deno.mkdir(`${dir}/wire`, { recursive: true });
    } catch (e) {
      throw new InputError({
        file: `${dir}/wire`,
        message: `cannot create: ${(e as Error).message}`,
      });
    }
    const files = [
      ...SCHEMA_FILES.map((entry) => ({ ...entry, text: () => schemaText(entry) })),
      { file: WIRE_INDEX_FILE, title: "callbench wire messages", text: wireIndexText },
      { file: TYPES_FILE, title: "callbench record types (TypeScript)", text: typesText },
    ];
    for (const entry of files) {
      const path = `${dir}/${entry.file}`;
      try {
        await Deno.writeTextFile(path, entry.text());
      } catch (e) {
        throw new InputError({ file: path, message: `cannot write: ${(e as Error).message}` });
      }
      io.out(JSON.stringify({ file: path, title: entry.title }));
    }
    return 0;
  },
};

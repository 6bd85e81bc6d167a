import { z } from "zod";
import type { Command } from "../cli/io.ts";
import { InputError } from "../cli/problem.ts";
import { flagRows, type FlagTable, parseFlags } from "../cli/args.ts";
import { readJsonl } from "../jsonl/jsonl.ts";
import { parseJsonLocated } from "../problem/json_error.ts";
import { getDomain } from "../domains/registry.ts";
import { deepFreeze } from "../env/deep_freeze.ts";
import { Environment } from "../env/environment.ts";

const FLAGS = {
  domain: { type: "string", value: "X", description: "the domain whose tools run (required)" },
  db: {
    type: "string",
    value: "FILE",
    description: "the agent-side database: a JSON file or a folder of shards (required)",
  },
  "user-db": { type: "string", value: "FILE", description: "the user-side database, if any" },
  today: {
    type: "string",
    value: "YYYY-MM-DD",
    description: "the world's date (default: the db's _current_date, else 2024-05-15)",
  },
  seed: { type: "string", value: "S", description: "the world's random seed", default: "replay" },
} as const satisfies FlagTable;

const help = `replay: run tool calls against a world and print results and the final hash

Usage: cli.ts replay --domain X --db FILE [--user-db FILE] [--today YYYY-MM-DD] [--seed S] < calls.jsonl

Flags:
${flagRows(FLAGS)}

Each input line: {"tool": name, "args": {...}, "side": "agent"|"user"} (side defaults to
agent), or a reference action as gold prints it ({"name", "arguments", "side"}). --db may
be a folder of shards (tau2_airline/db). Initialisation actions are not applied. Prints {"type":"call","tool","args","side","ok","result"} per call, then
{"type":"final","db_sha256","user_db_sha256"?,"actions":[...]}. Calls that fail are
reported as results and change nothing; a malformed line exits 2 naming the line.`;

/** `{tool, args}`, or the `{name, arguments}` of gold's reference actions. */
const CallLine = z.union([
  z.object({
    tool: z.string().min(1),
    args: z.record(z.string(), z.unknown()).default({}),
    side: z.enum(["agent", "user"]).default("agent"),
  }).strict(),
  z.object({
    name: z.string().min(1),
    arguments: z.record(z.string(), z.unknown()).default({}),
    side: z.enum(["agent", "user"]).default("agent"),
    compare_args: z.array(z.string()).nullish(),
  }).strict().transform((c) => ({ tool: c.name, args: c.arguments, side: c.side })),
]);

export const command: Command = {
  summary: "run tool calls from stdin against a world",
  help,
  flags: FLAGS,
  async main(args, io) {
    const { values } = parseFlags(args, FLAGS);
    if (!values.domain) throw new InputError({ field: "--domain", message: "required" });
    if (!values.db) throw new InputError({ field: "--db", message: "required" });
    const domain = await getDomain(values.domain);
    const db = readJson(values.db);
    const userDb = values["user-db"] ? readJson(values["user-db"]) : undefined;
    const today = values.today ??
      (typeof db._current_date === "string" ? db._current_date : "2024-05-15");
    if (!/^\d{4}-\d{2}-\d{2}$/.test(today) || Number.isNaN(Date.parse(`${today}T00:00:00Z`))) {
      throw new InputError({
        field: "--today",
        message: `expected a date YYYY-MM-DD, got ${JSON.stringify(today)}`,
      });
    }
    const env = new Environment(domain, {
      db: deepFreeze(db),
      ...(userDb ? { user_db: deepFreeze(userDb) } : {}),
    }, {
      today,
      seed: values.seed ?? FLAGS.seed.default,
    });
    for await (const { line, value } of readJsonl(io.stdin)) {
      const parsed = CallLine.safeParse(value);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        if (issue.code === "invalid_union") {
          throw new InputError({
            file: "<stdin>",
            line,
            message: 'expected {"tool", "args", "side"?} or {"name", "arguments", "side"?}',
          });
        }
        throw new InputError({
          file: "<stdin>",
          line,
          field: issue.path.join(".") || undefined,
          message: issue.message,
        });
      }
      const { tool, args: callArgs, side } = parsed.data;
      const r = env.call(side, tool, callArgs);
      io.out(
        JSON.stringify({
          type: "call",
          tool: r.tool,
          args: callArgs,
          side,
          ok: r.ok,
          result: r.result,
        }),
      );
    }
    const hashes = env.hashes();
    io.out(JSON.stringify({ type: "final", ...hashes, actions: env.actions }));
    return 0;
  },
};

/** A database file, or a folder of shards `{stem: contents}` as tau2_airline ships. */
function readJson(path: string): Record<string, unknown> {
  let isDir = false;
  try {
    isDir = Deno.statSync(path).isDirectory;
  } catch (e) {
    throw new InputError({ file: path, message: `cannot read: ${(e as Error).message}` });
  }
  if (isDir) {
    const db: Record<string, unknown> = {};
    const shards = [...Deno.readDirSync(path)].filter((e) => e.isFile && e.name.endsWith(".json"))
      .map((e) => e.name).sort();
    if (shards.length === 0) {
      throw new InputError({ file: path, message: "a folder with no .json shards" });
    }
    for (const name of shards) db[name.replace(/\.json$/, "")] = readJson(`${path}/${name}`);
    return db;
  }
  const text = Deno.readTextFileSync(path);
  const parsed = parseJsonLocated(text);
  if (!parsed.ok) {
    throw new InputError({
      file: path,
      line: parsed.error.line,
      message: `invalid JSON at column ${parsed.error.column}: ${parsed.error.message}`,
    });
  }
  const v = parsed.value;
  if (typeof v !== "object" || v === null || Array.isArray(v)) {
    throw new InputError({ file: path, message: "not a JSON object" });
  }
  return v as Record<string, unknown>;
}

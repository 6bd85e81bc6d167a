import { z } from "zod";
import type { Command } from "../cli/io.ts";
import { InputError } from "../cli/problem.ts";
import { parseFlags } from "../cli/args.ts";
import { readJsonl } from "../cli/jsonl.ts";
import { getDomain } from "../domains/registry.ts";
import { deepFreeze } from "../env/deep_freeze.ts";
import { Environment } from "../env/environment.ts";

const help = `replay: run tool calls against a world and print results and the final hash

Usage: cli.ts replay --domain X --db FILE [--user-db FILE] [--today YYYY-MM-DD] [--seed S] < calls.jsonl

Each input line: {"tool": name, "args": {...}, "side": "agent"|"user"} (side defaults to
agent). Prints {"type":"call","tool","args","side","ok","result"} per call, then
{"type":"final","db_sha256","user_db_sha256"?,"actions":[...]}. Calls that fail are
reported as results and change nothing; a malformed line exits 2 naming the line.`;

const CallLine = z.object({
  tool: z.string().min(1),
  args: z.record(z.string(), z.unknown()).default({}),
  side: z.enum(["agent", "user"]).default("agent"),
}).strict();

export const command: Command = {
  summary: "run tool calls from stdin against a world",
  help,
  async main(args, io) {
    const { values } = parseFlags(args, {
      domain: { type: "string" },
      db: { type: "string" },
      "user-db": { type: "string" },
      today: { type: "string" },
      seed: { type: "string" },
    });
    if (!values.domain) throw new InputError({ field: "--domain", message: "required" });
    if (!values.db) throw new InputError({ field: "--db", message: "required" });
    const domain = await getDomain(values.domain);
    const db = readJson(values.db);
    const userDb = values["user-db"] ? readJson(values["user-db"]) : undefined;
    const today = values.today ??
      (typeof db._current_date === "string" ? db._current_date : "2024-05-15");
    const env = new Environment(domain, {
      db: deepFreeze(db),
      ...(userDb ? { user_db: deepFreeze(userDb) } : {}),
    }, {
      today,
      seed: values.seed ?? "replay",
    });
    for await (const { line, value } of readJsonl(io.stdin)) {
      const parsed = CallLine.safeParse(value);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
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

function readJson(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = Deno.readTextFileSync(path);
  } catch (e) {
    throw new InputError({ file: path, message: `cannot read: ${(e as Error).message}` });
  }
  try {
    const v = JSON.parse(text);
    if (typeof v !== "object" || v === null || Array.isArray(v)) {
      throw new Error("not a JSON object");
    }
    return v;
  } catch (e) {
    throw new InputError({ file: path, message: `invalid JSON: ${(e as Error).message}` });
  }
}

import { join } from "node:path";
import type { Command } from "../cli/io.ts";
import { InputError } from "../cli/problem.ts";
import { flagRows, type FlagTable, parseFlags } from "../cli/args.ts";
import { canonicalJson } from "../canonical/canonical_json.ts";
import { sha256Hex } from "../canonical/hash.ts";
import { documentProblem } from "../canonical/document_limits.ts";
import { parseJsonLocated } from "../problem/json_error.ts";

const FLAGS = {
  canonical: { type: "boolean", description: "also print the canonical string that is hashed" },
} as const satisfies FlagTable;

const help = `hash: the reference harness's canonical DB hash of JSON documents

Usage: cli.ts hash [--canonical] [FILE... | FOLDER... | -]

Flags:
${flagRows(FLAGS)}

Prints {"input","sha256"} per input (stdin when no file or "-"); --canonical adds the
canonical string that is hashed. A FOLDER is a sharded database, as the reference
loads one (tau2_airline/db/): its *.json files as {stem: contents}. Invalid JSON
exits 2 naming the input, line and column; so does a document nested deeper than
the reference's recursion limit (1000) or holding an integer beyond 2^53, which a
JavaScript number would round (the reference keeps Python ints).`;

export const command: Command = {
  summary: "the reference's canonical DB hash of JSON documents",
  help,
  flags: FLAGS,
  async main(args, io) {
    const { values, positionals } = parseFlags(args, FLAGS);
    const inputs = positionals.length > 0 ? positionals : ["-"];
    for (const input of inputs) {
      const doc = input === "-"
        ? parseDocument(await new Response(io.stdin).text(), "<stdin>")
        : await readInput(input);
      const canonical = canonicalJson(doc);
      io.out(
        JSON.stringify({
          input: input === "-" ? "<stdin>" : input,
          sha256: sha256Hex(canonical),
          ...(values.canonical ? { canonical } : {}),
        }),
      );
    }
    return 0;
  },
};

/** A JSON file, or a folder of shards read as `{stem: contents}` (the reference's loader). */
async function readInput(path: string): Promise<unknown> {
  let folder = false;
  try {
    folder = (await Deno.stat(path)).isDirectory;
  } catch {
    // readFile names the problem
  }
  if (!folder) return parseDocument(await readFile(path), path);
  const names: string[] = [];
  for await (const e of Deno.readDir(path)) {
    if (e.isFile && e.name.endsWith(".json")) names.push(e.name);
  }
  if (names.length === 0) {
    throw new InputError({ file: path, message: "a folder of shards holds no .json files" });
  }
  names.sort();
  const db: Record<string, unknown> = {};
  for (const name of names) {
    const file = join(path, name);
    db[name.slice(0, -".json".length)] = parseDocument(await readFile(file), file);
  }
  return db;
}

async function readFile(path: string): Promise<string> {
  try {
    return await Deno.readTextFile(path);
  } catch (e) {
    throw new InputError({ file: path, message: `cannot read: ${(e as Error).message}` });
  }
}

function parseDocument(text: string, name: string): unknown {
  const parsed = parseJsonLocated(text);
  if (parsed.ok) {
    const problem = documentProblem(parsed.value, text);
    if (problem) throw new InputError({ file: name, message: `cannot hash: ${problem}` });
    return parsed.value;
  }
  const { line, column, message } = parsed.error;
  throw new InputError({
    file: name,
    line,
    message: `invalid JSON at column ${column}: ${message}`,
  });
}

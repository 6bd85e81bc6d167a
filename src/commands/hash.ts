import { join } from "node:path";
import type { Command } from "../cli/io.ts";
import { cliError, InputError } from "../cli/problem.ts";
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
is reported naming the input, line and column; so is a document nested deeper than
the reference's recursion limit (1000) or holding an integer beyond 2^53, which a
JavaScript number would round (the reference keeps Python ints). As sha256sum does,
every input gets its line or its problem (on stderr), and any problem exits 2 at the end.`;

export const command: Command = {
  summary: "the reference's canonical DB hash of JSON documents",
  help,
  flags: FLAGS,
  async main(args, io) {
    const { values, positionals } = parseFlags(args, FLAGS);
    const inputs = positionals.length > 0 ? positionals : ["-"];
    // As sha256sum: every input gets its hash or its problem; any problem exits 2 at the end.
    let failed = false;
    for (const input of inputs) {
      let doc: unknown;
      try {
        doc = input === "-"
          ? parseDocument(await new Response(io.stdin).text(), "<stdin>")
          : await readInput(input);
      } catch (e) {
        if (!(e instanceof InputError)) throw e;
        io.err(cliError(e).message);
        failed = true;
        continue;
      }
      const canonical = canonicalJson(doc);
      io.out(
        JSON.stringify({
          input: input === "-" ? "<stdin>" : input,
          sha256: sha256Hex(canonical),
          ...(values.canonical ? { canonical } : {}),
        }),
      );
    }
    return failed ? 2 : 0;
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

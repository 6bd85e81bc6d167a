import { join } from "node:path";
import type { Command } from "../cli/io.ts";
import { cliError, InputError } from "../cli/problem.ts";
import { choiceFlag, flagRows, type FlagTable, parseFlags } from "../cli/args.ts";
import {
  canonicalJsonOf,
  DEFAULT_HASH_VARIANT,
  HASH_VARIANTS,
  type HashVariant,
} from "../canonical/hash_variant.ts";
import { getDomain } from "../domains/registry.ts";
import { sha256Hex } from "../canonical/hash.ts";
import { documentProblem } from "../canonical/document_limits.ts";
import { parseJsonLocated } from "../problem/json_error.ts";

const FLAGS = {
  canonical: { type: "boolean", description: "also print the canonical string that is hashed" },
  variant: {
    type: "string",
    value: "V",
    description:
      "whose hash: nemo (NeMo's db_hash.py) or eva (EVA-Bench's get_dict_hash); default the domain's, else nemo",
  },
  domain: {
    type: "string",
    value: "D",
    description: "hash as this domain's expected states are hashed",
  },
} as const satisfies FlagTable;

const help = `hash: the reference harness's canonical DB hash of JSON documents

Usage: cli.ts hash [--canonical] [--variant nemo|eva | --domain D] [FILE... | FOLDER... | -]

Flags:
${flagRows(FLAGS)}

Prints {"input","sha256"} per input (stdin when no file or "-"); --canonical adds the
canonical string that is hashed. A FOLDER is a sharded database, as the reference
loads one (tau2_airline/db/): its *.json files as {stem: contents}. Invalid JSON
is reported naming the input, line and column; so is a document nested deeper than
the reference's recursion limit (1000) or holding an integer beyond 2^53, which a
JavaScript number would round (the reference keeps Python ints). As sha256sum does,
every input gets its line or its problem (on stderr), and any problem exits 2 at the end.
With --variant or --domain each line also names the variant: nemo and eva are the same
algorithm today (NeMo's file ports EVA's verbatim), each pinned by its own upstream's
vectors.`;

export const command: Command = {
  summary: "the reference's canonical DB hash of JSON documents",
  help,
  flags: FLAGS,
  async main(args, io) {
    const { values, positionals } = parseFlags(args, FLAGS);
    const inputs = positionals.length > 0 ? positionals : ["-"];
    const named = values.variant !== undefined || values.domain !== undefined;
    const fallback: HashVariant = values.domain !== undefined
      ? (await getDomain(values.domain)).hashVariant ?? DEFAULT_HASH_VARIANT
      : DEFAULT_HASH_VARIANT;
    const variant = choiceFlag("variant", values.variant, HASH_VARIANTS, fallback);
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
      const canonical = canonicalJsonOf(variant, doc);
      io.out(
        JSON.stringify({
          input: input === "-" ? "<stdin>" : input,
          ...(named ? { variant } : {}),
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

import type { Command } from "../cli/io.ts";
import { InputError } from "../cli/problem.ts";
import { parseFlags } from "../cli/args.ts";
import { canonicalJson } from "../canonical/canonical_json.ts";
import { sha256Hex } from "../canonical/hash.ts";
import { parseJsonLocated } from "../cli/json_error.ts";

const help = `hash: the reference harness's canonical DB hash of JSON documents

Usage: cli.ts hash [--canonical] [FILE... | -]

Prints {"input","sha256"} per input (stdin when no file or "-"); --canonical adds the
canonical string that is hashed. Invalid JSON exits 2 naming the input, line and column.`;

export const command: Command = {
  summary: "the reference's canonical DB hash of JSON documents",
  help,
  async main(args, io) {
    const { values, positionals } = parseFlags(args, { canonical: { type: "boolean" } });
    const inputs = positionals.length > 0 ? positionals : ["-"];
    for (const input of inputs) {
      const text = input === "-" ? await new Response(io.stdin).text() : await readFile(input);
      const doc = parseDocument(text, input === "-" ? "<stdin>" : input);
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

async function readFile(path: string): Promise<string> {
  try {
    return await Deno.readTextFile(path);
  } catch (e) {
    throw new InputError({ file: path, message: `cannot read: ${(e as Error).message}` });
  }
}

function parseDocument(text: string, name: string): unknown {
  const parsed = parseJsonLocated(text);
  if (parsed.ok) return parsed.value;
  const { line, column, message } = parsed.error;
  throw new InputError({
    file: name,
    line,
    message: `invalid JSON at column ${column}: ${message}`,
  });
}

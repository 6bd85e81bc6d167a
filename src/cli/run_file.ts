/**
 * The file a command reads a run from, given a file or an eval --out folder.
 *
 * @module
 */
import { join } from "node:path";
import { InputError } from "../problem/problem.ts";

/**
 * An eval --out folder's verdicts.jsonl when it has one, else its trials.jsonl; a file
 * as given; undefined when there is nothing at `path`.
 */
export async function runFile(path: string): Promise<string | undefined> {
  const stat = await Deno.stat(path).catch(() => undefined);
  if (!stat) return undefined;
  if (!stat.isDirectory) return path;
  for (const file of ["verdicts.jsonl", "trials.jsonl"]) {
    const inside = join(path, file);
    if (await Deno.stat(inside).then((s) => s.isFile, () => false)) return inside;
  }
  throw new InputError({
    file: path,
    message: "the folder holds neither verdicts.jsonl nor trials.jsonl",
    hint: "give an eval --out folder, or a file of verdicts",
  });
}

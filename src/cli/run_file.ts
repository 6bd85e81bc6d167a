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
export async function runFile(
  path: string,
  files: readonly string[] = ["verdicts.jsonl", "trials.jsonl"],
): Promise<string | undefined> {
  const stat = await Deno.stat(path).catch(() => undefined);
  if (!stat) return undefined;
  if (!stat.isDirectory) return path;
  for (const file of files) {
    const inside = join(path, file);
    if (await Deno.stat(inside).then((s) => s.isFile, () => false)) return inside;
  }
  throw new InputError({
    file: path,
    message: files.length === 1
      ? `the folder holds no ${files[0]}`
      : `the folder holds neither ${files.join(" nor ")}`,
    hint: "give an eval --out folder, or a file",
  });
}

/** Each path as given, an eval --out folder as its file (`runFile`); a missing path as given. */
export async function runFiles(
  paths: readonly string[],
  files?: readonly string[],
): Promise<string[]> {
  const out: string[] = [];
  for (const p of paths) out.push((await runFile(p, files)) ?? p);
  return out;
}

/**
 * The input error of a command that read no records: said rather than an empty result
 * with exit 0, so a pipeline whose first stage failed fails here too.
 */
export function nothingRead(what: string, files: readonly string[]): InputError {
  return new InputError({
    ...(files.length ? { file: files.join(", ") } : {}),
    message: files.length
      ? `no ${what} in ${files.length === 1 ? "the file" : "the files"}`
      : `no ${what} on stdin`,
    hint: "did the command before it in the pipeline fail? its own message says why",
  });
}

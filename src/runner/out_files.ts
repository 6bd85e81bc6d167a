/**
 * Files a run writes into its output folder, written so that nothing planted in the
 * folder redirects them: a symbolic link (or a FIFO, or a device) where a transcript,
 * a recording or `trials.jsonl` goes is never followed.
 *
 * - A transcript or a recording is written to a new file of a fresh name (created
 *   exclusively, which no link can satisfy) and renamed over its name: the rename
 *   replaces whatever entry was there, a link included, never the file it points to.
 * - A folder written into (`transcripts/`, `audio/`) must be a real folder.
 * - `trials.jsonl` is opened only if it is a regular file (checked before opening,
 *   so a FIFO never blocks the open, and again on the open file, so a swap between
 *   the two is caught), and read line by line with a bounded line length.
 *
 * @module
 */
import { basename, dirname, join } from "node:path";
import { InputError } from "../problem/problem.ts";
import { readLines } from "../jsonl/jsonl.ts";
import { quoteInput } from "../problem/quote.ts";

/** The longest line of `trials.jsonl` read (a record line; records are bounded well below). */
export const MAX_RECORD_LINE_BYTES = 64 * 1024 * 1024;

/** What a directory entry is, in words (for a refusal). */
function kindOf(info: Deno.FileInfo): string {
  if (info.isSymlink) return "a symbolic link";
  if (info.isDirectory) return "a folder";
  if (info.isFifo) return "a FIFO";
  if (info.isCharDevice || info.isBlockDevice) return "a device";
  if (info.isSocket) return "a socket";
  return "not a regular file";
}

/** `path`'s entry, not following a link; undefined when there is none. */
async function entry(path: string): Promise<Deno.FileInfo | undefined> {
  try {
    return await Deno.lstat(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return undefined;
    throw e;
  }
}

/**
 * Makes `dir` (and its parents) unless it exists; refuses one that is a link or not a
 * folder. Throws an Error naming it.
 */
export async function ensureFolder(dir: string): Promise<void> {
  await Deno.mkdir(dir, { recursive: true });
  const info = await Deno.lstat(dir);
  if (!info.isDirectory) {
    throw new Error(
      `${quoteInput(dir)} is ${kindOf(info)}, not a folder: nothing is written through it`,
    );
  }
}

/**
 * Writes `data` as `path` without following any link there: into a fresh file beside
 * it, renamed over it. The folder must be a real one. Throws on failure.
 */
export async function writeNoFollow(path: string, data: string | Uint8Array): Promise<void> {
  const dir = dirname(path);
  const info = await Deno.lstat(dir);
  if (!info.isDirectory) {
    throw new Error(
      `${quoteInput(dir)} is ${kindOf(info)}, not a folder: nothing is written through it`,
    );
  }
  const tmp = join(dir, `.${basename(path)}.${crypto.randomUUID()}.tmp`);
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  try {
    await Deno.writeFile(tmp, bytes, { createNew: true });
    await Deno.rename(tmp, path);
  } catch (e) {
    await Deno.remove(tmp).catch(() => {});
    throw e;
  }
}

/** A refusal of `file` (the folder's `trials.jsonl`) for being what it is. */
function notRegular(file: string, info: Deno.FileInfo): InputError {
  return new InputError({
    option: "out",
    file,
    message: `is ${kindOf(info)}: records are read from and written to a regular file only`,
    hint: "remove it, or use a new folder",
  });
}

/** Throws unless `open`'s file is the regular file `before` described. */
async function checkSame(file: string, open: Deno.FsFile, before: Deno.FileInfo): Promise<void> {
  const now = await open.stat();
  if (!now.isFile) throw notRegular(file, now);
  if (now.ino !== before.ino || now.dev !== before.dev) {
    throw new InputError({ option: "out", file, message: "was replaced while being opened" });
  }
}

/**
 * `trials.jsonl` for appending, created if absent (exclusively: a link planted after
 * the check fails the create). Refuses anything but a regular file.
 */
export async function openRecordsForAppend(file: string): Promise<Deno.FsFile> {
  const before = await entry(file);
  if (before === undefined) {
    return await Deno.open(file, { write: true, append: true, createNew: true });
  }
  if (!before.isFile) throw notRegular(file, before);
  const open = await Deno.open(file, { append: true });
  try {
    await checkSame(file, open, before);
  } catch (e) {
    open.close();
    throw e;
  }
  return open;
}

/**
 * The lines of `trials.jsonl`, one at a time (none when it is absent), each with its
 * byte offset and whether a newline ended it. Refuses anything but a regular file; a
 * line over {@link MAX_RECORD_LINE_BYTES} is an `InputError` naming it.
 */
export async function* recordLines(
  file: string,
): AsyncGenerator<{ line: number; text: string; offset: number; terminated: boolean }> {
  const before = await entry(file);
  if (before === undefined) return;
  if (!before.isFile) throw notRegular(file, before);
  const open = await Deno.open(file, { read: true });
  try {
    await checkSame(file, open, before);
  } catch (e) {
    open.close();
    throw e;
  }
  // The stream closes the file when it ends or is cancelled (a `return` or a throw).
  yield* readLines(open.readable, file, MAX_RECORD_LINE_BYTES);
}

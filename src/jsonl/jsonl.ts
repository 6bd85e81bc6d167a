/**
 * JSON Lines as a stream with located errors.
 *
 * Lines are split on bytes (a UTF-8 newline byte never occurs inside a multi-byte
 * character), each byte looked at once, so reading is linear in the input however long
 * a line is. A line longer than {@link MAX_LINE_BYTES} stops the read with a located
 * error instead of growing without bound.
 *
 * @module
 */
import { InputError } from "../problem/problem.ts";
import { parseJsonLocated } from "../problem/json_error.ts";

/** The longest line read (64 MiB): no record written by callbench comes near it. */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;

/**
 * Splits a byte stream into lines (without terminators), numbered from 1, each with the
 * byte offset it starts at and whether a newline ended it (only a last line may lack
 * one). A line over `maxLineBytes` throws an `InputError` naming `file` and the line.
 */
export async function* readLines(
  stream: ReadableStream<Uint8Array>,
  file = "<stdin>",
  maxLineBytes = MAX_LINE_BYTES,
): AsyncGenerator<{ line: number; text: string; offset: number; terminated: boolean }> {
  const decoder = new TextDecoder();
  // The pieces of the current line seen so far (chunk views), and their length.
  let pieces: Uint8Array[] = [];
  let pending = 0;
  let n = 0;
  // Bytes of the stream before the current line.
  let offset = 0;
  const tooLong = () =>
    new InputError({
      file,
      line: n + 1,
      message: `line longer than ${maxLineBytes} bytes (the limit of a record line)`,
    });
  const take = (last: Uint8Array): string => {
    let bytes = last;
    if (pieces.length > 0) {
      bytes = new Uint8Array(pending + last.length);
      let off = 0;
      for (const p of pieces) {
        bytes.set(p, off);
        off += p.length;
      }
      bytes.set(last, off);
    }
    pieces = [];
    pending = 0;
    const text = decoder.decode(bytes);
    return text.endsWith("\r") ? text.slice(0, -1) : text;
  };
  for await (const chunk of stream) {
    let start = 0;
    let i: number;
    while ((i = chunk.indexOf(10, start)) >= 0) {
      if (pending + i - start > maxLineBytes) throw tooLong();
      const length = pending + i - start;
      const text = take(chunk.subarray(start, i));
      n++;
      yield { line: n, text, offset, terminated: true };
      offset += length + 1;
      start = i + 1;
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      pending += rest.length;
      if (pending > maxLineBytes) throw tooLong();
      pieces.push(rest);
    }
  }
  if (pending > 0) {
    const text = take(new Uint8Array(0));
    n++;
    yield { line: n, text, offset, terminated: false };
  }
}

/**
 * Parses JSON Lines, skipping blank lines. A malformed line throws an `InputError`
 * naming the input, the line and a snippet.
 */
export async function* readJsonl(
  stream: ReadableStream<Uint8Array>,
  file = "<stdin>",
): AsyncGenerator<{ line: number; value: unknown }> {
  for await (const { line, text } of readLines(stream, file)) {
    if (text.trim() === "") continue;
    yield { line, value: parseJsonLine(text, file, line) };
  }
}

/** Parses one line of JSON or throws a located `InputError`. */
export function parseJsonLine(text: string, file: string, line: number): unknown {
  const parsed = parseJsonLocated(text);
  if (parsed.ok) return parsed.value;
  const snippet = text.length > 60 ? text.slice(0, 57) + "..." : text;
  throw new InputError({
    file,
    line,
    message: `invalid JSON at column ${parsed.error.column}: ${parsed.error.message} in ${
      JSON.stringify(snippet)
    }`,
  });
}

/** Opens each file (or `-` for stdin) as a byte stream, in order. */
export async function* inputs(
  files: string[],
  stdin: ReadableStream<Uint8Array>,
): AsyncGenerator<{ name: string; stream: ReadableStream<Uint8Array> }> {
  if (files.length === 0) files = ["-"];
  for (const f of files) {
    if (f === "-") {
      yield { name: "<stdin>", stream: stdin };
      continue;
    }
    let file: Deno.FsFile;
    try {
      file = await Deno.open(f);
    } catch (e) {
      throw new InputError({ file: f, message: `cannot open: ${(e as Error).message}` });
    }
    yield { name: f, stream: file.readable };
  }
}

/**
 * JSON Lines as a stream with located errors.
 *
 * @module
 */
import { InputError } from "./problem.ts";
import { parseJsonLocated } from "./json_error.ts";

/** Splits a byte stream into lines (without terminators), numbered from 1. */
export async function* readLines(
  stream: ReadableStream<Uint8Array>,
): AsyncGenerator<{ line: number; text: string }> {
  const decoder = new TextDecoder();
  let buf = "";
  let n = 0;
  for await (const chunk of stream) {
    buf += decoder.decode(chunk, { stream: true });
    let i: number;
    while ((i = buf.indexOf("\n")) >= 0) {
      const text = buf.slice(0, i).replace(/\r$/, "");
      buf = buf.slice(i + 1);
      yield { line: ++n, text };
    }
  }
  buf += decoder.decode();
  if (buf.length > 0) yield { line: ++n, text: buf.replace(/\r$/, "") };
}

/**
 * Parses JSON Lines, skipping blank lines. A malformed line throws an `InputError`
 * naming the input, the line and a snippet.
 */
export async function* readJsonl(
  stream: ReadableStream<Uint8Array>,
  file = "<stdin>",
): AsyncGenerator<{ line: number; value: unknown }> {
  for await (const { line, text } of readLines(stream)) {
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

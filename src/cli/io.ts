/**
 * The streams a command works with, injected so commands run in-process in tests
 * and compose in pipes.
 *
 * @module
 */

export interface Io {
  /** Standard input as bytes. */
  stdin: ReadableStream<Uint8Array>;
  /** Whether stdin is a terminal (then it is not read for records). */
  stdinIsTerminal: boolean;
  /** Data: one JSON record per line. */
  out(line: string): void;
  /** Whether stdout is a terminal (a person reading, not a pipe); absent means not. */
  outIsTerminal?: boolean;
  /** Logs, warnings and progress. */
  err(line: string): void;
  /** Whether stderr is a terminal (progress bar). */
  errIsTerminal: boolean;
  /** Writes to stderr without a line break (a progress bar redrawn in place). */
  errPartial?(text: string): void;
  /** Environment variables. */
  env(name: string): string | undefined;
  /** Flushes `out` (for crash-safe JSONL). */
  flush(): Promise<void>;
  /**
   * Calls `handler` on an interrupt (Ctrl-C, SIGINT) instead of the default exit, until
   * the returned function is called. Absent where there is no such signal (tests).
   */
  onInterrupt?(handler: () => void): () => void;
}

import type { FlagTable } from "./args.ts";

export type CommandMain = (args: string[], io: Io) => Promise<number>;

export interface Command {
  /** One-line summary for `callbench --help`. */
  summary: string;
  /** Full help text for `callbench <command> --help`: its "Flags" rows come from `flags`. */
  help: string;
  /** Every flag `main` accepts (the table it parses with; see `src/cli/args.ts`). */
  flags: FlagTable;
  main: CommandMain;
}

const encoder = new TextEncoder();

/** The process's own streams. Writes to stdout are synchronous, so lines never tear. */
export function processIo(): Io {
  return {
    stdin: Deno.stdin.readable,
    stdinIsTerminal: Deno.stdin.isTerminal(),
    out: (line) => writeAll(Deno.stdout, encoder.encode(line + "\n")),
    outIsTerminal: Deno.stdout.isTerminal(),
    err: (line) => writeAll(Deno.stderr, encoder.encode(line + "\n")),
    errIsTerminal: Deno.stderr.isTerminal(),
    errPartial: (text) => writeAll(Deno.stderr, encoder.encode(text)),
    env: (name) => {
      try {
        return Deno.env.get(name);
      } catch {
        return undefined; // no --allow-env for this name
      }
    },
    flush: () => Promise.resolve(),
    onInterrupt: (handler) => {
      Deno.addSignalListener("SIGINT", handler);
      return () => Deno.removeSignalListener("SIGINT", handler);
    },
  };
}

function writeAll(w: { writeSync(p: Uint8Array): number }, bytes: Uint8Array): void {
  let off = 0;
  while (off < bytes.length) off += w.writeSync(bytes.subarray(off));
}

/** An Io over strings, for tests: `stdout`/`stderr` collect lines. */
export function memoryIo(stdin = "", env: Record<string, string> = {}): Io & {
  stdout: string[];
  stderr: string[];
} {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return {
    stdin: new Blob([stdin]).stream(),
    stdinIsTerminal: false,
    out: (l) => stdout.push(l),
    err: (l) => stderr.push(l),
    errIsTerminal: false,
    env: (n) => env[n],
    flush: () => Promise.resolve(),
    stdout,
    stderr,
  };
}

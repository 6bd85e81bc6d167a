import assert from "node:assert/strict";
import { MAX_LINE_BYTES, readJsonl, readLines } from "./jsonl.ts";

/** A stream of `bytes` in chunks of 64 KiB, as a pipe or file delivers them. */
function chunked(bytes: Uint8Array, size = 64 * 1024): ReadableStream<Uint8Array> {
  let off = 0;
  return new ReadableStream({
    pull(c) {
      if (off >= bytes.length) return c.close();
      c.enqueue(bytes.subarray(off, off + size));
      off += size;
    },
  });
}

const inputs = new Map<string, Uint8Array>();

/** ms to read `lines` lines of `bytes` bytes each (one stream, 64 KiB chunks). */
async function timeLines(lines: number, bytes: number): Promise<number> {
  const id = `${lines}x${bytes}`;
  let input = inputs.get(id);
  if (!input) {
    input = new Uint8Array(lines * (bytes + 1)).fill(0x61);
    for (let i = 1; i <= lines; i++) input[i * (bytes + 1) - 1] = 10;
    inputs.set(id, input);
  }
  const t0 = performance.now();
  let got = 0;
  for await (const { text } of readLines(chunked(input))) got += text.length;
  const ms = performance.now() - t0;
  assert.equal(got, lines * bytes);
  return ms;
}

Deno.test("readLines() is linear in line length: a 50 MB line costs what ten 5 MB lines cost", async () => {
  // The same 50 MB either way, so memory effects are alike: a linear reader costs about
  // the same; quadratic splitting (the old reader) costs ~10x more for the long line.
  await timeLines(1, 50_000_000); // warm up
  // The best of a few runs each, so a garbage collection or a busy machine does not decide.
  const best = async (lines: number, bytes: number) => {
    let ms = Infinity;
    for (let i = 0; i < 3; i++) ms = Math.min(ms, await timeLines(lines, bytes));
    return Math.max(ms, 1);
  };
  const short = await best(10, 5_000_000);
  const long = await best(1, 50_000_000);
  assert.ok(
    long / short < 5,
    `10 lines of 5 MB: ${short.toFixed(0)} ms, 1 line of 50 MB: ${long.toFixed(0)} ms`,
  );
});

Deno.test("readLines() keeps lines, numbers, CRLF and multi-byte characters across chunks", async () => {
  const text = "é€x\r\n\n" + "ü".repeat(100) + "\nlast";
  const lines = [];
  for await (const l of readLines(chunked(new TextEncoder().encode(text), 3))) lines.push(l);
  assert.deepEqual(lines, [
    // Offsets in bytes: é and ü are 2, € 3; the CR is part of line 1.
    { line: 1, text: "é€x", offset: 0, terminated: true },
    { line: 2, text: "", offset: 8, terminated: true },
    { line: 3, text: "ü".repeat(100), offset: 9, terminated: true },
    { line: 4, text: "last", offset: 210, terminated: false },
  ]);
});

Deno.test("a line over the cap is a located error, and the cap is 64 MiB", async () => {
  assert.equal(MAX_LINE_BYTES, 64 * 1024 * 1024);
  const input = new TextEncoder().encode(`{"a":1}\n${"x".repeat(5000)}\n`);
  await assert.rejects(
    async () => {
      for await (const _ of readLines(chunked(input, 100), "big.jsonl", 1000)) { /* read */ }
    },
    (e: Error) =>
      e.name === "InputError" && /^big\.jsonl:2: line longer than 1000 bytes/.test(e.message),
  );
  // Without a line break at all, too.
  await assert.rejects(async () => {
    for await (const _ of readLines(chunked(new Uint8Array(3000).fill(0x61)), "f", 1000)) {
      /* read */
    }
  }, /f:1: line longer/);
});

Deno.test("readJsonl() names the file and line of a malformed record", async () => {
  await assert.rejects(async () => {
    for await (const _ of readJsonl(chunked(new TextEncoder().encode("{}\n{x\n")), "r.jsonl")) {
      /* read */
    }
  }, /r\.jsonl:2: invalid JSON/);
});

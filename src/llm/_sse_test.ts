import assert from "node:assert/strict";
import { sseData } from "./_sse.ts";

/** A byte stream delivering `parts` as separate chunks. */
function streamOf(...parts: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return ReadableStream.from(parts.map((p) => encoder.encode(p)));
}

async function collect(body: ReadableStream<Uint8Array>): Promise<string[]> {
  const out: string[] = [];
  for await (const data of sseData(body)) out.push(data);
  return out;
}

Deno.test("sseData() yields each event's data, across chunk boundaries", async () => {
  const events = await collect(streamOf('data: {"a":', "1}\n\ndata: [DO", "NE]\n\n"));
  assert.deepEqual(events, ['{"a":1}', "[DONE]"]);
});

Deno.test("sseData() joins multi-line data and skips comments and other fields", async () => {
  const events = await collect(
    streamOf(": keep-alive\n\nevent: x\ndata: one\ndata:two\nid: 3\n\n"),
  );
  assert.deepEqual(events, ["one\ntwo"]);
});

Deno.test("sseData() treats CRLF split between chunks as one line end", async () => {
  const events = await collect(streamOf("data: a\r", "\n\r\n", "data: b\r\n\r\n"));
  assert.deepEqual(events, ["a", "b"]);
});

Deno.test("sseData() yields a last event the stream did not close", async () => {
  assert.deepEqual(await collect(streamOf("data: a\n\ndata: tail")), ["a", "tail"]);
});

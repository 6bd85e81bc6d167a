import assert from "node:assert/strict";
import { MAX_FRAME_BYTES, readFrame, writeFrame } from "./framing.ts";
import { rtvi } from "./messages.ts";
import { encodeMessageFrame } from "./protobuf.ts";

Deno.test("writeFrame and readFrame round-trip in both framings", () => {
  const msg = rtvi("send-text", { content: "hi ☎" }, "t1");
  for (const framing of ["json", "protobuf"] as const) {
    const frame = writeFrame(msg, framing);
    assert.equal(typeof frame === "string", framing === "json");
    assert.deepEqual(readFrame(frame), { ok: true, framing, text: JSON.stringify(msg) });
  }
});

Deno.test("readFrame accepts ArrayBuffers and views of a larger buffer", () => {
  const bytes = encodeMessageFrame('{"a":1}');
  const padded = new Uint8Array(bytes.length + 4);
  padded.set(bytes, 2);
  assert.deepEqual(readFrame(padded.subarray(2, 2 + bytes.length)), {
    ok: true,
    framing: "protobuf",
    text: '{"a":1}',
  });
  assert.deepEqual(readFrame(bytes.slice().buffer), {
    ok: true,
    framing: "protobuf",
    text: '{"a":1}',
  });
});

Deno.test("readFrame refuses frames over 1 MiB in either framing", () => {
  const big = "x".repeat(MAX_FRAME_BYTES + 1);
  const text = readFrame(big);
  assert.equal(text.ok, false);
  assert.match(
    (text as { error: string }).error,
    /frame too large: 1048577 bytes \(limit 1048576\)/,
  );
  const binary = readFrame(new Uint8Array(MAX_FRAME_BYTES + 1));
  assert.equal(binary.ok, false);
  assert.equal(binary.framing, "protobuf");
});

Deno.test("readFrame counts UTF-8 bytes, not UTF-16 units, against the limit", () => {
  // 400,000 three-byte characters: 1.2 MB on the wire though only 400,000 units long.
  const frame = readFrame("☎".repeat(400_000));
  assert.equal(frame.ok, false);
  assert.match((frame as { error: string }).error, /1200000 bytes/);
  assert.equal(readFrame("☎".repeat(300_000)).ok, true);
});

Deno.test("readFrame skips audio frames and refuses text frames with a hint", () => {
  const audio = Uint8Array.of(0x12, 0x02, 0x08, 0x01); // audio{id: 1}
  assert.deepEqual(readFrame(audio), { ok: true, framing: "protobuf", skipped: "audio" });
  const text = Uint8Array.of(0x0a, 0x02, 0x08, 0x01); // text{id: 1}
  const r = readFrame(text);
  assert.equal(r.ok, false);
  assert.match((r as { error: string }).error, /unsupported protobuf frame kind "text"/);
});

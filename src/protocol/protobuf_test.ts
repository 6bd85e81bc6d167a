import assert from "node:assert/strict";
import { ProtobufFrameSerializer } from "@pipecat-ai/websocket-transport";
import {
  decodeFrame,
  encodeMessageFrame,
  encodeVarint,
  ProtobufError,
  readVarint,
} from "./protobuf.ts";

const assertThrowsProtobuf = (fn: () => unknown, pattern: RegExp) =>
  assert.throws(fn, (e: unknown) => e instanceof ProtobufError && pattern.test(e.message));

Deno.test("varints round-trip across byte boundaries", () => {
  for (const n of [0, 1, 127, 128, 300, 16_383, 16_384, 2 ** 31, 2 ** 53 - 1]) {
    const bytes = encodeVarint(n);
    assert.deepEqual(readVarint(bytes, 0), { value: n, next: bytes.length });
  }
  assert.deepEqual([...encodeVarint(300)], [0xac, 0x02]);
});

Deno.test("readVarint refuses truncated and over-long varints", () => {
  assertThrowsProtobuf(() => readVarint(Uint8Array.of(0x80, 0x80), 0), /truncated/);
  assertThrowsProtobuf(() => readVarint(new Uint8Array(11).fill(0xff), 0), /10 bytes|too large/);
});

Deno.test("a message frame round-trips its JSON, including non-ASCII text", () => {
  const json = JSON.stringify({
    label: "rtvi-ai",
    type: "send-text",
    data: { content: "héllo ☎" },
  });
  assert.deepEqual(decodeFrame(encodeMessageFrame(json)), { kind: "message", data: json });
});

Deno.test("our message frames are byte-identical to the official transport's serializer", () => {
  const msg = {
    label: "rtvi-ai",
    type: "client-ready",
    id: "abc12345",
    data: { version: "2.1.0" },
  };
  const theirs = new ProtobufFrameSerializer().serializeMessage(msg as never);
  assert.deepEqual([...encodeMessageFrame(JSON.stringify(msg))], [...theirs]);
  assert.deepEqual(decodeFrame(theirs), { kind: "message", data: JSON.stringify(msg) });
});

Deno.test("an audio frame from the official transport is recognised as audio", () => {
  const pcm = new Int16Array([1, -1, 300, -300]).buffer;
  const frame = new ProtobufFrameSerializer().serializeAudio(pcm, 16000, 1);
  assert.deepEqual(decodeFrame(frame), { kind: "audio" });
});

Deno.test("decodeFrame skips unknown fields and refuses frames with no known kind", () => {
  const json = '{"label":"rtvi-ai","type":"x"}';
  const unknownVarint = Uint8Array.of((9 << 3) | 0, 0x96, 0x01);
  const known = encodeMessageFrame(json);
  const both = new Uint8Array([...unknownVarint, ...known]);
  assert.deepEqual(decodeFrame(both), { kind: "message", data: json });
  assertThrowsProtobuf(() => decodeFrame(unknownVarint), /no known kind/);
  assertThrowsProtobuf(() => decodeFrame(new Uint8Array()), /no known kind/);
});

Deno.test("decodeFrame refuses malformed frames with a reason", () => {
  assertThrowsProtobuf(() => decodeFrame(Uint8Array.of(0x22, 0x05, 0x0a)), /truncated/);
  assertThrowsProtobuf(() => decodeFrame(Uint8Array.of(0x20, 0x01)), /wire type 0/);
  assertThrowsProtobuf(() => decodeFrame(Uint8Array.of(0x0f)), /wire type 7/);
  assertThrowsProtobuf(() => decodeFrame(Uint8Array.of(0x00)), /field number 0/);
  const badUtf8 = Uint8Array.of(0x22, 0x03, 0x0a, 0x01, 0xff);
  assertThrowsProtobuf(() => decodeFrame(badUtf8), /UTF-8/);
});

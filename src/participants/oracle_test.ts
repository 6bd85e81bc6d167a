import assert from "node:assert/strict";
import { OracleAgent } from "./oracle.ts";
import { recordingLine } from "../../tests/fake_call_line.ts";
import { unhandledRejections } from "../testing/unhandled_rejections.ts";

Deno.test("OracleAgent fails its line when its play rejects, with no unhandled rejection", async () => {
  const line = recordingLine("agent", () => {
    throw new TypeError("no such world");
  });
  const seen = await unhandledRejections(async () => {
    const oracle = new OracleAgent([{ name: "get_order", arguments: {}, side: "agent" }] as never);
    await oracle.start(line, {} as never);
    oracle.onEvent({ type: "speech", at: 0, text: "hello" });
  });
  assert.deepEqual(seen, []);
  assert.equal(line.record.failures.length, 1);
  assert.equal(line.record.failures[0]!.kind, "protocol_error");
  assert.match(line.record.failures[0]!.message, /oracle agent failed: TypeError: no such world/);
});

Deno.test("OracleAgent takes a kick for no request: it greets, runs nothing, and answers the caller's first real turn", async () => {
  const line = recordingLine("agent");
  const oracle = new OracleAgent([{ name: "add", arguments: { n: 2 }, side: "agent" }] as never);
  await oracle.start(line, {} as never);
  const settle = async () => {
    for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
  };
  oracle.onEvent({ type: "call_start", at: 0, you_speak_first: false });
  oracle.onEvent({ type: "speech", at: 1, text: "Hello", kick: true });
  await settle();
  assert.equal(line.record.toolCalls.length, 0, "no tool before the caller spoke");
  assert.deepEqual(line.record.said.map((s) => s.text), [
    "Thank you for calling. How can I help you today?",
  ]);
  oracle.onEvent({ type: "speech", at: 2, text: "I need to add two, please." });
  await settle();
  assert.deepEqual(line.record.toolCalls.map((c) => c.name), ["add"]);
  assert.match(line.record.said.at(-1)!.text, /That is all done/);
});

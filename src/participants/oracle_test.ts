import assert from "node:assert/strict";
import { OracleAgent } from "./oracle.ts";
import { recordingLine } from "../../tests/fake_call_line.ts";

Deno.test("OracleAgent fails its line when its play rejects, with no unhandled rejection", async () => {
  const seen: unknown[] = [];
  const onRejection = (e: PromiseRejectionEvent) => {
    e.preventDefault();
    seen.push(e.reason);
  };
  globalThis.addEventListener("unhandledrejection", onRejection);
  try {
    const line = recordingLine("agent", () => {
      throw new TypeError("no such world");
    });
    const oracle = new OracleAgent([{ name: "get_order", arguments: {}, side: "agent" }] as never);
    await oracle.start(line, {} as never);
    oracle.onEvent({ type: "speech", at: 0, text: "hello" });
    for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
    assert.deepEqual(seen, []);
    assert.equal(line.record.failures.length, 1);
    assert.equal(line.record.failures[0]!.kind, "protocol_error");
    assert.match(line.record.failures[0]!.message, /oracle agent failed: TypeError: no such world/);
  } finally {
    globalThis.removeEventListener("unhandledrejection", onRejection);
  }
});

/**
 * Every frame of a real call, in both directions, is one of the messages of the wire
 * catalog (src/protocol/wire_schemas.ts, written to schemas/wire/ by `deno task
 * schema`) and parses with its schema: an eva call of the served oracle, recorded by
 * a proxy between `eval`'s RTVI client and `serve`, in JSON text frames and in pipecat
 * protobuf frames (the JSON inside each message frame is checked).
 */
import assert from "node:assert/strict";
import { checkWireMessage, WIRE_MESSAGES } from "../src/protocol/wire_schemas.ts";
import { type RecordedFrame, recordOracleCall } from "./_wire_recorder.ts";

const SCENARIO = "eva_airline__1_4_1";

/** Runs one eva call of the served oracle through the recorder; returns its frames. */
async function recordedCall(framing: "json" | "protobuf"): Promise<RecordedFrame[]> {
  const { record, frames } = await recordOracleCall(SCENARIO, { framing, label: "wire" });
  assert.equal(record.status, "completed", JSON.stringify(record.error));
  assert.equal(record.final.db_sha256, record.expect.db_sha256, "the oracle reached gold");
  assert.equal(record.stop_reason, "agent_end");
  return frames;
}

for (const framing of ["json", "protobuf"] as const) {
  Deno.test(`every frame of a recorded eva call validates (${framing} framing)`, async () => {
    const frames = await recordedCall(framing);
    assert.ok(frames.length > 20, `only ${frames.length} frames`);
    const seen = new Set<string>();
    for (const [i, f] of frames.entries()) {
      assert.equal(f.framing, framing, `frame ${i} came in the other framing`);
      if (framing === "protobuf") assert.equal(f.kind, "message", `frame ${i} is ${f.kind}`);
      const check = checkWireMessage(f.from, f.message);
      assert.ok(check.ok, `frame ${i} (${f.from}): ${!check.ok && check.error}`);
      seen.add(`${f.from} ${check.entry.type}${check.entry.t ? ` ${check.entry.t}` : ""}`);
    }
    // The call used the messages a harness-owned eva call is made of.
    for (
      const want of [
        "client client-ready",
        "client client-message update_system_prompt",
        "client client-message call_event",
        "client send-text",
        "client llm-function-call-result",
        "server bot-ready",
        "server server-response update_system_prompt",
        "server bot-started-speaking",
        "server bot-output",
        "server bot-tts-text",
        "server bot-stopped-speaking",
        "server llm-function-call-in-progress",
      ]
    ) assert.ok(seen.has(want), `no ${want} in the call: ${[...seen].join(", ")}`);
  });
}

Deno.test("the wire catalog refuses what does not match: a wrong field, an unknown type", () => {
  const ok = checkWireMessage("client", {
    label: "rtvi-ai",
    type: "client-message",
    id: "u1",
    data: { t: "update_system_prompt", d: { prompt: "Hi", tools: "{}" } },
  });
  assert.ok(ok.ok);
  // tools as an object, not a JSON string: the quirk every integrator trips over.
  const tools = checkWireMessage("client", {
    label: "rtvi-ai",
    type: "client-message",
    data: { t: "update_system_prompt", d: { prompt: "Hi", tools: {} } },
  });
  assert.ok(!tools.ok && tools.error.includes("tools"), JSON.stringify(tools));
  const unknown = checkWireMessage("server", { label: "rtvi-ai", type: "bot-dances" });
  assert.ok(!unknown.ok && unknown.error.includes("catalog"));
  // The same type in the other direction is another message.
  assert.ok(!checkWireMessage("server", { label: "rtvi-ai", type: "send-text" }).ok);
  assert.ok(WIRE_MESSAGES.length >= 40);
});

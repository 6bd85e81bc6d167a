import assert from "node:assert/strict";
import { SimClock } from "../clock/clock.ts";
import { MAX_FRAME_BYTES } from "../protocol/framing.ts";
import { rtvi } from "../protocol/messages.ts";
import { EchoParticipant } from "./_echo_participant.ts";
import { FakeSocket, toyDomains } from "./_fake_socket.ts";
import { fuzzFrames } from "./_fuzz_frames.ts";
import { Session } from "./session.ts";

Deno.test("10,000 random and malformed frames: every one handled, the session still answers", async () => {
  const socket = new FakeSocket();
  socket.countOnly = true;
  const clock = new SimClock();
  const session = new Session(socket, {
    factory: () => new EchoParticipant(),
    participant: { name: "echo", side: "agent" },
    domains: toyDomains,
    clock,
    toolTimeoutMs: 1_000,
    // Every refused frame is answered here; the bound on refusals has its own tests.
    limits: { refusalBurst: Infinity },
  });
  const frames = fuzzFrames(20_240_917, 10_000);
  const oversized = "x".repeat(MAX_FRAME_BYTES + 1);
  const heapBefore = Deno.memoryUsage().heapUsed;
  for (const [i, frame] of frames.entries()) {
    session.receive(frame.data);
    if (i % 2_000 === 0) session.receive(oversized);
    if (i % 500 === 0) {
      await session.idle();
      await clock.advance(1_000); // let fuzzed tool calls time out
    }
  }
  await session.idle();
  await clock.advance(1_000);
  const heapGrowthMb = (Deno.memoryUsage().heapUsed - heapBefore) / 2 ** 20;

  // Every certainly-malformed frame got an answer (an error or an error-response).
  const malformed = frames.filter((f) => ["bytes", "broken-json"].includes(f.kind)).length;
  assert.ok(socket.count >= malformed, `${socket.count} replies for ${malformed} malformed frames`);
  assert.equal(session.pendingToolCalls, 0);
  assert.ok(heapGrowthMb < 64, `heap grew ${heapGrowthMb.toFixed(1)} MB`);

  // The session lives on: a fresh handshake and a reply, in JSON.
  socket.countOnly = false;
  session.receive(JSON.stringify(rtvi("client-ready", { version: "2.1.0" }, "after")));
  await session.idle();
  const ready = socket.take().find((m) => m.type === "bot-ready");
  assert.equal(ready?.id, "after");
  session.receive(JSON.stringify(rtvi("client-message", { t: "reset", d: {} }, "reset")));
  await session.idle();
  const reply = socket.take().find((m) => m.id === "reset");
  assert.deepEqual(reply?.data, { t: "reset", d: true });
});

Deno.test("the fuzz frames are the same for the same seed", () => {
  const a = fuzzFrames(7, 50).map((f) => f.kind + String(f.data));
  const b = fuzzFrames(7, 50).map((f) => f.kind + String(f.data));
  assert.deepEqual(a, b);
});

import assert from "node:assert/strict";
import { checkFlowExpect } from "./expect.ts";
import type { FlowTrace } from "./trace.ts";

const trace: FlowTrace = {
  start: "menu",
  nodes: [{ name: "menu", at_ms: 0 }, { name: "card", at_ms: 4000 }, { name: "paid", at_ms: 9000 }],
  keys: [{ keys: "2", at_ms: 3900, node: "menu" }, { keys: "4242#", at_ms: 8000, node: "card" }],
  end: { node: "livekit/hangup", reason: "hangup", at_ms: 12000 },
};

Deno.test("checkFlowExpect passes when every given field holds", () => {
  assert.deepEqual(
    checkFlowExpect(trace, {
      path: ["menu", "card", "paid"],
      keys: "24242#",
      end: "livekit/hangup",
    }),
    { passed: true, failures: [] },
  );
  assert.deepEqual(checkFlowExpect(trace, {}), { passed: true, failures: [] });
});

Deno.test("checkFlowExpect compares the whole path, not a prefix", () => {
  const r = checkFlowExpect(trace, { path: ["menu", "card"] });
  assert.equal(r.passed, false);
  assert.deepEqual(r.failures, [
    'path: the call went on after "card" to "paid"; expected [menu, card], got [menu, card, paid]',
  ]);
});

Deno.test("checkFlowExpect names the node where the path left the expected one", () => {
  assert.deepEqual(checkFlowExpect(trace, { path: ["menu", "bank", "paid"] }).failures, [
    'path: left the expected path at step 2 after "menu": entered "card", expected "bank"; ' +
    "expected [menu, bank, paid], got [menu, card, paid]",
  ]);
  assert.deepEqual(checkFlowExpect(trace, { path: ["menu", "card", "paid", "bye"] }).failures, [
    'path: the call stopped at step 4 after "paid", before "bye"; ' +
    "expected [menu, card, paid, bye], got [menu, card, paid]",
  ]);
});

Deno.test("checkFlowExpect names each field that fails", () => {
  const r = checkFlowExpect(trace, { keys: "2", end: "paid", message: "left" });
  assert.deepEqual(r.failures, [
    'keys: expected "2", got "24242#"',
    'end: expected "paid", got "livekit/hangup" (hangup)',
    "message: expected left, got none (the box was never reached)",
  ]);
});

Deno.test("checkFlowExpect reads a sent or kept voicemail as a message left", () => {
  const box = { beep: true, silence_wait_s: 3, menu: true, takes: [] };
  for (
    const [outcome, message] of [["sent", "left"], ["kept", "left"], [
      "no_message",
      "none",
    ]] as const
  ) {
    const t: FlowTrace = { ...trace, voicemail: { ...box, outcome } };
    assert.equal(checkFlowExpect(t, { message }).passed, true, outcome);
    assert.equal(
      checkFlowExpect(t, { message: message === "left" ? "none" : "left" }).passed,
      false,
    );
  }
});

/**
 * callbench calls callbench over SIP: `eval --audio --agent sip:noop@127.0.0.1:P` (the
 * CLI with its task's permissions) dials `serve --sip`'s hosted noop agent. The flow
 * callee of the trial speaks its menu, which the served call hears; the noop answers
 * with its goodbye, which the trial records as the agent's turn, and its
 * `end_conversation` is a BYE, so the trial ends on the agent's hangup.
 */
import assert from "node:assert/strict";
import { voicedSignal } from "../src/audio/_test_signals.ts";
import { cli } from "./_cli.ts";
import { FixedTts, REFILL, startSipServe } from "./_sip_serve.ts";

const FLOW = "scenarios/flows/animal_clinic.yaml";

Deno.test("eval --audio --agent sip: dials serve --sip: the served noop's goodbye is the agent's turn and its BYE ends the trial", async () => {
  // Each utterance is 1.2 s of a voiced signal (what a VAD takes for speech).
  const tts = new FixedTts("voiced", () => voicedSignal(8000, 1200, 5));
  const { sip, ended } = await startSipServe(tts, "noop");
  try {
    const r = await cli([
      "eval",
      "--audio",
      "--agent",
      `sip:noop@127.0.0.1:${sip.port}`,
      "--scenarios",
      REFILL,
      FLOW,
    ]);
    const record = JSON.parse(r.stdout.trim().split("\n")[0] ?? "null");
    assert.ok(record, r.stderr);
    assert.equal(record.status, "completed", JSON.stringify(record.error) + r.stderr);
    assert.equal(record.stop_reason, "agent_end");
    assert.equal(record.participants?.agent?.settings?.codec, "PCMU");
    assert.deepEqual(tts.asked, ["Hello, thanks for calling. Goodbye."]);
    // The trial heard the served agent's goodbye, about its 1.2 s.
    const heard = record.audio.sides.agent.sent_s as number;
    assert.ok(heard >= 1 && heard <= 1.4, JSON.stringify(record.audio.sides));
    for (let i = 0; i < 100 && ended.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(ended.length, 1);
    assert.equal(ended[0]!.ended_by, "callbench", "the served agent's BYE");
    assert.equal(ended[0]!.participant.name, "noop");
    assert.ok(ended[0]!.packets_received > 50, "the trial's caller audio reached the served call");
  } finally {
    await sip.close();
  }
});

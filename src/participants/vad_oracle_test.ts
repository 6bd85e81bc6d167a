import assert from "node:assert/strict";
import { counterEnv, counterScenario, counterSetup } from "../testing/counter_domain.ts";
import { toneTts } from "../testing/tone_tts.ts";
import { ScriptedUser } from "./scripted_user.ts";
import { type CallOutcome, DEFAULT_LIMITS, runCall } from "../bridge/bridge.ts";
import type { CallEvent, CallLine, Participant } from "../bridge/call.ts";
import { SimClock } from "../clock/clock.ts";
import { Line } from "../audio/line/line.ts";
import { parseLine } from "../audio/line/spec.ts";
import { HANGOVER_MS, REPLY_MS, VadOracleAgent } from "./vad_oracle.ts";
import { participantFactory } from "./registry.ts";
import { InputError } from "../problem/problem.ts";

/** One call of the VAD oracle against `user` (the scripted caller) on `line`. */
async function call(line: string, user?: Participant): Promise<CallOutcome> {
  const s = counterScenario();
  return await runCall({
    env: counterEnv(),
    agent: new VadOracleAgent(s.expect.reference_actions!),
    user: user ?? new ScriptedUser({ opening: s.user.opening, knownInfo: s.user.known_info }),
    agentSetup: counterSetup("agent"),
    userSetup: counterSetup("user"),
    clock: new SimClock(),
    limits: DEFAULT_LIMITS,
    firstSpeaker: "agent",
    timedSpeech: true,
    speech: { tts: toneTts, line: { user: new Line(parseLine(line), 7) } },
  });
}

/** Each agent turn's start less the end of the caller's turn before it. */
function answers(out: CallOutcome): number[] {
  const gaps: number[] = [];
  out.turns.forEach((t, i) => {
    const before = out.turns[i - 1];
    if (t.speaker === "agent" && before?.speaker === "user") gaps.push(t.start_ms - before.end_ms);
  });
  return gaps;
}

for (const line of ["clean", "phone", "white@30"]) {
  Deno.test(`vad-oracle on ${line}: it answers the hangover plus the reply delay after the caller's words, and does the task`, async () => {
    const out = await call(line);
    assert.equal(out.stopReason, "agent_end");
    assert.deepEqual(out.toolCalls.map((c) => c.name), [
      "add",
      "add",
      "press_button",
      "end_conversation",
    ]);
    const gaps = answers(out);
    assert.ok(gaps.length >= 2, JSON.stringify(out.turns));
    // The tone is voiced to its last 20 ms frame, and nothing after it is (white@30 sits
    // near −56 dBFS; the phone band keeps a 300 Hz tone's level within a dB or two).
    for (const g of gaps) assert.equal(g, HANGOVER_MS + REPLY_MS, line);
  });
}

Deno.test("vad-oracle on white@10: the noise (near −36 dBFS) is voiced, so the caller's turn never ends and nothing is done", async () => {
  const out = await call("white@10");
  assert.equal(out.stopReason, "silence");
  assert.deepEqual(answers(out), []);
  assert.deepEqual(out.toolCalls, []);
  // The greeting, then the caller's opening; then 30 s of a line the agent hears as talk.
  assert.deepEqual(out.turns.map((t) => t.speaker), ["agent", "user"]);
  assert.equal(out.durationMs, out.turns[1]!.end_ms + DEFAULT_LIMITS.silenceMs);
});

/** A caller that says its opening in two parts, `gapMs` apart. */
class TwoPartCaller implements Participant {
  readonly info = { kind: "two-part" };
  #line?: CallLine;
  #spoke = false;
  constructor(readonly gapMs: number) {}
  start(line: CallLine): Promise<void> {
    this.#line = line;
    return Promise.resolve();
  }
  onEvent(e: CallEvent): void {
    if (e.type !== "speech" || this.#spoke) return;
    this.#spoke = true;
    const line = this.#line!;
    line.say("Please add");
    // Both parts are queued: the second begins gapMs after the first ends.
    line.clock.timer(200 + this.gapMs, () => line.say("five now"));
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

Deno.test("vad-oracle: a caller who goes on within the hangover and reply delay continues the turn", async () => {
  // 200 ms of "Please add", 600 ms of quiet (past the 300 ms hangover, inside the 500 ms
  // reply), then "five now": one answer, 800 ms after the second part.
  const out = await call("clean", new TwoPartCaller(600));
  const turns = out.turns.map((t) => [t.speaker, t.start_ms, t.end_ms]);
  assert.equal(out.turns[1]!.speaker, "user");
  assert.equal(out.turns[2]!.speaker, "user", JSON.stringify(turns));
  assert.equal(out.turns[3]!.speaker, "agent", JSON.stringify(turns));
  assert.equal(out.turns[3]!.start_ms - out.turns[2]!.end_ms, HANGOVER_MS + REPLY_MS);
  assert.equal(out.turns[2]!.start_ms - out.turns[1]!.end_ms, 600);
});

Deno.test("vad-oracle is refused in a text call: it hears the caller's audio", () => {
  const make = (audio: boolean) =>
    participantFactory({
      agent: "vad-oracle",
      user: "scripted",
      agentModel: {},
      userModel: {},
      ...(audio ? { audio } : {}),
    });
  assert.throws(
    () => make(false),
    (e) =>
      e instanceof InputError && e.problems[0]!.code === "audio_required" &&
      e.problems[0]!.option === "agent",
  );
  assert.ok(make(true));
});

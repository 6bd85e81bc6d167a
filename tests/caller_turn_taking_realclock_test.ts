/**
 * The caller takes turns as a person does (issue #35 point 1), against an agent that
 * follows a tool call with a second response at once ("Let me look into that for you."
 * then "All done..."): it holds back while the agent goes on, answers the end of the
 * agent's turn after the end-of-turn silence, and cuts nothing off. On the real clock
 * against a realtime server of our own (tests/_fake_realtime.ts), and on the simulated
 * clock against an in-process agent that does the same: the same turns.
 */
import assert from "node:assert/strict";
import type {
  CallEvent,
  CallLine,
  CallSetup,
  Participant,
  ParticipantInfo,
} from "../src/bridge/call.ts";
import type { Turn } from "../src/bridge/outcome.ts";
import { registerDomain } from "../src/domains/registry.ts";
import { counterDomain, counterScenario } from "../src/testing/counter_domain.ts";
import { DataRoot } from "../src/scenario/data_root.ts";
import { runTrial } from "../src/runner/run_trial.ts";
import { participantFactory } from "../src/participants/registry.ts";
import { trialKey } from "../src/runner/trial_key.ts";
import { closeSpeech, defaultSpeechOptions } from "../src/speech/speech_options.ts";
import { scoreTrial } from "../src/score/score_trial.ts";
import { DEFAULT_CALLER_TIMING } from "../src/speech/caller_timing.ts";
import { fakeRealtime } from "./_fake_realtime.ts";

registerDomain(counterDomain);
const root = new DataRoot(Deno.cwd());
const limits = { silenceMs: 30_000, maxTurns: 40 };

const GREETING = "Hello, this is the counter. How can I help?";
const FIRST = "Let me look into that for you.";
const SECOND = "All done. Is there anything else?";
const BYE = "Goodbye.";

/** What both agents do: greet; to the caller's request, the two responses; to its next turn, goodbye. */
const EXPECTED: [Turn["speaker"], string][] = [
  ["agent", GREETING],
  ["user", "Please add five."],
  ["agent", FIRST],
  ["agent", SECOND],
  // What it held back while the agent went on, then its answer to the rest (none is lost).
  ["user", "Okay."],
  ["user", "No, that's everything. Thank you, goodbye."],
  ["agent", BYE],
];

/** The in-process twin of the realtime script: its second response 21 ms after its first ends. */
class ChainingAgent implements Participant {
  readonly info: ParticipantInfo = { kind: "chaining" };
  #line?: CallLine;
  #heard = 0;
  #cancel = () => {};

  start(line: CallLine, _setup: CallSetup): Promise<void> {
    this.#line = line;
    return Promise.resolve();
  }

  onEvent(event: CallEvent): void {
    const line = this.#line!;
    if (event.type === "call_start") return void line.say(GREETING);
    // As the server's VAD: a caller turn ends with 300 ms of its silence.
    if (event.type === "speech_start") return this.#cancel();
    if (event.type !== "speech") return;
    this.#cancel = line.clock.timer(300, () => {
      const n = ++this.#heard;
      if (n === 1) {
        const said = line.say(FIRST);
        said?.whenOut(() => {
          void line.callTool("add", { n: 5 });
          line.clock.timer(21, () => line.say(SECOND));
        });
      } else if (n === 2) {
        line.say(BYE)?.whenOut(() => void line.callTool("end_conversation", {}));
      }
    });
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** The turns' speakers and words; and that no turn was cut and the caller waited its gaps. */
function checkTurns(turns: readonly Turn[], what: string, simulated: boolean): void {
  const shown = JSON.stringify(
    turns.map((t) => [t.speaker, t.text, Math.round(t.start_ms), Math.round(t.end_ms)]),
  );
  assert.deepEqual(turns.map((t) => [t.speaker, t.text]), EXPECTED, `${what}: ${shown}`);
  assert.ok(turns.every((t) => !t.interrupted), `${what}: nothing was cut off`);
  const t = DEFAULT_CALLER_TIMING;
  turns.forEach((u, i) => {
    if (u.speaker !== "user" || i === 0) return;
    const before = turns[i - 1]!;
    if (before.speaker === "user") return; // its own words, back to back
    const gap = u.start_ms - before.end_ms;
    // After the chained response the agent had shown it was not done: the longer silence.
    const least = i === 4 ? t.eot_ms : t.gap_ms - t.gap_spread_ms;
    // On the real clock the agent's end is where its audio was heard to end (±a frame).
    assert.ok(
      gap >= least - 25,
      `${what}: caller turn ${i} ${gap.toFixed(0)} ms after the agent: ${shown}`,
    );
    // On the real clock the caller's words are synthesized after its turn comes (flite
    // in a Worker: up to seconds under load), so only the simulated clock bounds the wait.
    if (!simulated) return;
    assert.ok(
      gap <= least + 2 * t.gap_spread_ms,
      `${what}: caller turn ${i} waited ${gap.toFixed(0)}: ${shown}`,
    );
  });
}

Deno.test("the caller holds back while a realtime agent chains a second response on the real clock: same turns as on the simulated clock, nothing cut, agent_voiced", async () => {
  const server = fakeRealtime({
    greeting: { say: GREETING },
    script: [
      { say: FIRST, after: [{ name: "add", arguments: { n: 5 } }], chain: { say: SECOND } },
      { say: BYE, after: [{ name: "end_conversation", arguments: {} }] },
    ],
    replyDelayMs: 300,
  });
  try {
    const s = counterScenario();
    const participants = participantFactory({
      agent: server.url,
      user: "scripted",
      agentModel: {},
      userModel: {},
      framing: "openai-realtime",
      audio: true,
    });
    const record = await runTrial({
      scenario: s,
      key: trialKey(s.name, 0, "c"),
      root,
      participants,
      limits,
      speech: defaultSpeechOptions(),
    });
    assert.equal(record.status, "completed", record.error?.message);
    checkTurns(record.turns, "real clock", false);
    const verdict = scoreTrial(record);
    assert.equal(verdict.signals.agent_voiced, true, JSON.stringify(record.audio?.agent_turns));
    assert.equal(verdict.signals.db_state_match, true);
  } finally {
    await server.stop();
    await closeSpeech();
  }
});

Deno.test("the caller holds back while an in-process agent chains a second response on the simulated clock: the same turns, the same gaps in simulated time", async () => {
  try {
    const s = counterScenario();
    const base = participantFactory({
      agent: "oracle",
      user: "scripted",
      agentModel: {},
      userModel: {},
      audio: true,
    });
    const record = await runTrial({
      scenario: s,
      key: trialKey(s.name, 0, "c"),
      root,
      participants: { ...base, agent: () => Promise.resolve(new ChainingAgent()) },
      limits,
      speech: defaultSpeechOptions(),
    });
    assert.equal(record.status, "completed", record.error?.message);
    assert.equal(record.clock, "simulated");
    checkTurns(record.turns, "simulated clock", true);
  } finally {
    await closeSpeech();
  }
});

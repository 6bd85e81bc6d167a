import assert from "node:assert/strict";
import { counterEnv, counterScenario, counterSetup } from "../testing/counter_domain.ts";
import { toneTts } from "../testing/tone_tts.ts";
import { OracleAgent } from "../participants/oracle.ts";
import { ScriptedUser } from "../participants/scripted_user.ts";
import type { Pcm16 } from "../audio/pcm.ts";
import type { TtsProvider } from "../speech/speech.ts";
import { DEFAULT_LIMITS, runCall } from "./bridge.ts";
import type { CallEvent, CallLine, CallSetup, Participant } from "./call.ts";
import { SimClock } from "../clock/clock.ts";
import { Line } from "../audio/line/line.ts";
import { parseLine } from "../audio/line/spec.ts";

/** The oracle, noting the caller's audio it was handed and its line. */
class ListeningOracle implements Participant {
  heard: { at: number; audio: Pcm16 }[] = [];
  line?: CallLine;
  constructor(readonly inner: OracleAgent) {}
  get info() {
    return this.inner.info;
  }
  close() {
    return this.inner.close();
  }
  start(line: CallLine, setup: CallSetup) {
    this.line = line;
    return this.inner.start(line, setup);
  }
  onEvent(e: CallEvent) {
    if (e.type === "speech_start" && e.audio) this.heard.push({ at: e.at, audio: e.audio });
    this.inner.onEvent(e);
  }
}

Deno.test("audio call on a line: the agent is handed the caller's audio after the line, and the line's noise for silences", async () => {
  const s = counterScenario();
  const env = counterEnv();
  const spec = parseLine("white@10+loss@0.1");
  const line = new Line(spec, 9);
  const agent = new ListeningOracle(new OracleAgent(s.expect.reference_actions!));
  const out = await runCall({
    env,
    agent,
    user: new ScriptedUser({ opening: s.user.opening }),
    agentSetup: counterSetup("agent"),
    userSetup: counterSetup("user"),
    clock: new SimClock(),
    limits: DEFAULT_LIMITS,
    firstSpeaker: "agent",
    timedSpeech: true,
    speech: { tts: toneTts, line: { user: line } },
  });
  assert.equal(out.stopReason, "agent_end");
  const caller = out.audio!.filter((a) => a.side === "user");
  assert.ok(caller.length >= 1);
  assert.equal(agent.heard.length, caller.length);
  const twin = new Line(spec, 9);
  caller.forEach((a, i) => {
    // What the agent was handed is the line's output for that utterance at its start.
    assert.deepEqual(agent.heard[i]!.audio, twin.apply(a.utterance.audio!, a.start_ms));
    assert.deepEqual(a.heard, agent.heard[i]!.audio);
    assert.notDeepEqual(a.heard!.samples, a.utterance.audio!.samples);
    assert.ok(a.snr_db !== undefined && a.snr_db !== null && Math.abs(a.snr_db - 10) < 0.5);
  });
  // The agent's end gets the caller's line noise for its silence fill.
  const silence = new Int16Array(320);
  agent.line!.audio!.fill!(silence, 0, 500, 16000);
  const expected = new Int16Array(320);
  twin.fill(expected, 0, 500, 16000);
  assert.deepEqual(silence, expected);
  assert.ok(silence.some((v) => v !== 0));
});

Deno.test("audio call in a language: TTS requests carry it", async () => {
  const s = counterScenario();
  const env = counterEnv();
  const languages: (string | undefined)[] = [];
  const tts2: TtsProvider = {
    ...toneTts,
    synthesize: (r) => {
      languages.push(r.language);
      return toneTts.synthesize(r);
    },
  };
  await runCall({
    env,
    agent: new OracleAgent(s.expect.reference_actions!),
    user: new ScriptedUser({ opening: s.user.opening }),
    agentSetup: counterSetup("agent"),
    userSetup: counterSetup("user"),
    clock: new SimClock(),
    limits: DEFAULT_LIMITS,
    firstSpeaker: "agent",
    timedSpeech: true,
    speech: { tts: tts2, language: "es" },
  });
  assert.ok(languages.length > 2);
  assert.ok(languages.every((l) => l === "es"));
});

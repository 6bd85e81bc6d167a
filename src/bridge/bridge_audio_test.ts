import assert from "node:assert/strict";
import { Environment } from "../env/environment.ts";
import { counterDomain, counterScenario } from "../testing/counter_domain.ts";
import { OracleAgent } from "../participants/oracle.ts";
import { ScriptedUser } from "../participants/scripted_user.ts";
import { pcm16 } from "../audio/pcm.ts";
import { ttsError, type TtsProvider, type TtsResult } from "../speech/speech.ts";
import { type CallSpec, DEFAULT_LIMITS, runCall } from "./bridge.ts";
import type { Participant } from "./call.ts";
import { toolSpecs } from "./tool_specs.ts";
import { SimClock } from "../clock/clock.ts";
import { dbHash } from "../canonical/hash.ts";

/** A TTS that answers after real wall time: 100 ms of 16 kHz audio per word. */
class SlowTts implements TtsProvider {
  info = { provider: "fake", sampleRate: 16000 };
  requests: { text: string; voice?: string }[] = [];
  constructor(readonly failOn?: string) {}
  async synthesize(r: { text: string; voice?: string }): Promise<TtsResult> {
    this.requests.push({ text: r.text, ...(r.voice ? { voice: r.voice } : {}) });
    await new Promise((ok) => setTimeout(ok, 5));
    if (this.failOn && r.text.includes(this.failOn)) return ttsError("fake", "synthesis failed");
    const words = r.text.split(/\s+/).length;
    return { ok: true, audio: pcm16(new Int16Array(1600 * words), 16000) };
  }
  close() {
    return Promise.resolve();
  }
}

function spec(agent: Participant, user: Participant, tts: TtsProvider, env: Environment): CallSpec {
  const setup = (side: "agent" | "user") => ({
    side,
    scenario: "t",
    domain: "test_counter",
    prompt: "",
    // Every tool of the domain is offered (a tool not offered is refused).
    tools: toolSpecs(env.domain, side, []),
    seed: "s",
  });
  return {
    env,
    agent,
    user,
    agentSetup: setup("agent"),
    userSetup: setup("user"),
    clock: new SimClock(),
    limits: DEFAULT_LIMITS,
    firstSpeaker: "agent",
    timedSpeech: true,
    speech: { tts, voices: { agent: "rms", user: "slt" } },
  };
}

const counterEnv = () =>
  new Environment(counterDomain, { db: { count: 0 }, user_db: { pressed: [] } }, {
    today: "2024-05-15",
    seed: "s",
  });

Deno.test("audio call: utterances are synthesized per side's voice and last as long as their audio", async () => {
  const s = counterScenario();
  const tts = new SlowTts();
  const e = counterEnv();
  const out = await runCall(spec(
    new OracleAgent(s.expect.reference_actions!),
    new ScriptedUser({ opening: s.user.opening }),
    tts,
    e,
  ));
  assert.equal(out.stopReason, "agent_end");
  assert.equal(e.hashes().db_sha256, dbHash({ count: 5 }));
  assert.ok(out.turns.length >= 2);
  // Every turn lasts 100 ms a word (the audio's duration, not the text's 60 ms a character),
  // although synthesis took real time: virtual time waited for it.
  for (const t of out.turns) {
    assert.equal(t.end_ms - t.start_ms, 100 * t.text.split(/\s+/).length, t.text);
  }
  // Turns never overlap on one side, and each side spoke with its voice.
  assert.ok(tts.requests.some((r) => r.voice === "rms"));
  assert.ok(tts.requests.some((r) => r.voice === "slt"));
  assert.equal(out.audio?.length, out.turns.length);
  assert.deepEqual(out.audio!.map((a) => a.side), out.turns.map((t) => t.speaker));
});

Deno.test("audio call: a TTS failure ends the trial with tts_error", async () => {
  const s = counterScenario();
  const opening = s.user.opening ?? "Hello there.";
  const out = await runCall(spec(
    new OracleAgent(s.expect.reference_actions!),
    new ScriptedUser({ opening }),
    new SlowTts(opening.split(/\s+/)[0]),
    counterEnv(),
  ));
  assert.equal(out.stopReason, "error");
  assert.equal(out.error?.kind, "tts_error");
  assert.equal(out.error?.side, "user");
});

/** Presses keys and beeps once the call starts, then hangs up a little later. */
class Presser implements Participant {
  info = { kind: "presser" };
  constructor(readonly act: (line: import("./call.ts").CallLine) => void) {}
  line?: import("./call.ts").CallLine;
  start(line: import("./call.ts").CallLine) {
    this.line = line;
    return Promise.resolve();
  }
  onEvent(e: import("./call.ts").CallEvent) {
    if (e.type === "call_start") {
      this.act(this.line!);
      this.line!.clock.timer(5000, () => this.line!.hangUp("done"));
    }
  }
  close() {
    return Promise.resolve();
  }
}

class Listener implements Participant {
  info = { kind: "listener" };
  heard: { type: string; at: number; keys?: string }[] = [];
  start() {
    return Promise.resolve();
  }
  onEvent(e: import("./call.ts").CallEvent) {
    if (e.type === "dtmf") this.heard.push({ type: "dtmf", at: e.at, keys: e.keys });
    if (e.type === "beep") this.heard.push({ type: "beep", at: e.at });
  }
  close() {
    return Promise.resolve();
  }
}

for (const mode of ["inband", "event"] as const) {
  Deno.test(`audio call, --dtmf ${mode}: keys and beeps reach the listener ${mode === "inband" ? "as tones the detectors hear, when the tones end" : "at once"}`, async () => {
    const agent = new Presser((line) => line.press("1*9#"));
    const user = new Listener();
    const s = spec(agent, user, new SlowTts(), counterEnv());
    s.speech = { ...s.speech!, dtmf: mode };
    const out = await runCall(s);
    assert.deepEqual(user.heard.map((h) => h.keys), ["1*9#"]);
    // Four keys of 100 ms tone and 100 ms gap.
    assert.equal(user.heard[0]!.at, mode === "inband" ? 800 : 0);
    assert.equal(out.tones?.length ?? 0, mode === "inband" ? 1 : 0);
    if (mode === "inband") assert.equal(out.tones![0]!.heard, "1*9#");

    const box = new Presser((line) => line.beep());
    const navigator = new Listener();
    const s2 = spec(navigator, box, new SlowTts(), counterEnv());
    s2.speech = { ...s2.speech!, dtmf: mode };
    s2.firstSpeaker = "user";
    const out2 = await runCall(s2);
    assert.deepEqual(navigator.heard.map((h) => h.type), ["beep"]);
    assert.equal(navigator.heard[0]!.at, mode === "inband" ? 500 : 0);
    if (mode === "inband") assert.equal(out2.tones![0]!.kind, "beep");
  });
}

/**
 * What one call against the fake realtime server (`./_fake_realtime.ts`) gives: the
 * scripted caller through the bridge, on the real clock, for the realtime wire's tests.
 *
 * @module
 */
import type { CallSetup } from "../src/bridge/call.ts";
import { pcm16 } from "../src/audio/pcm.ts";
import { voicedSignal } from "../src/audio/_test_signals.ts";
import { DEFAULT_LIMITS, runCall } from "../src/bridge/bridge.ts";
import { RealClock } from "../src/clock/clock.ts";
import { Environment } from "../src/env/environment.ts";
import { RemoteParticipant } from "../src/participants/remote.ts";
import { ScriptedUser } from "../src/participants/scripted_user.ts";
import type { TtsProvider } from "../src/speech/speech.ts";
import { counterDomain } from "../src/testing/counter_domain.ts";
import { toolSpecs } from "../src/bridge/tool_specs.ts";
import { fakeRealtime, type FakeRealtimeOptions } from "./_fake_realtime.ts";

/** A TTS stand-in: speech-like audio at 16 kHz, 50 ms a character. */
export const fakeTts: TtsProvider = {
  info: { provider: "fake", sampleRate: 16000 },
  synthesize: ({ text }) =>
    Promise.resolve({ ok: true, audio: pcm16(voicedSignal(16000, text.length * 50, 3), 16000) }),
  close: () => Promise.resolve(),
};

export const KEY = "sk-test-0123456789";

export function setup(): CallSetup {
  return {
    side: "agent",
    scenario: "test_counter__add_five",
    domain: "test_counter",
    prompt: "You keep a counter.",
    tools: toolSpecs(counterDomain, "agent", []),
    seed: "5eed",
  };
}

/** One call through the bridge: the scripted caller against the fake realtime model. */
export async function call(
  options: FakeRealtimeOptions,
  extra: { maxDurationMs?: number; bargeIns?: { agentUtterance: number; atMs: number }[] } = {},
) {
  const server = fakeRealtime({ key: KEY, ...options });
  const env = new Environment(counterDomain, { db: { count: 0 }, user_db: { pressed: [] } }, {
    today: "2024-05-15",
    seed: "s",
  });
  const remote = new RemoteParticipant({
    url: server.url,
    framing: "openai-realtime",
    apiKey: KEY,
  });
  try {
    const out = await runCall({
      env,
      agent: remote,
      user: new ScriptedUser({
        opening: "Please add five.",
        hangUpAfterMs: 1500,
        ...(extra.bargeIns ? { bargeIns: extra.bargeIns } : {}),
      }),
      agentSetup: setup(),
      userSetup: { ...setup(), side: "user", tools: [] },
      clock: new RealClock(),
      limits: { ...DEFAULT_LIMITS, maxDurationMs: extra.maxDurationMs ?? 15_000, silenceMs: 4000 },
      firstSpeaker: "user",
      timedSpeech: true,
      speech: { tts: fakeTts },
    });
    return { out, server, env, info: remote.info };
  } finally {
    await remote.close();
    await server.stop();
  }
}

import assert from "node:assert/strict";
import { spawnStandin } from "./_standin_process.ts";
import { startStandin } from "./_standin_agent.ts";
import { Vad } from "../audio/vad.ts";
import { voicedSignal } from "../audio/_test_signals.ts";
import { pcm16ToBytes } from "../audio/pcm.ts";
import { encodeBase64 } from "../protocol/audio_payload.ts";

/** Opens a socket, says `client-ready` the moment it opens; resolves with the reply's type. */
function handshake(url: string, deadlineMs: number): Promise<string> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url);
    const timer = setTimeout(() => {
      ws.close();
      resolve("no answer");
    }, deadlineMs);
    ws.onopen = () =>
      ws.send(JSON.stringify({
        label: "rtvi-ai",
        type: "client-ready",
        id: "r1",
        data: { version: "1.0.0" },
      }));
    ws.onmessage = (e) => {
      const type = (JSON.parse(e.data as string) as { type: string }).type;
      if (type !== "bot-ready") return;
      clearTimeout(timer);
      ws.close();
      resolve(type);
    };
    ws.onerror = () => {};
  });
}

Deno.test("a fresh stand-in process answers client-ready sent while its VAD still loads", async () => {
  // A fresh process loads libfvad for its first sessions: a `client-ready` that
  // arrives meanwhile must still be answered. 20 sessions open at once.
  const standin = await spawnStandin();
  try {
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => handshake(standin.url, 5000)),
    );
    assert.deepEqual(answers, Array(20).fill("bot-ready"));
    const stats = await standin.stats();
    assert.equal(stats.length, 20);
    assert.ok(stats.every((s) => s.messages[0] === "client-ready"));
  } finally {
    await standin.close();
  }
});

Deno.test("the stand-in answers the handshake before its VAD has loaded, and hears the audio sent meanwhile", async () => {
  // The VAD is held back until the test lets it load: in a fresh process libfvad's
  // first load takes about 170 ms, and a `client-ready` sent meanwhile was lost.
  let release!: () => void;
  const held = new Promise<void>((r) => release = r);
  const standin = startStandin({
    loadVad: async (sampleRate) => {
      await held;
      return Vad.create({ sampleRate, frameMs: 20 });
    },
  });
  const ws = new WebSocket(standin.url);
  const got: string[] = [];
  ws.onmessage = (e) => got.push((JSON.parse(e.data as string) as { type: string }).type);
  const until = async (what: () => boolean, ms: number) => {
    const end = Date.now() + ms;
    while (!what() && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
    return what();
  };
  try {
    await new Promise((r) => ws.onopen = r);
    ws.send(JSON.stringify({ label: "rtvi-ai", type: "client-ready", id: "r1", data: {} }));
    assert.ok(await until(() => got.includes("bot-ready"), 3000), `bot-ready, got ${got}`);
    // One utterance (600 ms voiced, 800 ms silence) while the VAD is still held.
    const speech = new Int16Array(16000 * 1.4);
    speech.set(voicedSignal(16000, 600, 1));
    for (let at = 0; at < speech.length; at += 320) {
      const pcm = pcm16ToBytes(speech.subarray(at, at + 320));
      ws.send(JSON.stringify({
        label: "rtvi-ai",
        type: "raw-audio",
        data: { base64Audio: encodeBase64(pcm), sampleRate: 16000, numChannels: 1 },
      }));
    }
    const session = standin.sessions[0]!;
    assert.ok(await until(() => session.chunks.length === 70, 3000), `${session.chunks.length}`);
    assert.equal(session.callerTurns, 0, "nothing heard before the VAD loads");
    release();
    assert.ok(await until(() => session.callerTurns === 1, 3000), "the held audio is heard");
  } finally {
    release();
    ws.close();
    await standin.close();
  }
});

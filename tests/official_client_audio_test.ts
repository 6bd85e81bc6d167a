/**
 * The official pipecat client through a whole audio call (issue 31 item 7):
 * `@pipecat-ai/client-js` over `@pipecat-ai/websocket-transport` (protobuf framing),
 * against `serve --audio` with a served agent that greets and hangs up. The client
 * hears the agent's speech, then `bot-stopped-speaking`, a `server-message` end and
 * the server's close, as a pipecat client understands an end; a second connection to
 * the same URL starts a new call (a finished call's session is not resumed).
 */
import assert from "node:assert/strict";
import {
  LogLevel,
  PipecatClient,
  // deno-lint-ignore no-import-prefix -- test-only: kept out of the import map so a first run does not download it
} from "npm:@pipecat-ai/client-js@1.13.1";
import {
  ProtobufFrameSerializer,
  WebSocketTransport,
  // deno-lint-ignore no-import-prefix -- test-only: kept out of the import map so a first run does not download it
} from "npm:@pipecat-ai/websocket-transport@1.7.1";
import { BUNDLED_DATA_ROOT, DataRoot } from "../src/scenario/data_root.ts";
import { FliteTts } from "../src/speech/tts_flite.ts";
import { serveBuiltin } from "./_serve.ts";

// The client reads `window?.navigator`, which throws where `window` is not defined.
(globalThis as { window?: unknown }).window ??= globalThis;

/**
 * A media manager with no devices: it counts the bot's audio it is given to play, and
 * hands the transport the caller's audio from `mic.speak` (as a microphone would).
 */
function countingMedia(heard: { bytes: number }, mic: { send?: (pcm: ArrayBuffer) => void }) {
  return {
    setUserAudioCallback(send: (pcm: ArrayBuffer) => void) {
      mic.send = send;
    },
    setClientOptions() {},
    initialize: () => Promise.resolve(),
    connect: () => Promise.resolve(),
    disconnect: () => Promise.resolve(),
    userStartedSpeaking: () => Promise.resolve(),
    bufferBotAudio: (audio: ArrayBuffer | Int16Array) => {
      heard.bytes += audio.byteLength;
      return undefined;
    },
    getAllMics: () => Promise.resolve([]),
    getAllCams: () => Promise.resolve([]),
    getAllSpeakers: () => Promise.resolve([]),
    updateMic() {},
    updateCam() {},
    updateSpeaker() {},
    enableMic() {},
    enableCam() {},
    enableScreenShare() {},
    tracks: () => ({ local: {} }),
    selectedMic: {},
    selectedCam: {},
    selectedSpeaker: {},
    isMicEnabled: false,
    isCamEnabled: false,
    isSharingScreen: false,
    supportsScreenShare: false,
  };
}

/** The caller's words at 16 kHz (the transport's microphone rate), then a second of silence. */
async function callerSpeech(tts: FliteTts): Promise<Int16Array> {
  const r = await tts.synthesize({
    text: "Hello, I need some help with my booking.",
    voice: "slt",
  });
  assert.ok(r.ok && r.audio.sampleRate === 16000);
  const out = new Int16Array(r.audio.samples.length + 16000);
  out.set(r.audio.samples);
  return out;
}

/**
 * One call by the official client to `url`: the caller speaks `speech` in real time,
 * 20 ms at a time; what the client saw, in order, until the server closed.
 */
async function call(
  url: string,
  speech: Int16Array,
): Promise<{ events: string[]; audioBytes: number }> {
  const events: string[] = [];
  const heard = { bytes: 0 };
  const mic: { send?: (pcm: ArrayBuffer) => void } = {};
  let closed!: () => void;
  const disconnected = new Promise<void>((r) => (closed = r));
  const client = new PipecatClient({
    transport: new WebSocketTransport({
      mediaManager: countingMedia(heard, mic) as never,
      serializer: new ProtobufFrameSerializer() as never,
    }),
    enableMic: false,
    enableCam: false,
    callbacks: {
      onBotReady: () => events.push("bot-ready"),
      onBotStartedSpeaking: () => events.push("bot-started-speaking"),
      onBotStoppedSpeaking: () => events.push("bot-stopped-speaking"),
      onServerMessage: (m: { type?: string }) => events.push(`server-message ${m?.type}`),
      onLLMFunctionCall: (f: { function_name?: string }) =>
        events.push(`function-call ${f.function_name}`),
      onDisconnected: () => {
        events.push("disconnected");
        closed();
      },
    },
  });
  client.setLogLevel(LogLevel.ERROR);
  await client.connect({ wsUrl: url });
  let ended = false;
  void disconnected.then(() => (ended = true));
  for (let at = 0; at < speech.length && !ended; at += 320) {
    mic.send?.(speech.slice(at, at + 320).buffer);
    await new Promise((r) => setTimeout(r, 20));
  }
  const timeout = new Promise<"timeout">((r) => setTimeout(() => r("timeout"), 30_000));
  const how = await Promise.race([disconnected.then(() => "closed" as const), timeout]);
  if (how === "timeout") {
    events.push("timeout");
    await client.disconnect();
  }
  return { events, audioBytes: heard.bytes };
}

Deno.test({
  name:
    "the official pipecat client through an audio call: speech, its end, the close; then a new call",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const root = new DataRoot(BUNDLED_DATA_ROOT);
    const tts = new FliteTts({ sampleRate: 24000 });
    const caller = new FliteTts({ sampleRate: 16000 });
    const server = await serveBuiltin(root, {
      audio: { enabled: true, options: () => ({ tts, outputRate: 24000 }) },
    });
    try {
      const url = `${server.url}?agent=noop`;
      const speech = await callerSpeech(caller);
      for (const which of ["first", "second"]) {
        const { events, audioBytes } = await call(url, speech);
        const what = `${which} call: ${events.join(", ")}`;
        assert.ok(audioBytes >= 24000 * 2, `${what}: ${audioBytes} bytes of the agent's speech`);
        assert.ok(!events.includes("timeout"), what);
        assert.ok(!events.some((e) => e.startsWith("function-call")), what);
        // The end as a pipecat client takes it: stopped speaking, the end, the close.
        const tail = events.filter((e) =>
          e === "bot-stopped-speaking" || e === "server-message end" || e === "disconnected"
        ).slice(-3);
        assert.deepEqual(
          tail,
          ["bot-stopped-speaking", "server-message end", "disconnected"],
          what,
        );
      }
    } finally {
      await server.shutdown();
      await tts.close();
      await caller.close();
    }
  },
});

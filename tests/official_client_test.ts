/**
 * Conformance with a real third-party client: `@pipecat-ai/client-js` 1.13 over
 * `@pipecat-ai/websocket-transport` 1.7, driving our bot server on 127.0.0.1 in
 * protobuf framing (the transport's default) and JSON framing (a custom
 * serializer). No browser: the client needs a `window` global and an injected
 * media manager (no microphone, no speakers).
 */
import assert from "node:assert/strict";
import {
  type BotOutputData,
  LogLevel,
  PipecatClient,
  type PipecatMetricsData,
  // deno-lint-ignore no-import-prefix -- test-only: kept out of the import map so a first run does not download it
} from "npm:@pipecat-ai/client-js@1.13.1";
import {
  ProtobufFrameSerializer,
  WebSocketTransport,
  // deno-lint-ignore no-import-prefix -- test-only: kept out of the import map so a first run does not download it
} from "npm:@pipecat-ai/websocket-transport@1.7.1";
import { echoServer } from "./_wire.ts";

// The client reads `window?.navigator`, which throws where `window` is not defined.
(globalThis as { window?: unknown }).window ??= globalThis;

/** A media manager with no devices: the client sends no audio and plays none. */
function silentMedia() {
  return {
    setUserAudioCallback() {},
    setClientOptions() {},
    initialize: () => Promise.resolve(),
    connect: () => Promise.resolve(),
    disconnect: () => Promise.resolve(),
    userStartedSpeaking: () => Promise.resolve(),
    bufferBotAudio: () => undefined,
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

/** JSON text frames instead of protobuf. */
const jsonSerializer = {
  serialize: (data: unknown) => JSON.stringify(data),
  serializeAudio: () => undefined,
  serializeMessage: (msg: unknown) => JSON.stringify(msg),
  deserialize: (data: unknown) =>
    Promise.resolve(
      typeof data === "string"
        ? { type: "message" as const, message: JSON.parse(data) }
        : { type: "raw" as const, message: data },
    ),
};

for (const framing of ["protobuf", "json"] as const) {
  Deno.test(`the official pipecat client (${framing}) connects, talks, calls a function and requests`, async () => {
    const server = echoServer();
    const outputs: BotOutputData[] = [];
    const metrics: PipecatMetricsData[] = [];
    const serverMessages: unknown[] = [];
    let speaking = 0;
    const transport = new WebSocketTransport({
      mediaManager: silentMedia() as never,
      serializer: (framing === "json" ? jsonSerializer : new ProtobufFrameSerializer()) as never,
    });
    const client = new PipecatClient({
      transport,
      enableMic: false,
      enableCam: false,
      callbacks: {
        onBotOutput: (data) => outputs.push(data),
        onMetrics: (data) => metrics.push(data),
        onServerMessage: (data) => serverMessages.push(data),
        onBotStartedSpeaking: () => speaking++,
      },
    });
    client.setLogLevel(LogLevel.ERROR);
    const waitFor = async (done: () => boolean) => {
      for (let i = 0; i < 200 && !done(); i++) await new Promise((r) => setTimeout(r, 10));
      assert.ok(done(), "timed out");
    };
    try {
      const ready = await client.connect({ wsUrl: server.url });
      assert.equal((ready as { version: string }).version, "2.1.0");

      // The client's own request/response: a reference handler, answered with its id.
      const prompt = await client.sendClientRequest("update_system_prompt", {
        prompt: "You echo.",
        tools: "[]",
        add_suffix: false,
      });
      assert.equal(prompt, true);

      // send-text answered by bot events.
      await client.sendText("hello bot");
      await waitFor(() => outputs.length >= 1);
      assert.equal(outputs[0]!.text, "you said: hello bot");
      assert.equal(outputs[0]!.aggregated_by, "sentence");
      assert.equal(speaking, 1);
      await waitFor(() => metrics.some((m) => "tokens" in m));

      // A function call the client runs with its registered handler.
      client.registerFunctionCallHandler(
        "lookup",
        (params) => Promise.resolve({ found: (params.arguments as { q: string }).q }),
      );
      await client.sendText('tool lookup {"q":"abc"}');
      await waitFor(() => outputs.length >= 2);
      assert.equal(outputs[1]!.text, 'result: {"found":"abc"}');

      // DTMF in the 2.1 form, and a server-message push.
      client.sendDTMF("42#");
      await waitFor(() => outputs.length >= 3);
      assert.equal(outputs[2]!.text, "keys 42#");
      await client.sendText("beep");
      await waitFor(() => serverMessages.length >= 1);
      assert.deepEqual(serverMessages[0], { type: "beep" });

      const summary = await client.sendClientRequest("get_scenario_summary", { include_db: true });
      assert.deepEqual(summary, { actions: [], db_hash: null, db: null });
      await assert.rejects(client.sendClientRequest("no_such_handler", {}));
      assert.equal([...server.sessions][0]!.framing, framing, "answered in the client's framing");
    } finally {
      await client.disconnect();
      await server.shutdown();
    }
  });
}

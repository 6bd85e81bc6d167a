/**
 * A hostile client against a real `serve` on loopback: what it sends can neither
 * take the server's memory nor keep other clients waiting. Each test is a flood from
 * issue #16 through the real socket, with a second client timed where it matters.
 */
import assert from "node:assert/strict";
import { rtvi } from "../src/protocol/messages.ts";
import { MAX_FRAME_BYTES } from "../src/protocol/framing.ts";
import { encodeAudioFrame, encodeTextFrame } from "../src/protocol/protobuf.ts";
import type { TtsProvider } from "../src/speech/speech.ts";
import { pcm16 } from "../src/audio/pcm.ts";
import { clientFrame, RawSocketClient, repeatFrame, textFrame } from "./_raw_ws.ts";
import { echoServer, RawClient } from "./_wire.ts";

/** A TTS that says nothing (no audio), at once. */
const SILENT_TTS: TtsProvider = {
  info: { provider: "silent", sampleRate: 16000 },
  synthesize: () => Promise.resolve({ ok: true, audio: pcm16(new Int16Array(0), 16000) }),
  close: () => Promise.resolve(),
};
const AUDIO = { enabled: true, options: () => ({ tts: SILENT_TTS }) };

Deno.test("a frame announcing more than the frame limit is refused from its header (1009), its payload unread", async () => {
  const server = await echoServer();
  try {
    const c = await RawSocketClient.open(server.url);
    // A 60 MiB binary frame of which only the first 64 KiB is ever sent.
    await c.write(clientFrame(2, new Uint8Array(65_536), 60 * 2 ** 20));
    const code = await Promise.race([
      c.closed,
      new Promise<string>((r) => setTimeout(() => r("still open after 3 s"), 3_000)),
    ]);
    assert.equal(code, 1009);
    c.close();
    // A frame of the limit itself is still taken (and answered as a frame too large for JSON).
    const ok = await RawSocketClient.open(server.url);
    const big = `{"label":"rtvi-ai","type":"client-ready","id":"r","data":{"x":"${
      "y".repeat(MAX_FRAME_BYTES - 100)
    }"}}`;
    await ok.write(textFrame(big.slice(0, MAX_FRAME_BYTES)));
    await ok.write(textFrame(JSON.stringify(rtvi("client-ready", { version: "2.1.0" }, "r2"))));
    await ok.until((f) => new TextDecoder().decode(f.payload).includes('"bot-ready"'));
    ok.close();
  } finally {
    await server.shutdown();
  }
});

/** Handshake times (connect to bot-ready) of `n` clients one after the other, ms. */
async function handshakes(url: string, n: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const c = new RawClient(url);
    await c.opened;
    c.send(rtvi("client-ready", { version: "2.1.0" }, `h${i}`));
    await c.next((m) => m.type === "bot-ready", 30_000);
    times.push(performance.now() - t0);
    await c.close();
  }
  return times;
}

const p99 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.ceil(xs.length * 0.99) - 1]!;

Deno.test("40,000 one-byte frames in one burst neither block a second client nor keep their socket", async () => {
  const server = await echoServer();
  try {
    const flooder = await RawSocketClient.open(server.url);
    const sent = flooder.write(repeatFrame(textFrame("{"), 40_000));
    const times = await handshakes(server.url, 20);
    await sent;
    assert.ok(p99(times) < 200, `second client's handshake p99 ${p99(times).toFixed(0)} ms`);
    const code = await Promise.race([
      flooder.closed,
      new Promise<string>((r) => setTimeout(() => r("flooder still connected after 5 s"), 5_000)),
    ]);
    assert.equal(code, 1008);
    const errors = flooder.frames.filter((f) => f.opcode === 1).length;
    assert.ok(errors < 1_000, `${errors} error frames sent back to the flooder`);
    flooder.close();
  } finally {
    await server.shutdown();
  }
});

Deno.test("silent sockets no longer hold the server's slots: they are closed after the handshake timeout", async () => {
  const server = await echoServer({
    maxSessions: 3,
    session: { limits: { handshakeTimeoutMs: 300 } },
  });
  const status = async () => {
    const r = await fetch(server.url.replace(/^ws/, "http"));
    await r.body?.cancel();
    return r.status;
  };
  try {
    const silent = Array.from({ length: 3 }, () => new RawClient(server.url));
    await Promise.all(silent.map((c) => c.opened));
    assert.equal(await status(), 503, "full while the silent sockets hold every slot");
    const codes = await Promise.race([
      Promise.all(silent.map((c) => c.closed.then((e) => e.code))),
      new Promise<string>((r) => setTimeout(() => r("still open after 5 s"), 5_000)),
    ]);
    assert.deepEqual(codes, [1008, 1008, 1008]);
    const fresh = new RawClient(server.url);
    await fresh.opened;
    fresh.send(rtvi("client-ready", { version: "2.1.0" }, "r"));
    await fresh.next((m) => m.type === "bot-ready");
    await fresh.close();
  } finally {
    await server.shutdown();
  }
});

Deno.test("words for a turn that never ends are refused past the history budget (TextFrames and send-text)", async () => {
  const server = await echoServer({ audio: AUDIO });
  const client = new RawClient(server.url, "protobuf");
  try {
    await client.opened;
    client.send(rtvi("client-ready", { version: "2.1.0" }, "r"));
    await client.next((m) => m.type === "bot-ready");
    const words = "w".repeat(900_000);
    // 8 MiB of history: nine 900 kB TextFrames fit, the tenth and later ones do not.
    for (let i = 0; i < 12; i++) client.ws.send(encodeTextFrame({ text: words }));
    const refused = await client.next((m) => m.type === "error");
    assert.match(
      (refused.data as { error: string }).error,
      /words for the turn in progress refused: .*history budget of 8388608/,
    );
    client.send(rtvi("send-text", { content: words, options: { run_immediately: false } }, "s1"));
    const answer = await client.next((m) => m.id === "s1");
    assert.equal(answer.type, "error-response");
    const errors = 1 + client.received.filter((m) => m.type === "error").length;
    assert.equal(errors, 3, "frames 10-12");
  } finally {
    await client.close();
    await server.shutdown();
  }
});

Deno.test("audio at 400x real time is cut off (1008) without holding up a second client", async () => {
  const server = await echoServer({ audio: AUDIO });
  try {
    const flooder = await RawSocketClient.open(server.url);
    await flooder.write(textFrame(JSON.stringify(rtvi("client-ready", { version: "2.1.0" }, "r"))));
    await flooder.until((f) => new TextDecoder().decode(f.payload).includes('"bot-ready"'));
    // 20 ms frames, 400 at a time (8 s of audio) every 20 ms, for at most 10 s.
    const frame = clientFrame(
      2,
      encodeAudioFrame({
        pcm: new Uint8Array(640),
        sampleRate: 16000,
        numChannels: 1,
      }),
    );
    const batch = repeatFrame(frame, 400);
    let stop = false;
    const t0 = performance.now();
    const flood = (async () => {
      while (!stop && performance.now() - t0 < 10_000) {
        if (!(await flooder.write(batch))) return;
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const times = await handshakes(server.url, 20);
    const code = await Promise.race([
      flooder.closed,
      new Promise<string>((r) => setTimeout(() => r("flooder still connected after 10 s"), 10_000)),
    ]);
    const cutMs = performance.now() - t0;
    stop = true;
    await flood;
    assert.equal(code, 1008);
    assert.ok(cutMs < 5_000, `cut off after ${cutMs.toFixed(0)} ms`);
    assert.ok(p99(times) < 200, `second client's handshake p99 ${p99(times).toFixed(0)} ms`);
    flooder.close();
  } finally {
    await server.shutdown();
  }
});

Deno.test("get_context_history from a client that does not read: the server neither queues the replies nor reads on", async () => {
  const server = await echoServer();
  const url = `${server.url}?session=amplified`;
  try {
    // A conversation near the 8 MiB history budget, so each reply is about 8 MB.
    const setup = await RawSocketClient.open(url);
    const text = (f: { payload: Uint8Array }) => new TextDecoder().decode(f.payload);
    const say = async (msg: ReturnType<typeof rtvi>, until: string) => {
      setup.frames.length = 0;
      await setup.write(textFrame(JSON.stringify(msg)));
      return await setup.until((f) => text(f).includes(until));
    };
    await say(rtvi("client-ready", { version: "2.1.0" }, "r"), '"bot-ready"');
    await say(
      rtvi("client-message", {
        t: "update_system_prompt",
        d: { prompt: "Amplify.", tools: "[]", add_suffix: false },
      }, "p"),
      '"id":"p"',
    );
    for (let i = 0; i < 5; i++) {
      await say(
        rtvi("send-text", { content: "x".repeat(800_000) }, `t${i}`),
        "bot-stopped-speaking",
      );
    }
    const reply = await say(
      rtvi("client-message", { t: "get_context_history", d: {} }, "h"),
      '"id":"h"',
    );
    const replyBytes = reply.payload.byteLength;
    assert.ok(replyBytes > 7_000_000, `a reply of ${replyBytes} bytes`);
    setup.close();
    await new Promise((r) => setTimeout(r, 50));

    const rssBefore = Deno.memoryUsage().rss;
    const reader = await RawSocketClient.open(url, { read: false });
    const ask = textFrame(
      JSON.stringify(rtvi("client-message", { t: "get_context_history", d: {} }, "q")),
    );
    await reader.write(repeatFrame(ask, 100));
    await new Promise((r) => setTimeout(r, 500));
    await Promise.all([...server.sessions].map((s) => s.idle()));
    const growthMb = (Deno.memoryUsage().rss - rssBefore) / 2 ** 20;
    assert.ok(
      growthMb < 120,
      `100 requests of ${replyBytes} bytes grew the process ${growthMb.toFixed(0)} MB`,
    );
    // Another client is still answered at once.
    const times = await handshakes(server.url, 5);
    assert.ok(Math.max(...times) < 500, `handshakes ${times.map((t) => t.toFixed(0))} ms`);
    reader.close();
  } finally {
    await server.shutdown();
  }
});

import assert from "node:assert/strict";
import { defineWebSocketHelper, WSContext, type WSEvents } from "hono/ws";
import { Pacer, realTimeLateness } from "../audio/pacer.ts";
import { RealClock, settle } from "../clock/clock.ts";
import { readFrame, writeFrame } from "../protocol/framing.ts";
import { parseMessage, rtvi, type RtviMessage } from "../protocol/messages.ts";
import { EchoParticipant } from "./_echo_participant.ts";
import { type AppOptions, createApp } from "./app.ts";
import type { Session } from "./session.ts";

interface Upgraded {
  url: string;
  events: WSEvents;
  ws: WSContext;
  sent: (string | Uint8Array)[];
  closed: boolean;
}

/** An upgrade helper that hands each accepted upgrade to the test instead of a socket. */
function fakeUpgrade() {
  const upgraded: Upgraded[] = [];
  const upgradeWebSocket = defineWebSocketHelper((c, events) => {
    if (c.req.header("upgrade") !== "websocket") return;
    const sent: (string | Uint8Array)[] = [];
    const entry: Upgraded = {
      url: c.req.url,
      events,
      sent,
      closed: false,
      ws: new WSContext({
        send: (data) => sent.push(data as string | Uint8Array),
        close: () => (entry.closed = true),
        readyState: 1,
      }),
    };
    upgraded.push(entry);
    return new Response("upgraded");
  });
  return { upgradeWebSocket, upgraded };
}

function setup(options: Partial<AppOptions> = {}) {
  const { upgradeWebSocket, upgraded } = fakeUpgrade();
  const sessions = new Set<Session>();
  const hosted: { name: string; side: string }[] = [];
  const app = createApp({
    upgradeWebSocket,
    sessions,
    factory: (name, s) => {
      hosted.push({ name, side: s.side });
      return new EchoParticipant();
    },
    ...options,
  });
  return { app, upgraded, sessions, hosted };
}

const WS = { headers: { upgrade: "websocket" } };

function decode(frames: (string | Uint8Array)[]): RtviMessage[] {
  return frames.map((f) => {
    const frame = readFrame(f);
    assert.ok(frame.ok && "text" in frame);
    const parsed = parseMessage(frame.text);
    assert.ok(parsed.ok && parsed.message);
    return parsed.message;
  });
}

Deno.test("/health reports the protocol, the live session count and the memory in use", async () => {
  const { app } = setup();
  const res = await app.request("/health");
  assert.equal(res.status, 200);
  const body = await res.json();
  assert.deepEqual({
    ...body,
    rss_mb: typeof body.rss_mb,
    pacer_late_ms: typeof body.pacer_late_ms,
  }, {
    status: "ok",
    protocol: "2.1.0",
    sessions: 0,
    rss_mb: "number",
    pacer_late_ms: "object",
  });
});

Deno.test("/health with a token shows its internals only to a caller holding it", async () => {
  const { app } = setup({ token: "t0ken" });
  const open = await (await app.request("/health")).json();
  assert.deepEqual(open, { status: "ok", protocol: "2.1.0" });
  const wrong = await (await app.request("/health?token=nope")).json();
  assert.deepEqual(wrong, { status: "ok", protocol: "2.1.0" });
  const full = await (await app.request("/health", {
    headers: { authorization: "Bearer t0ken" },
  })).json();
  assert.equal(full.sessions, 0);
  assert.equal(typeof full.rss_mb, "number");
});

Deno.test("/health shows how late the process's paced audio went out, measured on the real clock", async () => {
  // Ground truth: a pacer on the real clock whose thread is held for 80 ms right after
  // its first chunk; the chunk due at 20 ms goes out about 60 ms late, and every chunk
  // the pacer sent is counted.
  realTimeLateness.reset();
  const { app } = setup();
  let sent = 0;
  const pacer = new Pacer({
    clock: new RealClock(),
    sampleRate: 16000,
    chunkMs: 20,
    onChunk: () => sent++,
  });
  pacer.start();
  const held = performance.now();
  while (performance.now() - held < 80) { /* the event loop is blocked */ }
  await new Promise((resolve) => setTimeout(resolve, 150));
  pacer.stop();
  const late = (await (await app.request("/health")).json()).pacer_late_ms;
  assert.equal(late.chunks, sent);
  assert.ok(sent >= 5, `${sent} chunks`);
  assert.ok(late.max >= 59, `max ${late.max} ms, the chunk due at 20 ms waited out the 80 ms hold`);
  // Wide for a loaded machine, still well below a missed second hold.
  assert.ok(late.max < 60 + 150, `max ${late.max} ms`);
  // Percentiles are histogram bins' upper edges (1 ms wide past 50 ms).
  assert.ok(late.p50 <= late.p99 && late.p99 <= late.max + 1, JSON.stringify(late));
  realTimeLateness.reset();
});

Deno.test("a socket error is one short log line naming the session, not the runtime's text", async () => {
  const logs: string[] = [];
  const { app, upgraded } = setup({ log: (l) => logs.push(l) });
  await app.request("/ws?agent=noop", WS);
  const [u] = upgraded;
  u!.events.onError?.(new ErrorEvent("error", { message: "Reserved bits are not zero" }), u!.ws);
  u!.events.onError?.(new ErrorEvent("error", { message: "Unexpected EOF" }), u!.ws);
  assert.deepEqual(logs, [
    "session 1: connection closed after a WebSocket protocol error from the client",
    "session 1: the client dropped the connection without closing it",
  ]);
});

Deno.test("/ws without an upgrade is 426", async () => {
  const { app } = setup();
  const res = await app.request("/ws");
  assert.equal(res.status, 426);
  assert.match((await res.json()).error, /WebSocket upgrade/);
});

Deno.test("/ws opens one session per socket; messages flow through it", async () => {
  const { app, upgraded, sessions, hosted } = setup();
  assert.equal((await app.request("/ws?agent=noop", WS)).status, 200);
  const [u] = upgraded;
  u!.events.onOpen?.(new Event("open"), u!.ws);
  assert.equal(sessions.size, 1);
  assert.deepEqual((await (await app.request("/health")).json()).sessions, 1);
  const frame = writeFrame(rtvi("client-ready", { version: "2.1.0" }, "r1"), "protobuf");
  // Deno delivers binary frames as Blobs unless told otherwise.
  u!.events.onMessage?.(new MessageEvent("message", { data: new Blob([frame]) }), u!.ws);
  const sendText = JSON.stringify(rtvi("send-text", { content: "hi" }, "s1"));
  u!.events.onMessage?.(new MessageEvent("message", { data: sendText }), u!.ws);
  await [...sessions][0]!.idle();
  const out = decode(u!.sent);
  assert.equal(out[0]!.type, "bot-ready");
  assert.ok(u!.sent[0] instanceof Uint8Array, "answered in protobuf, as asked");
  assert.ok(out.some((m) => m.type === "bot-output"));
  assert.deepEqual(hosted, [{ name: "noop", side: "agent" }]);
  u!.events.onClose?.(new CloseEvent("close"), u!.ws);
  await settle();
  assert.equal(sessions.size, 0);
});

Deno.test("?user=NAME hosts a caller; the default agent is used when none is named", async () => {
  const { app, upgraded, hosted } = setup({ defaultAgent: "noop" });
  await app.request("/ws?user=scripted", WS);
  await app.request("/ws", WS);
  for (const u of upgraded) {
    u.events.onOpen?.(new Event("open"), u.ws);
    u.events.onMessage?.(
      new MessageEvent("message", {
        data: JSON.stringify(rtvi("send-text", { content: "x" }, "1")),
      }),
      u.ws,
    );
  }
  await settle();
  await settle();
  assert.deepEqual(hosted, [{ name: "scripted", side: "user" }, { name: "noop", side: "agent" }]);
});

Deno.test("unknown participants and both ?agent and ?user are refused before the upgrade", async () => {
  const { app, upgraded } = setup({ agents: ["oracle", "noop"] });
  const unknown = await app.request("/ws?agent=gpt", WS);
  assert.equal(unknown.status, 400);
  assert.match((await unknown.json()).error, /unknown participant "gpt" \(known: oracle, noop\)/);
  assert.equal((await app.request("/ws?agent=noop&user=noop", WS)).status, 400);
  assert.equal(upgraded.length, 0);
});

Deno.test("with a token, /ws needs it as a Bearer header or ?token=", async () => {
  const { app, upgraded } = setup({ token: "s3cret" });
  assert.equal((await app.request("/ws", WS)).status, 401);
  assert.equal((await app.request("/ws?token=wrong", WS)).status, 401);
  const wrongHeader = { headers: { ...WS.headers, authorization: "Bearer nope" } };
  assert.equal((await app.request("/ws", wrongHeader)).status, 401);
  const header = { headers: { ...WS.headers, authorization: "Bearer s3cret" } };
  assert.equal((await app.request("/ws", header)).status, 200);
  assert.equal((await app.request("/ws?token=s3cret", WS)).status, 200);
  assert.equal(upgraded.length, 2);
  assert.equal((await app.request("/health")).status, 200, "health needs no token");
});

Deno.test("a full server refuses new sessions with 503", async () => {
  const { app, upgraded } = setup({ maxSessions: 1 });
  await app.request("/ws", WS);
  upgraded[0]!.events.onOpen?.(new Event("open"), upgraded[0]!.ws);
  const res = await app.request("/ws", WS);
  assert.equal(res.status, 503);
  assert.match((await res.json()).error, /server full \(1 sessions\)/);
});

Deno.test("?audio=1|0 chooses audio per session; a bad value or no audio on the server is 400", async () => {
  const tts = {
    info: { provider: "fake" },
    synthesize: () => Promise.reject(new Error("not used")),
    close: () => Promise.resolve(),
  };
  const made: number[] = [];
  const withAudio = setup({
    audio: { enabled: false, options: () => (made.push(1), { tts }) },
  });
  for (const [query, audio] of [["", false], ["&audio=1", true], ["&audio=0", false]] as const) {
    assert.equal((await withAudio.app.request(`/ws?agent=noop${query}`, WS)).status, 200);
    const u = withAudio.upgraded.at(-1)!;
    u.events.onOpen?.(new Event("open"), u.ws);
    const session = [...withAudio.sessions].at(-1)!;
    assert.equal(session.audio, audio, query);
  }
  assert.equal(made.length, 1, "providers are asked for by audio sessions only");
  const bad = await withAudio.app.request("/ws?agent=noop&audio=yes", WS);
  assert.equal(bad.status, 400);
  assert.match((await bad.json()).error, /audio= takes 1 or 0/);
  const none = setup();
  const refused = await none.app.request("/ws?agent=noop&audio=1", WS);
  assert.equal(refused.status, 400);
  assert.match((await refused.json()).error, /started without audio/);
  const on = setup({ audio: { enabled: true, options: () => ({ tts }) } });
  await on.app.request("/ws?agent=noop", WS);
  on.upgraded[0]!.events.onOpen?.(new Event("open"), on.upgraded[0]!.ws);
  assert.equal([...on.sessions][0]!.audio, true, "--audio makes every session an audio one");
});

/**
 * RemoteParticipant against our own bot server on 127.0.0.1 (echo participants
 * hosted), and against small misbehaving bots: unreachable, silent, garbage,
 * disconnecting.
 */
import assert from "node:assert/strict";
import type { CallSetup } from "../src/bridge/call.ts";
import { ParticipantError } from "../src/bridge/call.ts";
import { rtvi } from "../src/protocol/messages.ts";
import { type ClientSocket, RemoteParticipant } from "../src/participants/remote.ts";
import { SimClock } from "../src/clock/clock.ts";
import { cli } from "./_cli.ts";
import { echoServer, type LineAct, RecordingLine } from "./_wire.ts";

const SETUP: CallSetup = {
  side: "agent",
  scenario: "toy__7",
  domain: "toy",
  prompt: "You paint houses.",
  tools: [{ name: "set_color", description: "Paint.", parameters: { type: "object" } }],
  seed: "5eed",
};

const said = (text: string) => (a: LineAct) => a.act === "say" && a.text === text;

for (const framing of ["json", "protobuf"] as const) {
  Deno.test(`a remote agent (${framing}) relays speech, keys, tools and the end of the call`, async () => {
    const server = await echoServer();
    const url = `${server.url}?agent=echo${framing === "protobuf" ? "&framing=protobuf" : ""}`;
    const remote = new RemoteParticipant({ url, side: "agent" });
    const line = new RecordingLine("agent");
    try {
      await remote.start(line, SETUP);
      assert.equal(remote.info.settings?.framing, framing);
      const hosted = server.hosted[0]!;
      assert.equal(hosted.name, "echo");
      assert.deepEqual(hosted.participant.setup, SETUP);

      remote.onEvent({ type: "call_start", at: 0, you_speak_first: true });
      await line.when(said("Hello, echo here."));

      remote.onEvent({ type: "speech", at: 10, text: "hello", voice: "MACHINE" });
      const reply = await line.when(said("you said: hello"));
      assert.deepEqual(reply, { act: "say", text: "you said: hello", ttftMs: 120 });
      await line.when((a) => a.act === "usage");
      const speech = hosted.participant.events.find((e) => e.type === "speech");
      assert.equal(speech?.type === "speech" && speech.voice, "MACHINE");

      remote.onEvent({ type: "dtmf", at: 20, keys: "5#" });
      await line.when(said("keys 5#"));

      remote.onEvent({ type: "speech", at: 30, text: 'tool set_color {"color":"red"}' });
      const result = await line.when((a) => a.act === "say" && a.text.startsWith("result:"));
      assert.deepEqual(line.acts.find((a) => a.act === "callTool"), {
        act: "callTool",
        name: "set_color",
        args: { color: "red" },
      });
      assert.equal(
        (result as { text: string }).text,
        'result: {"tool":"set_color","echo":{"color":"red"}}',
      );

      remote.onEvent({ type: "speech", at: 40, text: "press 1*" });
      await line.when((a) => a.act === "callTool" && a.name === "send_dtmf");
      assert.deepEqual(line.acts.filter((a) => a.act === "callTool").at(-1), {
        act: "callTool",
        name: "send_dtmf",
        args: { keys: "1*" },
      });

      remote.onEvent({ type: "speech", at: 50, text: "beep" });
      await line.when((a) => a.act === "beep");

      remote.onEvent({ type: "speech", at: 60, text: "bye" });
      const goodbye = await line.when(said("Goodbye."));
      assert.deepEqual(goodbye, { act: "say", text: "Goodbye.", voice: "VOICE" });
      assert.deepEqual(await line.when((a) => a.act === "hangUp"), {
        act: "hangUp",
        reason: "done",
        agentEnd: true,
      });
      remote.onEvent({ type: "hangup", at: 70, by: "agent", reason: "agent_end" });
    } finally {
      await remote.close();
      await server.shutdown();
    }
    assert.equal(line.acts.filter((a) => a.act === "fail").length, 0, JSON.stringify(line.acts));
    assert.equal(server.hosted[0]!.participant.closed, true);
  });
}

Deno.test("a remote caller (?user=) is hosted on the user side", async () => {
  const server = await echoServer();
  const remote = new RemoteParticipant({ url: `${server.url}?user=echo`, side: "user" });
  const line = new RecordingLine("user");
  try {
    await remote.start(line, { ...SETUP, side: "user", prompt: "You are a caller." });
    assert.equal(server.hosted[0]!.participant.setup?.side, "user");
    remote.onEvent({ type: "speech", at: 0, text: "how can I help?" });
    await line.when(said("you said: how can I help?"));
  } finally {
    await remote.close();
    await server.shutdown();
  }
});

Deno.test("the kick option sends Hello when the call starts, for reference-style bots", async () => {
  const server = await echoServer();
  const remote = new RemoteParticipant({ url: server.url, kick: "Hello" });
  const line = new RecordingLine();
  try {
    await remote.start(line, SETUP);
    remote.onEvent({ type: "call_start", at: 0, you_speak_first: false });
    await line.when(said("you said: Hello"));
  } finally {
    await remote.close();
    await server.shutdown();
  }
});

Deno.test("tools are sent as the reference's {name: {}} when asked", async () => {
  const server = await echoServer({
    session: { domains: () => Promise.reject(new Error("no domains")) },
  });
  const remote = new RemoteParticipant({ url: server.url, toolsFormat: "names" });
  try {
    // The server cannot resolve names without the domain: the refusal surfaces as a setup error.
    await assert.rejects(
      remote.start(new RecordingLine(), SETUP),
      (e: unknown) =>
        e instanceof ParticipantError && e.kind === "protocol_error" &&
        /refused client-message update_system_prompt: Error: no domains/.test(e.message),
    );
  } finally {
    await remote.close();
    await server.shutdown();
  }
});

Deno.test("an unreachable bot is agent_unreachable after the bounded retries", async () => {
  // A port that was free a moment ago: nothing listens there now.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const remote = new RemoteParticipant({
    url: `ws://127.0.0.1:${port}/ws`,
    connectAttempts: 3,
    retryDelayMs: 10,
  });
  const started = performance.now();
  const line = new RecordingLine();
  await assert.rejects(
    remote.start(line, SETUP),
    (e: unknown) =>
      e instanceof ParticipantError && e.kind === "agent_unreachable" &&
      /after 3 attempt\(s\)/.test(e.message),
  );
  assert.ok(performance.now() - started >= 30, "waited 10 + 20 ms between attempts");
  assert.deepEqual(line.acts, [], "a failed attempt is not a disconnect mid-call");
  await remote.close();
});

/** A misbehaving bot: `onMessage` decides what to send back. */
function fakeBot(onMessage: (socket: WebSocket, data: string) => void) {
  const sockets: WebSocket[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const { socket, response } = Deno.upgradeWebSocket(req);
    sockets.push(socket);
    socket.onmessage = (e) => onMessage(socket, e.data as string);
    return response;
  });
  return {
    url: `ws://127.0.0.1:${server.addr.port}/ws`,
    sockets,
    async stop() {
      for (const s of sockets) if (s.readyState === WebSocket.OPEN) s.close();
      await server.shutdown();
    },
  };
}

/** Answers the handshake and the system prompt like a well-behaved bot. */
function handshake(socket: WebSocket, data: string): boolean {
  const msg = JSON.parse(data);
  if (msg.type === "client-ready") {
    socket.send(JSON.stringify(rtvi("bot-ready", { version: "2.1.0" }, msg.id)));
    return true;
  }
  if (msg.type === "client-message" && msg.data.t === "update_system_prompt") {
    socket.send(JSON.stringify(rtvi("server-response", { t: msg.data.t, d: true }, msg.id)));
    return true;
  }
  return false;
}

Deno.test("a bot that never answers the handshake is agent_timeout", async () => {
  const bot = fakeBot(() => {});
  const remote = new RemoteParticipant({ url: bot.url, replyTimeoutMs: 100 });
  try {
    await assert.rejects(
      remote.start(new RecordingLine(), SETUP),
      (e: unknown) =>
        e instanceof ParticipantError && e.kind === "agent_timeout" &&
        /did not answer client-ready within 100 ms/.test(e.message),
    );
  } finally {
    await remote.close();
    await bot.stop();
  }
});

Deno.test("garbage from the bot mid-call is a protocol_error", async () => {
  const bot = fakeBot((socket, data) => {
    if (!handshake(socket, data)) socket.send("this is not RTVI");
  });
  const remote = new RemoteParticipant({ url: bot.url });
  const line = new RecordingLine();
  try {
    await remote.start(line, SETUP);
    remote.onEvent({ type: "speech", at: 0, text: "hi" });
    const fail = await line.when((a) => a.act === "fail");
    assert.equal((fail as { kind: string }).kind, "protocol_error");
    assert.match((fail as { message: string }).message, /sent garbage: invalid JSON/);
  } finally {
    await remote.close();
    await bot.stop();
  }
});

Deno.test("a bot closing the socket mid-call is agent_disconnected", async () => {
  const bot = fakeBot((socket, data) => {
    if (!handshake(socket, data)) socket.close(1011, "crashed");
  });
  const remote = new RemoteParticipant({ url: bot.url });
  const line = new RecordingLine();
  try {
    await remote.start(line, SETUP);
    remote.onEvent({ type: "speech", at: 0, text: "hi" });
    const fail = await line.when((a) => a.act === "fail");
    assert.equal((fail as { kind: string }).kind, "agent_disconnected");
    assert.match((fail as { message: string }).message, /code 1011, crashed/);
  } finally {
    await remote.close();
    await bot.stop();
  }
});

Deno.test("a pipecat-style bot: <exit> text ends the call, tokens count, ttfb becomes ttft", async () => {
  const bot = fakeBot((socket, data) => {
    if (handshake(socket, data)) return;
    const msg = JSON.parse(data);
    if (msg.type !== "send-text") return;
    const send = (type: string, d?: unknown) => socket.send(JSON.stringify(rtvi(type, d)));
    send("metrics", { ttfb: [{ processor: "OpenAILLMService#0", value: 0.25 }] });
    send("bot-started-speaking");
    send("bot-output", { text: "Your booking", aggregated_by: "sentence", segment_id: "s1" });
    send("bot-output", {
      text: "Your booking is done.",
      aggregated_by: "sentence",
      segment_id: "s1",
    });
    send("bot-tts-text", { text: "Your" });
    send("bot-stopped-speaking");
    send("metrics", { tokens: [{ prompt_tokens: 100, completion_tokens: 7, total_tokens: 107 }] });
    send("llm-function-call-in-progress", { tool_call_id: "t9" }); // report level "none"
    send("server-message", { text: "<exit>The task is finished.</exit>" });
  });
  const remote = new RemoteParticipant({ url: bot.url });
  const line = new RecordingLine();
  try {
    await remote.start(line, SETUP);
    remote.onEvent({ type: "speech", at: 0, text: "book it" });
    await line.when((a) => a.act === "hangUp");
    assert.deepEqual(line.acts, [
      { act: "say", text: "Your booking is done.", ttftMs: 250 },
      { act: "usage", usage: { prompt_tokens: 100, completion_tokens: 7 } },
      { act: "trace", entry: { type: "unnamed_function_call", tool_call_id: "t9" } },
      { act: "hangUp", reason: "The task is finished.", agentEnd: true },
    ]);
    // The socket closing after the end is not a failure.
    bot.sockets[0]!.close();
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(line.acts.filter((a) => a.act === "fail").length, 0);
  } finally {
    await remote.close();
    await bot.stop();
  }
});

Deno.test("the token is sent as ?token= and never shown in the participant info", () => {
  const remote = new RemoteParticipant({ url: "ws://127.0.0.1:1/ws?agent=noop", token: "s3cret" });
  assert.equal(remote.info.url, "ws://127.0.0.1:1/ws?agent=noop");
  assert.doesNotMatch(JSON.stringify(remote.info), /s3cret/);
});

// ---- what is received is bounded (a deep value never reaches JSON.stringify) ----------

/** A tool call whose arguments are `[[[…]]]` nested `depth` deep, as a value or as JSON text. */
function deepToolCall(depth: number, asText: boolean): string {
  const deep = "[".repeat(depth) + "]".repeat(depth);
  const frame = JSON.stringify(rtvi("llm-function-call-in-progress", {
    tool_call_id: "t1",
    function_name: "set_color",
    arguments: "@DEEP@",
  }));
  return frame.replace('"@DEEP@"', asText ? `"${deep}"` : deep);
}

for (const asText of [false, true]) {
  Deno.test(`a tool call nested 450k deep (${asText ? "JSON text" : "value"}) fails the trial with protocol_error`, async () => {
    const frame = deepToolCall(450_000, asText);
    assert.ok(frame.length > 900_000 && frame.length < 1 << 20, "under the frame cap");
    const bot = fakeBot((socket, data) => {
      if (!handshake(socket, data)) socket.send(frame);
    });
    const remote = new RemoteParticipant({ url: bot.url });
    const line = new RecordingLine();
    try {
      await remote.start(line, SETUP);
      remote.onEvent({ type: "speech", at: 0, text: "paint it" });
      const fail = await line.when((a) => a.act === "fail");
      assert.equal((fail as { kind: string }).kind, "protocol_error");
      assert.match(
        (fail as { message: string }).message,
        asText
          ? /sent garbage: arguments of set_color nested deeper than 64 levels at \[0\]/
          : /sent garbage: a message nested deeper than 64 levels at data\.arguments\[0\]/,
      );
      assert.equal(line.acts.filter((a) => a.act === "callTool").length, 0, "the tool never ran");
      // What the trial record holds of it can be written.
      assert.ok(JSON.stringify(line.acts).length < 10_000);
    } finally {
      await remote.close();
      await bot.stop();
    }
  });
}

Deno.test("eval against an agent sending 450k-deep tool calls records protocol_error and runs on", async () => {
  const frame = deepToolCall(450_000, false);
  const bot = fakeBot((socket, data) => {
    if (!handshake(socket, data)) socket.send(frame);
  });
  try {
    const r = await cli([
      "eval",
      "--agent",
      bot.url,
      "--scenarios",
      "eva_airline__1_4_1,eva_airline__2_5_1",
      "--concurrency",
      "1",
    ]);
    const records = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
    assert.equal(records.length, 2, r.stderr);
    for (const record of records) {
      assert.equal(record.status, "error");
      assert.equal(record.error.kind, "protocol_error");
      assert.match(record.error.message, /nested deeper than 64 levels/);
    }
    assert.equal(r.code, 1, "every trial broke");
  } finally {
    await bot.stop();
  }
});

// ---- connecting: fail fast on a refusal, bounded retries, one attempt once known down ---

/** An HTTP server that answers every request with `status` and counts them. */
function statusServer(status: number) {
  let requests = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, () => {
    requests++;
    return new Response("no", { status });
  });
  return {
    url: `ws://127.0.0.1:${server.addr.port}/ws`,
    get requests() {
      return requests;
    },
    stop: () => server.shutdown(),
  };
}

for (
  const [status, kind] of [
    [404, "agent_unreachable"],
    [400, "agent_unreachable"],
    [401, "agent_unauthorized"],
    [403, "agent_unauthorized"],
  ] as const
) {
  Deno.test(`HTTP ${status} to the upgrade is ${kind} at once, not retried`, async () => {
    const server = statusServer(status);
    const remote = new RemoteParticipant({ url: server.url, connectAttempts: 5, token: "t0k" });
    try {
      await assert.rejects(
        remote.start(new RecordingLine(), SETUP),
        (e: unknown) =>
          e instanceof ParticipantError && e.kind === kind &&
          new RegExp(`HTTP ${status}`).test(e.message) && !/t0k/.test(e.message),
      );
      assert.equal(server.requests, 1);
    } finally {
      await remote.close();
      await server.stop();
    }
  });
}

Deno.test("HTTP 503 to the upgrade is retried up to the attempts", async () => {
  const server = statusServer(503);
  const remote = new RemoteParticipant({ url: server.url, connectAttempts: 3, retryDelayMs: 1 });
  try {
    await assert.rejects(
      remote.start(new RecordingLine(), SETUP),
      (e: unknown) =>
        e instanceof ParticipantError && e.kind === "agent_unreachable" &&
        /after 3 attempt\(s\): Unexpected server response: 503/.test(e.message),
    );
    assert.equal(server.requests, 3);
  } finally {
    await remote.close();
    await server.stop();
  }
});

/** A socket that refuses, or answers the handshake like a bot, without any network. */
class FakeSocket implements ClientSocket {
  readyState = 0;
  binaryType = "blob";
  onmessage: ClientSocket["onmessage"] = null;
  onclose: ClientSocket["onclose"] = null;
  onerror: ClientSocket["onerror"] = null;
  #onopen: ClientSocket["onopen"] = null;
  readonly #up: boolean;

  constructor(up: boolean) {
    this.#up = up;
  }

  get onopen(): ClientSocket["onopen"] {
    return this.#onopen;
  }

  /** The participant sets `onopen` last: the outcome follows on a microtask. */
  set onopen(handler: ClientSocket["onopen"]) {
    this.#onopen = handler;
    queueMicrotask(() => {
      if (this.#up) {
        this.readyState = 1;
        return this.#onopen?.({});
      }
      this.readyState = 3;
      this.onerror?.({ message: "connect ECONNREFUSED" });
      this.onclose?.({ code: 1006, reason: "" });
    });
  }

  send(data: string | Uint8Array): void {
    const msg = JSON.parse(data as string);
    const reply = msg.type === "client-ready"
      ? rtvi("bot-ready", { version: "2.1.0" }, msg.id)
      : msg.data?.t === "update_system_prompt"
      ? rtvi("server-response", { t: msg.data.t, d: true }, msg.id)
      : undefined;
    if (reply) queueMicrotask(() => this.onmessage?.({ data: JSON.stringify(reply) }));
  }

  close(): void {
    if (this.readyState === 3) return;
    this.readyState = 3;
    queueMicrotask(() => this.onclose?.({ code: 1000, reason: "" }));
  }
}

/** Starts `remote` on a simulated clock; returns the simulated time it took and the error. */
async function startOnSimClock(remote: RemoteParticipant) {
  const clock = new SimClock();
  let done = false;
  let error: unknown;
  const started = remote.start(new RecordingLine("agent", clock), SETUP)
    .catch((e) => (error = e))
    .finally(() => (done = true));
  await clock.run(() => done);
  await started;
  return { ms: clock.now(), error };
}

Deno.test("an unreachable agent costs one short back-off, then one attempt per trial until it answers", async () => {
  const url = "ws://agent.invalid:1/ws";
  let attempts = 0;
  let up = false;
  const connect = () => {
    attempts++;
    return new FakeSocket(up);
  };
  // Defaults: 3 attempts, 250 ms then 500 ms between them, on the simulated clock.
  const first = await startOnSimClock(new RemoteParticipant({ url, connect }));
  assert.ok(first.error instanceof ParticipantError && first.error.kind === "agent_unreachable");
  assert.match(first.error.message, /after 3 attempt\(s\): connect ECONNREFUSED/);
  assert.equal(attempts, 3);
  assert.equal(first.ms, 750);

  attempts = 0;
  const second = await startOnSimClock(new RemoteParticipant({ url, connect }));
  assert.ok(second.error instanceof ParticipantError);
  assert.match(
    second.error.message,
    /after 1 attempt\(s\) \(it was unreachable for an earlier trial\)/,
  );
  assert.equal(attempts, 1);
  assert.equal(second.ms, 0, "no back-off for a URL known to be down");

  up = true;
  attempts = 0;
  const remote = new RemoteParticipant({ url, connect });
  const third = await startOnSimClock(remote);
  assert.equal(third.error, undefined);
  assert.equal(attempts, 1);
  await remote.close();

  up = false;
  attempts = 0;
  await startOnSimClock(new RemoteParticipant({ url, connect }));
  assert.equal(attempts, 3, "once it answered, the full retries apply again");
});

// ---- Nagle: the client's sockets must not wait for delayed ACKs ------------------------

Deno.test("frames of 2 KB to 64 KB make a loopback round trip in under 20 ms (median), not Nagle's 40", async () => {
  let replies = 0;
  const bot = fakeBot((socket, data) => {
    if (handshake(socket, data)) return;
    if (JSON.parse(data).type !== "send-text") return;
    // Bracketed, so the turn ends at once (no fragment gap to wait out).
    socket.send(JSON.stringify(rtvi("bot-started-speaking")));
    socket.send(JSON.stringify(rtvi("bot-output", { text: `reply ${++replies}` })));
    socket.send(JSON.stringify(rtvi("bot-stopped-speaking")));
  });
  const remote = new RemoteParticipant({ url: bot.url });
  const line = new RecordingLine();
  try {
    await remote.start(line, SETUP);
    for (const size of [2 << 10, 16 << 10, 64 << 10]) {
      const text = "x".repeat(size);
      const times: number[] = [];
      for (let i = 0; i < 9; i++) {
        const expect = `reply ${replies + 1}`;
        const t0 = performance.now();
        remote.onEvent({ type: "speech", at: 0, text });
        await line.when(said(expect));
        times.push(performance.now() - t0);
      }
      times.sort((a, b) => a - b);
      const median = times[times.length >> 1]!;
      // Nagle's algorithm against a delayed ACK costs about 40 ms a frame; without it a
      // round trip is 1-2 ms idle, and the bound leaves room for a loaded machine.
      assert.ok(median < 20, `${size} B: median round trip ${median.toFixed(2)} ms`);
    }
  } finally {
    await remote.close();
    await bot.stop();
  }
});

Deno.test("the reply to update_system_prompt is optional; a refusal, even late, fails with its words", async () => {
  let promptId = "";
  let socketOf: WebSocket | undefined;
  const bot = fakeBot((socket, data) => {
    const msg = JSON.parse(data);
    socketOf = socket;
    if (msg.type === "client-ready") {
      socket.send(JSON.stringify(rtvi("bot-ready", { version: "2.1.0" }, msg.id)));
    }
    // Silence to the prompt, as a reference bot may keep.
    if (msg.type === "client-message" && msg.data.t === "update_system_prompt") promptId = msg.id;
  });
  const clock = new SimClock();
  const remote = new RemoteParticipant({ url: bot.url, replyTimeoutMs: 100 });
  const line = new RecordingLine("agent", clock);
  try {
    const started = remote.start(line, SETUP);
    // Only the short wait for the reply passes on the line's clock, then the call starts.
    for (let i = 0; i < 100 && promptId === ""; i++) await new Promise((r) => setTimeout(r, 5));
    await clock.advance(1000);
    await started;
    // A long call: far past every reply timeout, silence is still no failure.
    await clock.advance(3_600_000);
    assert.deepEqual(line.acts.filter((a) => a.act === "fail"), []);
    socketOf!.send(
      JSON.stringify(rtvi("error-response", { error: "no such tool: Foo" }, promptId)),
    );
    const fail = await line.when((a) => a.act === "fail");
    assert.equal((fail as { kind: string }).kind, "protocol_error");
    assert.match((fail as { message: string }).message, /update_system_prompt: no such tool: Foo/);
  } finally {
    await remote.close();
    await bot.stop();
  }
});

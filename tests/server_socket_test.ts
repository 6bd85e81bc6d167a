/**
 * The bot server on real sockets (127.0.0.1, a free port): handshake and replies in
 * both framings, many sessions at once, the token on upgrade, a clean shutdown.
 */
import assert from "node:assert/strict";
import { InputError } from "../src/problem/problem.ts";
import { rtvi } from "../src/protocol/messages.ts";
import { serve } from "../src/server/serve.ts";
import { echoServer, RawClient } from "./_wire.ts";

for (const framing of ["json", "protobuf"] as const) {
  Deno.test(`a ${framing} client gets bot-ready and bot speech over a real socket`, async () => {
    const server = await echoServer();
    const client = new RawClient(server.url, framing);
    try {
      await client.opened;
      client.send(rtvi("client-ready", { version: "2.1.0", about: { library: "test" } }, "r1"));
      const ready = await client.next((m) => m.type === "bot-ready");
      assert.equal(ready.id, "r1");
      client.send(rtvi("send-text", { content: "hello" }, "s1"));
      const output = await client.next((m) => m.type === "bot-output");
      assert.equal((output.data as { text: string }).text, "you said: hello");
      await client.next((m) => m.type === "bot-stopped-speaking");
      client.send(rtvi("client-message", { t: "get_context_history", d: {} }, "c1"));
      const history = await client.next((m) => m.id === "c1");
      assert.equal(history.type, "server-response");
    } finally {
      await client.close();
      await server.shutdown();
    }
  });
}

Deno.test("fifty concurrent sessions each get their own participant and replies", async () => {
  const server = await echoServer();
  const clients = Array.from({ length: 50 }, () => new RawClient(server.url));
  try {
    await Promise.all(clients.map((c) => c.opened));
    clients.forEach((c, i) => c.send(rtvi("send-text", { content: `caller ${i}` }, `s${i}`)));
    const outputs = await Promise.all(clients.map((c) => c.next((m) => m.type === "bot-output")));
    outputs.forEach((m, i) =>
      assert.equal((m.data as { text: string }).text, `you said: caller ${i}`)
    );
    assert.equal(server.sessions.size, 50);
    assert.equal(server.hosted.length, 50);
  } finally {
    await Promise.all(clients.map((c) => c.close()));
    await server.shutdown();
  }
});

Deno.test("shutdown closes open sessions with 1001 and ends their calls", async () => {
  const server = await echoServer();
  const client = new RawClient(server.url);
  await client.opened;
  client.send(rtvi("send-text", { content: "hi" }, "s1"));
  await client.next((m) => m.type === "bot-output");
  await server.shutdown();
  const closed = await client.closed;
  assert.equal(closed.code, 1001);
  const echo = server.hosted[0]!.participant;
  assert.equal(echo.events.at(-1)?.type, "hangup");
  assert.equal(echo.closed, true);
});

Deno.test("binding a non-loopback address without a token is refused", async () => {
  for (const hostname of ["0.0.0.0", "192.168.1.10", "::"]) {
    await assert.rejects(
      () => serve({ hostname, port: 0, factory: () => Promise.reject(new Error("unused")) }),
      (e: unknown) => e instanceof InputError && /needs a token/.test(e.message),
    );
  }
});

Deno.test("with a token, the upgrade is refused without it and accepted with it", async () => {
  const server = await echoServer({ token: "t0ken" });
  try {
    const refused = new RawClient(server.url);
    await assert.rejects(refused.opened);
    await refused.closed;
    const wrong = new RawClient(`${server.url}?token=nope`);
    await assert.rejects(wrong.opened);
    await wrong.closed;
    const accepted = new RawClient(`${server.url}?token=t0ken`);
    await accepted.opened;
    accepted.send(rtvi("client-ready", { version: "2.1.0" }, "r1"));
    assert.equal((await accepted.next((m) => m.type === "bot-ready")).id, "r1");
    await accepted.close();
    assert.equal(server.hosted.length, 0);
  } finally {
    await server.shutdown();
  }
});

Deno.test("/health answers over HTTP on the same port", async () => {
  const server = await echoServer();
  try {
    const res = await fetch(`http://127.0.0.1:${server.port}/health`);
    const body = await res.json();
    assert.equal(body.status, "ok");
    assert.equal(body.sessions, 0);
  } finally {
    await server.shutdown();
  }
});

Deno.test("serve() refuses a blank token and one a Bearer header could not carry", async () => {
  for (const token of ["", " ", "\t", " secret", "secret\n"]) {
    await assert.rejects(
      () => serve({ hostname: "127.0.0.1", port: 0, token, factory: () => Promise.reject() }),
      (e: unknown) => e instanceof InputError && /token/.test(e.message),
      JSON.stringify(token),
    );
  }
});

/**
 * The Node path: `createApp` mounted on `@hono/node-server` with `@hono/node-ws`
 * (run here under Deno's Node compatibility), completing handshakes in both framings.
 */
import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
// deno-lint-ignore no-import-prefix -- test-only: kept out of the import map so a first run does not download it
import { serve } from "npm:@hono/node-server@2.1.9";
// deno-lint-ignore no-import-prefix -- test-only: kept out of the import map so a first run does not download it
import { createNodeWebSocket } from "npm:@hono/node-ws@1.3.1";
import { Hono } from "hono";
import { rtvi } from "../src/protocol/messages.ts";
import { EchoParticipant } from "../src/server/_echo_participant.ts";
import { createApp } from "../src/server/app.ts";
import { RawClient } from "./_wire.ts";

Deno.test("createApp serves RTVI sessions on a Node server with @hono/node-ws", async () => {
  const outer = new Hono();
  const { upgradeWebSocket, injectWebSocket } = createNodeWebSocket({ app: outer });
  outer.route("/", createApp({ upgradeWebSocket, factory: () => new EchoParticipant() }));
  const { server, port } = await new Promise<{ server: ReturnType<typeof serve>; port: number }>(
    (resolve) => {
      const server = serve(
        { fetch: outer.fetch, port: 0, hostname: "127.0.0.1" },
        (info: AddressInfo) => resolve({ server, port: info.port }),
      );
    },
  );
  injectWebSocket(server);
  const clients = [
    new RawClient(`ws://127.0.0.1:${port}/ws`, "json"),
    new RawClient(`ws://127.0.0.1:${port}/ws`, "protobuf"),
  ];
  try {
    const health = await fetch(`http://127.0.0.1:${port}/health`);
    assert.equal((await health.json()).status, "ok");
    for (const client of clients) {
      await client.opened;
      client.send(rtvi("client-ready", { version: "2.1.0" }, `r-${client.framing}`));
      const ready = await client.next((m) => m.type === "bot-ready");
      assert.equal(ready.id, `r-${client.framing}`);
      client.send(rtvi("send-text", { content: client.framing }, "s1"));
      const out = await client.next((m) => m.type === "bot-output");
      assert.equal((out.data as { text: string }).text, `you said: ${client.framing}`);
    }
  } finally {
    await Promise.all(clients.map((c) => c.close()));
    await new Promise((resolve) => server.close(resolve));
  }
});

/**
 * `--tools-server` with an RTVI agent that runs its tools from its own backend: it
 * finds the call's MCP endpoint in `update_system_prompt`, calls a tool there, and the
 * call goes through the call's line (the trial's world); once the call is over the
 * token is refused.
 */
import assert from "node:assert/strict";
// deno-lint-ignore no-import-prefix -- kept out of the import map, so a first run does not download it
import { Client } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
// deno-lint-ignore no-import-prefix -- kept out of the import map, so a first run does not download it
import { StreamableHTTPClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/streamableHttp.js";
import type { CallSetup } from "../src/bridge/call.ts";
import { rtvi } from "../src/protocol/messages.ts";
import { RemoteParticipant } from "../src/participants/remote.ts";
import { ToolsServedAgent } from "../src/runner/served_tools.ts";
import { ToolsServer } from "../src/tools_server/tools_server.ts";
import { RecordingLine } from "./_wire.ts";

const SETUP: CallSetup = {
  side: "agent",
  scenario: "test_counter__add_five",
  domain: "test_counter",
  prompt: "You keep a counter.",
  tools: [{
    name: "add",
    description: "Add n to the counter.",
    parameters: { type: "object", properties: { n: { type: "integer" } } },
  }],
  seed: "5eed",
};

Deno.test("--tools-server: an RTVI agent calls its tool over the call's MCP endpoint; the token dies with the call", async () => {
  let endpoint: { url: string; token: string } | undefined;
  const results: unknown[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const { socket, response } = Deno.upgradeWebSocket(req);
    socket.onmessage = async (e) => {
      const msg = JSON.parse(e.data as string);
      if (msg.type === "client-ready") {
        socket.send(JSON.stringify(rtvi("bot-ready", { version: "2.1.0" }, msg.id)));
      }
      if (msg.type === "client-message" && msg.data.t === "update_system_prompt") {
        endpoint = msg.data.d.tools_server;
        socket.send(JSON.stringify(rtvi("server-response", { t: msg.data.t, d: true }, msg.id)));
        // Its own backend calls the tool, then it ends the call.
        const client = new Client({ name: "bot-backend", version: "1" });
        await client.connect(new StreamableHTTPClientTransport(new URL(endpoint!.url)));
        const r = await client.callTool({ name: "add", arguments: { n: 5 } });
        results.push(r.structuredContent);
        await client.close();
        socket.send(JSON.stringify(rtvi("server-message", { type: "end", reason: "done" })));
      }
    };
    return response;
  });
  const tools = ToolsServer.start();
  const agent = new ToolsServedAgent(
    new RemoteParticipant({ url: `ws://127.0.0.1:${server.addr.port}/ws` }),
    tools,
  );
  const line = new RecordingLine("agent");
  line.tool = (name, args) => ({ ok: true, result: { ran: name, args } });
  try {
    await agent.start(line, SETUP);
    assert.ok(endpoint, "the endpoint came with update_system_prompt");
    assert.match(endpoint.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp\/[0-9a-f]{48}$/);
    assert.equal(agent.info.settings?.tools_server, tools.baseUrl);
    await line.when((a) => a.act === "hangUp", 5000);
    assert.deepEqual(line.acts.filter((a) => a.act === "callTool"), [
      { act: "callTool", name: "add", args: { n: 5 } },
    ]);
    assert.deepEqual(results, [{ ran: "add", args: { n: 5 } }]);
    agent.onEvent({ type: "hangup", at: 0, by: "agent", reason: "done" });
    const after = await fetch(endpoint.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
    });
    assert.equal(after.status, 401, "closed with the call");
    await after.body?.cancel();
  } finally {
    await agent.close();
    await tools.close();
    await server.shutdown();
  }
});

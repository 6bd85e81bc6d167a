/**
 * `serve --tools-server`: each served session gets its own MCP endpoint, named in its
 * `bot-ready`. A backend that calls the session's tools there runs them in the session's
 * world (the one a reference-style client loaded), so the session's summary ends on the
 * scenario's expected hash with every call in its actions; another session's token is
 * refused, and a session's token dies with the session. Over real sockets: the bot
 * server, the tools server and the MCP SDK's client.
 */
import assert from "node:assert/strict";
// deno-lint-ignore no-import-prefix -- test-only package, kept out of the import map
import { Client } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
// deno-lint-ignore no-import-prefix -- test-only package, kept out of the import map
import { StreamableHTTPClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/streamableHttp.js";
import { rtvi, type RtviMessage } from "../src/protocol/messages.ts";
import { BUNDLED_DATA_ROOT, DataRoot } from "../src/scenario/data_root.ts";
import type { Scenario } from "../src/scenario/scenario.ts";
import { ToolsServer } from "../src/tools_server/tools_server.ts";
import { RawClient } from "./_wire.ts";
import { changingScenarios, serveBuiltin } from "./_serve.ts";
import { cli } from "./_cli.ts";
import { spawnServe } from "./_serve_process.ts";
import { taskFlags } from "./_tasks.ts";

const root = new DataRoot(BUNDLED_DATA_ROOT);

let n = 0;
async function request(c: RawClient, t: string, d: unknown = {}): Promise<RtviMessage> {
  const id = `q${++n}`;
  c.send(rtvi("client-message", { t, d }, id));
  return await c.next((m) => m.id === id && m.type.endsWith("-response"));
}

/** A session set up as the reference runner sets up its agent bot: prompt, tools, world. */
async function referenceSession(
  url: string,
  scenario: Scenario,
): Promise<{ client: RawClient; endpoint: { url: string; token: string } }> {
  const client = new RawClient(url);
  await client.opened;
  client.send(rtvi("client-ready", { version: "2.1.0" }, "ready"));
  const ready = await client.next((m) => m.type === "bot-ready");
  const endpoint = (ready.data as { tools_server?: { url: string; token: string } }).tools_server;
  assert.ok(endpoint, `bot-ready names the session's tools endpoint: ${JSON.stringify(ready)}`);
  const tools = Object.fromEntries(scenario.agent.tools.map((t) => [t, {}]));
  const prompt = await request(client, "update_system_prompt", {
    prompt: "You are the agent.",
    tools: JSON.stringify(tools),
    add_suffix: false,
    tool_domain: scenario.domain,
  });
  assert.equal(prompt.type, "server-response", JSON.stringify(prompt));
  const db = scenario.world.db;
  const shared = db && "path" in db ? { db_path: db.path } : { db: db?.inline };
  const init = await request(client, "apply_initialization", {
    domain: scenario.domain,
    shared_state_init: JSON.stringify({ ...shared, today: scenario.today }),
    actions: scenario.initialization_actions.filter((a) => a.side === "agent"),
  });
  assert.equal((init.data as { d: { success: boolean } }).d.success, true, JSON.stringify(init));
  return { client, endpoint };
}

async function mcpClient(url: string): Promise<Client> {
  const client = new Client({ name: "agent-backend", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/** A raw `tools/list` POST with `token` as a bearer; its HTTP status. */
async function listStatus(baseUrl: string, token: string): Promise<number> {
  const r = await fetch(baseUrl, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
  });
  await r.body?.cancel();
  return r.status;
}

Deno.test("serve --tools-server: a session's backend runs the reference actions over MCP and the session's world ends on the expected hash", async () => {
  const [scenario, other] = await changingScenarios(root, "eva_airline", 2);
  assert.ok(scenario?.expect.reference_actions && other, "two eva fixtures that change the world");
  const tools = ToolsServer.start();
  const server = await serveBuiltin(root, { session: { tools }, defaultAgent: "noop" });
  try {
    const a = await referenceSession(server.url, scenario);
    const b = await referenceSession(server.url + "?session=b", other);
    assert.notEqual(a.endpoint.token, b.endpoint.token);
    assert.equal(a.endpoint.url, `${tools.baseUrl}/${a.endpoint.token}`);

    const backend = await mcpClient(a.endpoint.url);
    const listed = await backend.listTools();
    assert.deepEqual(
      listed.tools.map((t: { name: string }) => t.name).sort(),
      [...scenario.agent.tools].sort(),
    );
    assert.ok(
      listed.tools.every((t: { inputSchema: { type: string } }) => t.inputSchema.type === "object"),
    );
    const called: string[] = [];
    for (const action of scenario.expect.reference_actions!.filter((x) => x.side === "agent")) {
      const r = await backend.callTool({
        name: action.name,
        arguments: action.arguments as Record<string, unknown>,
      });
      called.push(action.name);
      assert.notEqual(r.isError, true, `${action.name}: ${JSON.stringify(r.content)}`);
    }
    const unknown = await backend.callTool({ name: "no_such_tool", arguments: {} });
    assert.equal(unknown.isError, true);
    assert.equal(
      (unknown.structuredContent as { error_type?: string } | undefined)?.error_type,
      "unknown_tool",
    );
    await backend.close();

    // The session's own state has the calls: its hash is the scenario's expected one.
    const summary = await request(a.client, "get_scenario_summary", { include_db: false });
    const d = (summary.data as { d: { db_hash: string; actions: { action_type: string }[] } }).d;
    assert.equal(d.db_hash, scenario.expect.db_sha256);
    assert.ok(d.actions.length > 0 && d.actions.every((x) => typeof x.action_type === "string"));
    for (let i = 0; i < d.actions.length; i++) {
      await a.client.next((m) =>
        m.type === "server-message" && (m.data as { type?: string }).type === "action-applied"
      );
    }
    // A write shows in the client's stream as it does for the hosted agent's own calls.
    const history = await request(a.client, "get_context_history");
    const context = JSON.parse(
      JSON.parse((history.data as { d: { context: string } }).d.context),
    ) as { role: string; name?: string }[];
    assert.deepEqual(context.filter((e) => e.role === "tool").map((e) => e.name), called);
    // Session b's world was not touched.
    const otherSummary = await request(b.client, "get_scenario_summary", { include_db: false });
    assert.deepEqual((otherSummary.data as { d: { actions: unknown[] } }).d.actions, []);

    // Another session's token is not this one's: a's path with b's bearer is refused,
    // and each works only as itself.
    assert.equal(await listStatus(`${tools.baseUrl}/${a.endpoint.token}`, b.endpoint.token), 200);
    assert.equal(await listStatus(tools.baseUrl, b.endpoint.token), 200);
    assert.equal(await listStatus(tools.baseUrl, "0".repeat(48)), 401);

    // The session is freed with disconnect-bot: its token dies with it; b's lives on.
    a.client.send(rtvi("disconnect-bot", {}, "bye"));
    await a.client.closed;
    for (let i = 0; i < 100 && tools.open > 1; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(tools.open, 1);
    assert.equal(await listStatus(tools.baseUrl, a.endpoint.token), 401);
    assert.equal(await listStatus(tools.baseUrl, b.endpoint.token), 200);
    await b.client.close();
  } finally {
    await server.shutdown();
    await tools.close();
  }
  assert.equal(tools.open, 0, "shutdown frees every session's endpoint");
});

Deno.test("serve --tools-server: a tool called before any setup, or on a session without a world, is answered, not run", async () => {
  const tools = ToolsServer.start();
  const server = await serveBuiltin(root, { session: { tools }, defaultAgent: "noop" });
  try {
    const client = new RawClient(server.url);
    await client.opened;
    client.send(rtvi("client-ready", { version: "2.1.0" }, "ready"));
    const ready = await client.next((m) => m.type === "bot-ready");
    const endpoint = (ready.data as { tools_server: { url: string } }).tools_server;
    const backend = await mcpClient(endpoint.url);
    assert.deepEqual((await backend.listTools()).tools, []);
    const early = await backend.callTool({ name: "add", arguments: {} });
    assert.equal(early.isError, true);
    assert.equal((early.structuredContent as { error_type: string }).error_type, "no_call");
    // With a setup but no world, the call goes to the client, as the hosted agent's own do.
    await request(client, "update_system_prompt", {
      prompt: "You are the agent.",
      tools: JSON.stringify([{
        name: "lookup",
        description: "Look up.",
        parameters: { type: "object", properties: {} },
      }]),
      add_suffix: false,
      tool_domain: "default",
    });
    const pending = backend.callTool({ name: "lookup", arguments: { q: 1 } });
    const asked = await client.next((m) => m.type === "llm-function-call-in-progress");
    const data = asked.data as { tool_call_id: string; function_name: string; arguments: unknown };
    assert.equal(data.function_name, "lookup");
    assert.deepEqual(data.arguments, { q: 1 });
    client.send(rtvi("llm-function-call-result", {
      function_name: "lookup",
      tool_call_id: data.tool_call_id,
      arguments: data.arguments,
      result: { found: true },
    }, "res"));
    const r = await pending;
    assert.deepEqual(r.structuredContent, { found: true });
    await backend.close();
    await client.close();
  } finally {
    await server.shutdown();
    await tools.close();
  }
});

Deno.test("deno task serve --tools-server: the process names the tools server and each session its endpoint", async () => {
  const { child, url, seen } = await spawnServe([
    "run",
    ...taskFlags("serve"),
    "cli.ts",
    "serve",
    "--port",
    "0",
    "--agent",
    "noop",
    "--tools-server",
  ]);
  try {
    assert.ok(url, seen);
    const base = /session tools over MCP at (http:\/\/127\.0\.0\.1:\d+\/mcp)\)/.exec(seen)?.[1];
    const client = new RawClient(url);
    await client.opened;
    client.send(rtvi("client-ready", { version: "2.1.0" }, "r"));
    const ready = await client.next((m) => m.type === "bot-ready");
    const endpoint = (ready.data as { tools_server: { url: string; token: string } }).tools_server;
    assert.ok(base, seen);
    assert.equal(endpoint.url, `${base}/${endpoint.token}`);
    const backend = await mcpClient(endpoint.url);
    assert.deepEqual((await backend.listTools()).tools, []);
    await backend.close();
    await client.close();
  } finally {
    child.kill("SIGTERM");
    assert.equal((await child.status).code, 0);
  }
});

Deno.test("serve --tools-host without --tools-server is a usage error", async () => {
  const r = await cli(["serve", "--tools-host", "127.0.0.1", "--port", "0"]);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /--tools-host.*needs --tools-server/);
});

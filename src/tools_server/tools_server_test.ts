import assert from "node:assert/strict";
// deno-lint-ignore no-import-prefix -- kept out of the import map, so a first run does not download it
import { Client } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
// deno-lint-ignore no-import-prefix -- kept out of the import map, so a first run does not download it
import { StreamableHTTPClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/streamableHttp.js";
import type { ToolCallReply, ToolSpec } from "../bridge/call.ts";
import { ToolsServer, type TrialTools } from "./tools_server.ts";

const TOOLS: ToolSpec[] = [{
  name: "add",
  description: "Add n to the counter.",
  parameters: {
    type: "object",
    properties: { n: { type: "integer" } },
    required: ["n"],
    additionalProperties: false,
  },
}];

/** A call's tools in miniature: a counter, and unknown_tool for anything else. */
function trial(): TrialTools & { count: number; calls: string[] } {
  const t = {
    tools: TOOLS,
    count: 0,
    calls: [] as string[],
    callTool(name: string, args: unknown): Promise<ToolCallReply> {
      t.calls.push(name);
      if (name !== "add") {
        return Promise.resolve({
          ok: false,
          result: { status: "error", error_type: "unknown_tool", message: `no tool ${name}` },
        });
      }
      t.count += (args as { n: number }).n;
      return Promise.resolve({ ok: true, result: { count: t.count } });
    },
  };
  return t;
}

async function client(url: string, headers: Record<string, string> = {}) {
  const c = new Client({ name: "test-agent", version: "1" });
  await c.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return c;
}

Deno.test("tools server: tools/list is the call's tools with their JSON Schemas; tools/call runs them on the call's line", async () => {
  const server = ToolsServer.start();
  const t = trial();
  const reg = server.register(t);
  try {
    const c = await client(reg.url);
    const listed = await c.listTools();
    const tools = listed.tools as { name: string; description?: string; inputSchema: unknown }[];
    assert.deepEqual(tools.map((x) => [x.name, x.description, x.inputSchema]), [
      ["add", "Add n to the counter.", TOOLS[0]!.parameters],
    ]);
    const r = await c.callTool({ name: "add", arguments: { n: 5 } });
    assert.equal(r.isError, false);
    assert.deepEqual(r.structuredContent, { count: 5 });
    assert.deepEqual(JSON.parse((r.content as { text: string }[])[0]!.text), { count: 5 });
    const unknown = await c.callTool({ name: "launch_rockets", arguments: {} });
    assert.equal(unknown.isError, true);
    assert.equal((unknown.structuredContent as { error_type: string }).error_type, "unknown_tool");
    assert.deepEqual(t.calls, ["add", "launch_rockets"]);
    await c.close();
    // The shared URL with the call's token as a bearer reaches the same call.
    const b = await client(reg.baseUrl, { Authorization: `Bearer ${reg.token}` });
    await b.callTool({ name: "add", arguments: { n: 1 } });
    assert.equal(t.count, 6);
    await b.close();
  } finally {
    reg.close();
    await server.close();
  }
});

Deno.test("tools server: another call's token, a closed call's, or none is refused; sizes and rates are bounded", async () => {
  const server = ToolsServer.start({ maxBodyBytes: 4096, maxRequestsPerSecond: 5 });
  const mine = trial();
  const other = trial();
  const a = server.register(mine);
  const b = server.register(other);
  const post = (url: string, body: string, headers: Record<string, string> = {}) =>
    fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...headers,
      },
      body,
    });
  const list = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });
  try {
    assert.equal(a.token === b.token, false);
    const none = await post(a.baseUrl, list);
    assert.equal(none.status, 401);
    await none.body?.cancel();
    const wrong = await post(a.baseUrl, list, { Authorization: `Bearer ${"0".repeat(48)}` });
    assert.equal(wrong.status, 401);
    await wrong.body?.cancel();
    // Call b's token only reaches call b.
    const call = JSON.stringify({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "add", arguments: { n: 2 } },
    });
    const viaB = await post(b.url, call);
    assert.equal(viaB.status, 200, await viaB.text());
    assert.deepEqual([mine.count, other.count], [0, 2]);
    const big = await post(a.url, JSON.stringify({ pad: "x".repeat(10_000) }));
    assert.equal(big.status, 413);
    await big.body?.cancel();
    const deep = await post(a.url, "[".repeat(200) + "]".repeat(200));
    assert.equal(deep.status, 400);
    assert.match(await deep.text(), /nested deeper than 64/);
    // Past the rate: 429 (the bucket holds 5; two were spent above).
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) {
      const r = await post(a.url, list);
      statuses.push(r.status);
      await r.body?.cancel();
    }
    assert.ok(statuses.includes(429), statuses.join(","));
    // A closed call's token is refused.
    b.close();
    const closed = await post(b.url, list);
    assert.equal(closed.status, 401);
    await closed.body?.cancel();
    assert.equal(server.open, 1);
  } finally {
    a.close();
    await server.close();
  }
});

/**
 * `--tools-server` for a SIP agent: the INVITE's `X-Callbench-Tools` header carries the
 * call's MCP endpoint; the agent's own backend calls its tool there (the call runs on
 * the trial's line) and the agent then hangs up with BYE (`agent_end`).
 */
import assert from "node:assert/strict";
// deno-lint-ignore no-import-prefix -- kept out of the import map, so a first run does not download it
import { Client } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
// deno-lint-ignore no-import-prefix -- kept out of the import map, so a first run does not download it
import { StreamableHTTPClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/streamableHttp.js";
import type { CallSetup } from "../src/bridge/call.ts";
import { RealClock } from "../src/clock/clock.ts";
import { ToolsServedAgent } from "../src/runner/served_tools.ts";
import { ToolsServer } from "../src/tools_server/tools_server.ts";
import { SipParticipant } from "../src/transport/sip.ts";
import { startSipAgent } from "./_sip_agent.ts";
import { RecordingLine } from "./_wire.ts";
import { cli } from "./_cli.ts";
import { BUNDLED_DATA_ROOT, DataRoot } from "../src/scenario/data_root.ts";
import { selectScenarios } from "../src/scenario/suites.ts";

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

Deno.test("--tools-server: a SIP agent finds its MCP endpoint in X-Callbench-Tools, its backend's call runs on the line, its BYE ends the call", async () => {
  const seen: (string | undefined)[] = [];
  const results: unknown[] = [];
  const agent = await startSipAgent({
    delays: [300],
    backend: async (url) => {
      seen.push(url);
      if (!url) return;
      const client = new Client({ name: "sip-agent-backend", version: "1" });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      const r = await client.callTool({ name: "add", arguments: { n: 5 } });
      results.push(r.structuredContent);
      await client.close();
    },
  });
  const tools = ToolsServer.start();
  const participant = new ToolsServedAgent(new SipParticipant({ uri: agent.uri }), tools);
  const line = new RecordingLine("agent", new RealClock());
  line.tool = (name, args) => ({ ok: true, result: { ran: name, args } });
  try {
    await participant.start(line, SETUP);
    participant.onEvent({ type: "call_start", at: 0 } as never);
    const hangUp = await line.when((a) => a.act === "hangUp", 8000);
    assert.ok(hangUp.act === "hangUp" && hangUp.agentEnd, "the agent's BYE is agent_end");
    assert.equal(seen.length, 1);
    assert.match(seen[0] ?? "", /^http:\/\/127\.0\.0\.1:\d+\/mcp\/[0-9a-f]{48}$/);
    assert.deepEqual(line.acts.filter((a) => a.act === "callTool"), [
      { act: "callTool", name: "add", args: { n: 5 } },
    ]);
    assert.deepEqual(results, [{ ran: "add", args: { n: 5 } }]);
    // The record names the shared endpoint, never the token.
    assert.equal(participant.info.settings?.tools_server, tools.baseUrl);
    assert.ok(!JSON.stringify(participant.info).includes(seen[0]!.split("/").pop()!));
  } finally {
    await participant.close();
    await tools.close();
    await agent.close();
  }
});

Deno.test("eval --audio --tools-server --agent sip: a SIP agent whose backend runs the reference actions over MCP ends on the expected hash, every call in the record; a forged token is refused", async () => {
  const root = new DataRoot(BUNDLED_DATA_ROOT);
  const [scenario] = (await selectScenarios(root, { scenarios: ["eva_airline__1_4_1"] })).scenarios;
  assert.ok(scenario);
  const reference = (scenario.expect.reference_actions ?? []).filter((a) =>
    a.side === "agent" && a.name !== "end_conversation"
  );
  assert.ok(reference.length >= 2);
  let forgedStatus: number | undefined;
  const agent = await startSipAgent({
    delays: [300],
    backend: async (url) => {
      if (!url) return;
      const client = new Client({ name: "sip-agent-backend", version: "1" });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      for (const a of reference) {
        await client.callTool({ name: a.name, arguments: a.arguments as Record<string, unknown> });
      }
      await client.close();
      // Another call's (here: a made-up) token gets nothing.
      const forged = await fetch(url.replace(/[0-9a-f]{48}$/, "f".repeat(48)), {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
      });
      forgedStatus = forged.status;
      await forged.body?.cancel();
    },
  });
  try {
    const r = await cli([
      "eval",
      "--audio",
      "--tools-server",
      "--agent",
      agent.uri,
      "--scenarios",
      scenario.name,
    ]);
    const records = r.stdout.trim().split("\n").filter((l) => l).map((l) => JSON.parse(l));
    assert.equal(records.length, 1, r.stderr);
    const record = records[0];
    assert.equal(record.status, "completed", JSON.stringify(record.error) + r.stderr);
    assert.equal(record.stop_reason, "agent_end", "the agent's BYE");
    assert.equal(record.final.db_sha256, scenario.expect.db_sha256, "the expected hash");
    const agentCalls = record.tool_calls.filter((t: { side: string }) => t.side === "agent");
    assert.deepEqual(agentCalls.map((t: { name: string }) => t.name), reference.map((a) => a.name));
    assert.equal(forgedStatus, 401, "a forged token is refused");
  } finally {
    await agent.close();
  }
});

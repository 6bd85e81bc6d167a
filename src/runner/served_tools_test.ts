import assert from "node:assert/strict";
import type { Participant } from "../bridge/call.ts";
import { type ToolsRegistry, ToolsServedAgent } from "./served_tools.ts";

const registry: ToolsRegistry = {
  register: () => ({ url: "http://x/mcp/t", baseUrl: "http://x/mcp", token: "t", close() {} }),
};

Deno.test("ToolsServedAgent passes the bridge's flush to the agent it wraps (its turn in progress is not lost at the call's end)", async () => {
  const asked: boolean[] = [];
  const inner: Participant = {
    info: { kind: "remote" },
    start: () => Promise.resolve(),
    onEvent: () => {},
    flush: ({ wait }) => {
      asked.push(wait);
      return wait ? Promise.resolve() : undefined;
    },
    close: () => Promise.resolve(),
  };
  const agent = new ToolsServedAgent(inner, registry);
  await agent.flush({ wait: true });
  assert.equal(agent.flush({ wait: false }), undefined);
  assert.deepEqual(asked, [true, false]);
});

/**
 * The LLM agent and the LLM caller on a real call: the bridge on the wall clock, the
 * test counter world, and one fake model server per side. Needs
 * `--allow-net=127.0.0.1 --allow-env=NODE_ENV` (the environment reads NODE_ENV).
 */
import assert from "node:assert/strict";
import { DEFAULT_LIMITS, runCall } from "../src/bridge/bridge.ts";
import type { CallSetup, ToolSpec } from "../src/bridge/call.ts";
import { RealClock } from "../src/clock/clock.ts";
import { dbHash } from "../src/canonical/hash.ts";
import { Environment } from "../src/env/environment.ts";
import { OpenAiClient } from "../src/llm/openai.ts";
import { LlmAgent } from "../src/participants/llm_agent.ts";
import { LlmUser } from "../src/participants/llm_user.ts";
import { counterDomain } from "../src/testing/counter_domain.ts";
import { startFakeOpenAI } from "./fake_openai.ts";

const objectOf = (properties: Record<string, unknown>) => ({ type: "object", properties });
const addTool: ToolSpec = {
  name: "add",
  description: "Add n to the counter.",
  parameters: objectOf({ n: { type: "integer" } }),
};
const pressTool: ToolSpec = {
  name: "press_button",
  description: "Press a button on your device.",
  parameters: objectOf({ button: { type: "string" } }),
};

function setup(side: "agent" | "user", prompt: string, tools: ToolSpec[]): CallSetup {
  return { side, scenario: "llm_call", domain: "test_counter", prompt, tools, seed: "01" };
}

Deno.test("LLM agent and caller change the world through the bridge until the caller hangs up", async () => {
  await using agentModel = startFakeOpenAI({
    replies: [
      {
        content: "Counter desk, what can I do?",
        usage: { prompt_tokens: 20, completion_tokens: 8 },
      },
      { toolCalls: [{ name: "add", arguments: { n: 5 } }] },
      { content: "Done, the counter is at five. Please press ok on your device." },
    ],
  });
  await using userModel = startFakeOpenAI({
    replies: [
      { content: "Please add five." },
      { toolCalls: [{ name: "press_button", arguments: { button: "ok" } }] },
      { content: "Pressed it. Thanks, goodbye!", toolCalls: [{ name: "end_call" }] },
    ],
  });
  const clientFor = (baseUrl: string, model: string) =>
    new OpenAiClient({ baseUrl, model, maxRetries: 0 });
  const env = new Environment(counterDomain, { db: { count: 0 }, user_db: { pressed: [] } }, {
    today: "2024-05-15",
    seed: "01",
  });
  const outcome = await runCall({
    env,
    agent: new LlmAgent({ client: clientFor(agentModel.baseUrl, "agent-model") }),
    user: new LlmUser({ client: clientFor(userModel.baseUrl, "user-model") }),
    agentSetup: setup("agent", "You keep a counter.", [addTool]),
    userSetup: setup("user", "You want the counter at five.", [pressTool]),
    clock: new RealClock(),
    limits: { ...DEFAULT_LIMITS, maxDurationMs: 10_000 },
    firstSpeaker: "agent",
    timedSpeech: false,
  });
  assert.equal(outcome.stopReason, "user_hangup");
  assert.equal(outcome.error, undefined);
  assert.deepEqual(outcome.turns.map((t) => [t.speaker, t.text]), [
    ["agent", "Counter desk, what can I do?"],
    ["user", "Please add five."],
    ["agent", "Done, the counter is at five. Please press ok on your device."],
    ["user", "Pressed it. Thanks, goodbye!"],
  ]);
  assert.equal(env.hashes().db_sha256, dbHash({ count: 5 }));
  assert.equal(env.hashes().user_db_sha256, dbHash({ pressed: ["ok"] }));
  assert.deepEqual(outcome.usage.agent, { calls: 3, prompt_tokens: 40, completion_tokens: 18 });
  assert.equal(outcome.usage.user.calls, 3);
  assert.ok(outcome.latency.length > 0 && outcome.latency.every((l) => l.ttft_ms !== undefined));
  // The caller's model saw its own tools and the way to hang up, never the agent's.
  const offered = userModel.requests[0]!.body.tools!.map((t) => t.function.name);
  assert.deepEqual(offered, ["press_button", "end_call"]);
});

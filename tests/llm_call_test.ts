/**
 * The LLM agent and the LLM caller on one call, each talking to its own fake model
 * server, over an in-memory pair of call lines.
 */
import assert from "node:assert/strict";
import type { CallSetup } from "../src/bridge/call.ts";
import { OpenAiClient } from "../src/llm/openai.ts";
import { LlmAgent } from "../src/participants/llm_agent.ts";
import { LlmUser } from "../src/participants/llm_user.ts";
import { connectPair } from "./fake_call_line.ts";
import { type FakeReply, startFakeOpenAI } from "./fake_openai.ts";

const lookup = {
  name: "get_reservation",
  description: "Look a reservation up by its id",
  parameters: { type: "object", properties: { reservation_id: { type: "string" } } },
};
const endConversation = {
  name: "end_conversation",
  description: "End the call",
  parameters: { type: "object", properties: {} },
};

const setups: Record<"agent" | "user", CallSetup> = {
  agent: {
    side: "agent",
    scenario: "demo",
    domain: "demo_airline",
    prompt: "You are the airline's phone agent.",
    tools: [lookup, endConversation],
    seed: "01",
  },
  user: {
    side: "user",
    scenario: "demo",
    domain: "demo_airline",
    prompt: "You are a traveller checking your flight time.",
    tools: [],
    seed: "01",
  },
};

function client(baseUrl: string, model: string) {
  return new OpenAiClient({ baseUrl, model, sleep: () => Promise.resolve() });
}

async function call(agentReplies: FakeReply[], userReplies: FakeReply[]) {
  await using agentModel = startFakeOpenAI({ replies: agentReplies });
  await using userModel = startFakeOpenAI({ replies: userReplies });
  const agent = new LlmAgent({ client: client(agentModel.baseUrl, "agent-model") });
  const user = new LlmUser({ client: client(userModel.baseUrl, "user-model"), stream: false });
  const outcome = await connectPair({ agent, user }, setups, {
    tools: (name, args) =>
      name === "get_reservation"
        ? { ok: true, result: { ...(args as object), departs: "09:00" } }
        : { ok: true, result: { success: true } },
  });
  return { outcome, agentRequests: agentModel.requests, userRequests: userModel.requests };
}

Deno.test("an LLM agent and an LLM caller talk until the caller hangs up", async () => {
  const { outcome, agentRequests, userRequests } = await call(
    [
      { content: "Thanks for calling, how can I help?" },
      { toolCalls: [{ name: "get_reservation", arguments: { reservation_id: "ABC123" } }] },
      { content: "Flight ABC123 departs at nine." },
    ],
    [
      { content: "When does my flight ABC123 leave?" },
      { content: "Great, thanks. Goodbye!", toolCalls: [{ name: "end_call" }] },
    ],
  );
  assert.deepEqual(outcome.transcript, [
    { side: "agent", text: "Thanks for calling, how can I help?" },
    { side: "user", text: "When does my flight ABC123 leave?" },
    { side: "agent", text: "Flight ABC123 departs at nine." },
    { side: "user", text: "Great, thanks. Goodbye!" },
  ]);
  assert.equal(outcome.by, "user");
  assert.equal(outcome.reason, "user_end_call");
  assert.deepEqual(outcome.lines.agent.toolCalls, [
    { name: "get_reservation", args: { reservation_id: "ABC123" } },
  ]);
  assert.equal(outcome.lines.agent.usage.length, 3);
  assert.equal(outcome.lines.user.usage.length, 2);
  assert.deepEqual(outcome.lines.agent.failures, []);
  assert.deepEqual(outcome.lines.user.failures, []);
  // Each model saw the other end's words as user turns, and its own as assistant turns.
  assert.deepEqual(userRequests[1]!.body.messages.slice(1), [
    { role: "user", content: "Thanks for calling, how can I help?" },
    { role: "assistant", content: "When does my flight ABC123 leave?" },
    { role: "user", content: "Flight ABC123 departs at nine." },
  ]);
  assert.equal(agentRequests.length, 3);
  assert.deepEqual(agentRequests[2]!.body.messages.at(-1)!.role, "tool");
});

Deno.test("an LLM agent ends the call with end_conversation", async () => {
  const { outcome, agentRequests } = await call(
    [
      { content: "Hello, airline desk." },
      { content: "You're welcome, goodbye.", toolCalls: [{ name: "end_conversation" }] },
    ],
    [{ content: "Sorry, wrong number." }],
  );
  assert.deepEqual(outcome.transcript.map((t) => t.side), ["agent", "user", "agent"]);
  assert.equal(outcome.by, "agent");
  assert.equal(outcome.reason, "agent_end");
  assert.equal(agentRequests.length, 2);
});

Deno.test("a caller whose model breaks ends the call in user_error", async () => {
  const { outcome } = await call([{ content: "Hello, airline desk." }], [{ status: 400 }]);
  assert.equal(outcome.by, "user");
  assert.equal(outcome.reason, "error: user_error");
  assert.deepEqual(outcome.transcript.map((t) => t.side), ["agent"]);
});

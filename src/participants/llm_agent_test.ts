import assert from "node:assert/strict";
import type { CallEvent, CallSetup } from "../bridge/call.ts";
import { OpenAiClient } from "../llm/openai.ts";
import { type FakeOpenAI, startFakeOpenAI } from "../../tests/fake_openai.ts";
import { recordingLine, type ToolRunner, waitFor } from "../../tests/fake_call_line.ts";
import { OPENING_NOTE } from "./_llm_conversation.ts";
import { LlmAgent } from "./llm_agent.ts";

const lookup = {
  name: "get_reservation",
  description: "Look a reservation up by its id",
  parameters: {
    type: "object",
    properties: { reservation_id: { type: "string" } },
    required: ["reservation_id"],
  },
};

const setup: CallSetup = {
  side: "agent",
  scenario: "demo",
  domain: "demo_airline",
  prompt: "You are the airline's phone agent.",
  tools: [lookup],
  seed: "00ff",
};

/** An agent on a recording line, talking to the fake server. */
async function agentOn(
  fake: FakeOpenAI,
  options: { tools?: ToolRunner; setup?: Partial<CallSetup>; maxRetries?: number } = {},
) {
  const client = new OpenAiClient({
    baseUrl: fake.baseUrl,
    model: "agent-model",
    sleep: () => Promise.resolve(),
    maxRetries: options.maxRetries ?? 0,
  });
  const agent = new LlmAgent({ client, temperature: 0, maxTokens: 200, seed: 3 });
  const line = recordingLine("agent", options.tools);
  await agent.start(line, { ...setup, ...options.setup });
  return { agent, line, record: line.record };
}

const at = 0;
const hears = (text: string, extra: Partial<Extract<CallEvent, { type: "speech" }>> = {}) =>
  ({ type: "speech", at, text, ...extra }) as const;

Deno.test("LlmAgent greets first when it opens the call", async () => {
  await using fake = startFakeOpenAI({
    replies: [{ content: "Thank you for calling, how can I help?" }],
  });
  const { agent, record } = await agentOn(fake);
  agent.onEvent({ type: "call_start", at, you_speak_first: true });
  await waitFor(() => record.said.length === 1);
  assert.equal(record.said[0]!.text, "Thank you for calling, how can I help?");
  assert.equal(typeof record.said[0]!.ttftMs, "number");
  const body = fake.requests[0]!.body;
  assert.deepEqual(body.messages, [
    { role: "system", content: "You are the airline's phone agent." },
    { role: "user", content: OPENING_NOTE },
  ]);
  assert.deepEqual(body.tools, [{ type: "function", function: lookup }]);
  assert.equal(body.stream, true);
  assert.equal(body.temperature, 0);
  assert.equal(body.max_tokens, 200);
  assert.equal(body.seed, 3);
  await agent.close();
});

Deno.test("LlmAgent waits for the caller when the caller opens", async () => {
  await using fake = startFakeOpenAI({ replies: [{ content: "Hello, airline desk." }] });
  const { agent, record } = await agentOn(fake);
  agent.onEvent({ type: "call_start", at, you_speak_first: false });
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(fake.requests.length, 0);
  agent.onEvent(hears("Hi, I need help with a booking."));
  await waitFor(() => record.said.length === 1);
  assert.deepEqual(fake.requests[0]!.body.messages.at(-1), {
    role: "user",
    content: "Hi, I need help with a booking.",
  });
  await agent.close();
});

Deno.test("LlmAgent calls a tool, gives the model its result, then speaks", async () => {
  await using fake = startFakeOpenAI({
    replies: [
      {
        toolCalls: [{ name: "get_reservation", arguments: { reservation_id: "ABC123" }, id: "c1" }],
        usage: { prompt_tokens: 50, completion_tokens: 9 },
      },
      {
        content: "Your flight leaves at nine.",
        usage: { prompt_tokens: 80, completion_tokens: 7 },
      },
    ],
  });
  const { agent, record } = await agentOn(fake, {
    tools: () => ({ ok: true, result: { reservation_id: "ABC123", departs: "09:00" } }),
  });
  agent.onEvent(hears("When does ABC123 leave?"));
  await waitFor(() => record.said.length === 1);
  assert.deepEqual(record.toolCalls, [{
    name: "get_reservation",
    args: { reservation_id: "ABC123" },
  }]);
  assert.equal(record.said[0]!.text, "Your flight leaves at nine.");
  assert.deepEqual(fake.requests[1]!.body.messages.slice(-2), [
    {
      role: "assistant",
      content: null,
      tool_calls: [{
        id: "c1",
        type: "function",
        function: { name: "get_reservation", arguments: '{"reservation_id":"ABC123"}' },
      }],
    },
    { role: "tool", tool_call_id: "c1", content: '{"reservation_id":"ABC123","departs":"09:00"}' },
  ]);
  assert.deepEqual(record.usage, [
    { prompt_tokens: 50, completion_tokens: 9 },
    { prompt_tokens: 80, completion_tokens: 7 },
  ]);
  await agent.close();
});

Deno.test("LlmAgent presses keys for send_dtmf instead of calling the harness", async () => {
  await using fake = startFakeOpenAI({
    replies: [{ toolCalls: [{ name: "send_dtmf", arguments: { keys: "1" }, id: "k" }] }, {
      content: "",
    }],
  });
  const { agent, record } = await agentOn(fake);
  agent.onEvent(hears("For appointments, press 1.", { voice: "MACHINE" }));
  await waitFor(() => fake.requests.length === 2);
  await agent.close();
  assert.deepEqual(record.pressed, ["1"]);
  assert.deepEqual(record.toolCalls, []);
  assert.deepEqual(record.said, []);
  assert.deepEqual(fake.requests[1]!.body.messages.at(-1), {
    role: "tool",
    tool_call_id: "k",
    content: '{"status":"success","message":"Pressed 1."}',
  });
});

Deno.test("LlmAgent tags the far end's voice and notes beeps and keys", async () => {
  await using fake = startFakeOpenAI({ fallback: () => ({ content: "" }) });
  const { agent } = await agentOn(fake);
  agent.onEvent(hears("Leave a message after the tone.", { voice: "MACHINE" }));
  await waitFor(() => fake.requests.length === 1);
  agent.onEvent({ type: "beep", at });
  await waitFor(() => fake.requests.length === 2);
  agent.onEvent({ type: "dtmf", at, keys: "42#" });
  await waitFor(() => fake.requests.length === 3);
  await agent.close();
  // Silent replies add nothing, so the notes gather in one user message.
  assert.deepEqual(fake.requests[2]!.body.messages.slice(1), [{
    role: "user",
    content: "[MACHINE] Leave a message after the tone.\n[A beep sounded]\n" +
      "[The other party pressed the keys 42#]",
  }]);
});

Deno.test("LlmAgent answers speech that arrived while the model was busy, together", async () => {
  await using fake = startFakeOpenAI({
    replies: [{ content: "Let me see.", delayMs: 60 }, { content: "Got both of those." }],
  });
  const { agent, record } = await agentOn(fake);
  agent.onEvent(hears("First question."));
  await waitFor(() => fake.requests.length === 1);
  agent.onEvent(hears("Second question."));
  agent.onEvent(hears("And a third."));
  await waitFor(() => record.said.length === 2);
  await agent.close();
  assert.equal(fake.requests.length, 2);
  assert.deepEqual(fake.requests[1]!.body.messages.slice(1), [
    { role: "user", content: "First question." },
    { role: "assistant", content: "Let me see." },
    { role: "user", content: "Second question.\nAnd a third." },
  ]);
});

Deno.test("LlmAgent stops calling the model after end_conversation", async () => {
  await using fake = startFakeOpenAI({
    replies: [{ content: "Goodbye!", toolCalls: [{ name: "end_conversation", id: "e" }] }],
  });
  const { agent, record } = await agentOn(fake, {
    setup: { tools: [lookup, { name: "end_conversation", description: "End", parameters: {} }] },
  });
  agent.onEvent(hears("That's all, thanks."));
  await waitFor(() => record.toolCalls.length === 1);
  await new Promise((resolve) => setTimeout(resolve, 20));
  await agent.close();
  assert.deepEqual(record.said.map((s) => s.text), ["Goodbye!"]);
  assert.deepEqual(record.toolCalls, [{ name: "end_conversation", args: {} }]);
  assert.equal(fake.requests.length, 1);
});

Deno.test("LlmAgent stops at a hangup, even mid-request, without failing", async () => {
  await using fake = startFakeOpenAI({ fallback: () => ({ hang: true }) });
  const { agent, record } = await agentOn(fake);
  agent.onEvent(hears("Hello?"));
  await waitFor(() => fake.requests.length === 1);
  agent.onEvent({ type: "hangup", at, by: "user", reason: "user_hangup" });
  agent.onEvent(hears("Too late."));
  await agent.close();
  assert.deepEqual(record.said, []);
  assert.deepEqual(record.failures, []);
  assert.equal(fake.requests.length, 1);
});

Deno.test("LlmAgent fails the call with model_error when the model keeps failing", async () => {
  await using fake = startFakeOpenAI({ fallback: () => ({ status: 503, error: "overloaded" }) });
  const { agent, record } = await agentOn(fake, { maxRetries: 2 });
  agent.onEvent(hears("Hello?"));
  await waitFor(() => record.failures.length === 1);
  await agent.close();
  const failure = record.failures[0]!;
  assert.equal(failure.kind, "model_error");
  assert.match(failure.message, /The agent model failed: HTTP 503 .*overloaded.*3 attempt/);
  assert.equal(fake.requests.length, 3);
  assert.deepEqual(record.said, []);
});

Deno.test("LlmAgent tells the model about tool arguments that are not JSON", async () => {
  await using fake = startFakeOpenAI({
    replies: [{ toolCalls: [{ name: "get_reservation", arguments: "{oops", id: "b" }] }, {
      content: "Sorry, could you repeat the code?",
    }],
  });
  const { agent, record } = await agentOn(fake);
  agent.onEvent(hears("My code is ABC."));
  await waitFor(() => record.said.length === 1);
  await agent.close();
  assert.deepEqual(record.toolCalls, []);
  const result = fake.requests[1]!.body.messages.at(-1)!;
  assert.equal(result.role, "tool");
  assert.match(String(result.content), /invalid_arguments.*not valid JSON: \{oops/);
});

Deno.test("LlmAgent gives the model the call's userdata and records its settings", async () => {
  await using fake = startFakeOpenAI({ replies: [{ content: "Hi Kim." }] });
  const { agent, record } = await agentOn(fake, { setup: { userdata: { patient: "Kim Lee" } } });
  agent.onEvent(hears("Hello."));
  await waitFor(() => record.said.length === 1);
  await agent.close();
  assert.equal(
    fake.requests[0]!.body.messages[0]!.content,
    'You are the airline\'s phone agent.\n\n# Call data\n{\n  "patient": "Kim Lee"\n}',
  );
  assert.deepEqual(agent.info, {
    kind: "llm",
    model: "agent-model",
    settings: { temperature: 0, max_tokens: 200, seed: 3, stream: true },
  });
});

Deno.test("LlmAgent asks for words without tools after too many tool rounds", async () => {
  await using fake = startFakeOpenAI({
    fallback: () => ({ content: "Still checking.", toolCalls: [{ name: "get_reservation" }] }),
  });
  const client = new OpenAiClient({ baseUrl: fake.baseUrl, model: "m", maxRetries: 0 });
  const agent = new LlmAgent({ client, maxToolRounds: 2 });
  const line = recordingLine("agent");
  await agent.start(line, setup);
  agent.onEvent(hears("Where is my booking?"));
  await waitFor(() => line.record.traces.length === 1);
  await agent.close();
  assert.equal(fake.requests.length, 3);
  assert.deepEqual(fake.requests.map((r) => r.body.tool_choice), [undefined, undefined, "none"]);
  assert.equal(line.record.toolCalls.length, 2);
  assert.equal(line.record.said.length, 3);
  assert.deepEqual(line.record.traces, [{ type: "llm_tool_rounds_exceeded", rounds: 2 }]);
  // The dropped calls never reach the conversation, so it stays valid.
  assert.deepEqual(agent.messages.at(-1), { role: "assistant", content: "Still checking." });
});

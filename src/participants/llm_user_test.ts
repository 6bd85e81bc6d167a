import assert from "node:assert/strict";
import type { CallSetup } from "../bridge/call.ts";
import { OpenAiClient } from "../llm/openai.ts";
import { type FakeOpenAI, startFakeOpenAI } from "../../tests/fake_openai.ts";
import { recordingLine, type ToolRunner, waitFor } from "../../tests/fake_call_line.ts";
import { OPENING_NOTE } from "./_llm_conversation.ts";
import { END_CALL_TOOL, LlmUser } from "./llm_user.ts";

const toggleAirplane = {
  name: "toggle_airplane_mode",
  description: "Turn airplane mode on or off",
  parameters: { type: "object", properties: {} },
};

const setup: CallSetup = {
  side: "user",
  scenario: "demo",
  domain: "tau2_telecom",
  prompt: "You are a customer whose phone has no signal.",
  tools: [toggleAirplane],
  seed: "00ff",
};

async function userOn(fake: FakeOpenAI, options: { tools?: ToolRunner; maxRetries?: number } = {}) {
  const client = new OpenAiClient({
    baseUrl: fake.baseUrl,
    model: "user-model",
    sleep: () => Promise.resolve(),
    maxRetries: options.maxRetries ?? 0,
  });
  const user = new LlmUser({ client, stream: false });
  const line = recordingLine("user", options.tools);
  await user.start(line, setup);
  return { user, record: line.record };
}

const greeting = { type: "speech", at: 0, text: "Telecom support, how can I help?" } as const;

Deno.test("LlmUser waits for the agent's greeting, then answers it", async () => {
  await using fake = startFakeOpenAI({ replies: [{ content: "My phone shows no signal." }] });
  const { user, record } = await userOn(fake);
  user.onEvent({ type: "call_start", at: 0, you_speak_first: false });
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(fake.requests.length, 0);
  user.onEvent(greeting);
  await waitFor(() => record.said.length === 1);
  await user.close();
  assert.equal(record.said[0]!.text, "My phone shows no signal.");
  const body = fake.requests[0]!.body;
  assert.deepEqual(body.messages, [
    { role: "system", content: "You are a customer whose phone has no signal." },
    { role: "user", content: "Telecom support, how can I help?" },
  ]);
  assert.equal(body.stream, undefined);
});

Deno.test("LlmUser opens the call when it speaks first", async () => {
  await using fake = startFakeOpenAI({ replies: [{ content: "Hello? Is this support?" }] });
  const { user, record } = await userOn(fake);
  user.onEvent({ type: "call_start", at: 0, you_speak_first: true });
  await waitFor(() => record.said.length === 1);
  await user.close();
  assert.deepEqual(fake.requests[0]!.body.messages.at(-1), { role: "user", content: OPENING_NOTE });
});

Deno.test("LlmUser is offered its phone tools and end_call", async () => {
  await using fake = startFakeOpenAI({ replies: [{ content: "Hi." }] });
  const { user, record } = await userOn(fake);
  user.onEvent(greeting);
  await waitFor(() => record.said.length === 1);
  await user.close();
  assert.deepEqual(fake.requests[0]!.body.tools, [
    { type: "function", function: toggleAirplane },
    { type: "function", function: END_CALL_TOOL },
  ]);
});

Deno.test("LlmUser runs a phone tool through the harness and reports back", async () => {
  await using fake = startFakeOpenAI({
    replies: [{ toolCalls: [{ name: "toggle_airplane_mode", id: "t" }] }, {
      content: "Done, airplane mode is off now.",
    }],
  });
  const { user, record } = await userOn(fake, {
    tools: () => ({ ok: true, result: "Airplane mode is now OFF." }),
  });
  user.onEvent({ ...greeting, text: "Please turn airplane mode off." });
  await waitFor(() => record.said.length === 1);
  await user.close();
  assert.deepEqual(record.toolCalls, [{ name: "toggle_airplane_mode", args: {} }]);
  assert.deepEqual(fake.requests[1]!.body.messages.at(-1), {
    role: "tool",
    tool_call_id: "t",
    content: "Airplane mode is now OFF.",
  });
});

Deno.test("LlmUser says goodbye and hangs up with end_call", async () => {
  await using fake = startFakeOpenAI({
    replies: [{ content: "Thanks, bye!", toolCalls: [{ name: "end_call", id: "x" }] }],
  });
  const { user, record } = await userOn(fake);
  user.onEvent({ ...greeting, text: "Anything else I can help with?" });
  await waitFor(() => record.hangUps.length === 1);
  await new Promise((resolve) => setTimeout(resolve, 20));
  await user.close();
  assert.deepEqual(record.said.map((s) => s.text), ["Thanks, bye!"]);
  assert.deepEqual(record.hangUps, ["user_end_call"]);
  assert.deepEqual(record.toolCalls, []);
  assert.equal(fake.requests.length, 1);
});

Deno.test("LlmUser fails the call with user_error when its model fails", async () => {
  await using fake = startFakeOpenAI({ fallback: () => ({ raw: "<html>gateway</html>" }) });
  const { user, record } = await userOn(fake);
  user.onEvent(greeting);
  await waitFor(() => record.failures.length === 1);
  await user.close();
  assert.equal(record.failures[0]!.kind, "user_error");
  assert.match(record.failures[0]!.message, /user simulator model failed: The reply is not JSON/);
});

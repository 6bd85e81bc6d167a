import assert from "node:assert/strict";
import { startFakeOpenAI } from "../../tests/fake_openai.ts";
import {
  chatCompletionsUrl,
  OpenAiClient,
  type OpenAiClientOptions,
  OpenAiError,
  parseRetryAfter,
} from "./openai.ts";

/** The error `fn` rejects with, which must be an `OpenAiError`. */
async function rejection(fn: () => Promise<unknown>): Promise<OpenAiError> {
  try {
    await fn();
  } catch (e) {
    assert.ok(e instanceof OpenAiError, `expected an OpenAiError, got ${e}`);
    return e;
  }
  throw new assert.AssertionError({ message: "expected a rejection" });
}

const hello = [{ role: "user" as const, content: "Hello" }];

/** A client whose waits are recorded, never slept. */
function clientFor(baseUrl: string, options: Partial<OpenAiClientOptions> = {}) {
  const sleeps: number[] = [];
  const client = new OpenAiClient({
    baseUrl,
    model: "test-model",
    apiKey: "sk-test",
    sleep: (ms) => {
      sleeps.push(ms);
      return Promise.resolve();
    },
    random: () => 0.5,
    backoffMs: 100,
    ...options,
  });
  return { client, sleeps };
}

Deno.test("complete() returns a non-streamed text reply with its usage", async () => {
  await using fake = startFakeOpenAI({
    replies: [{
      content: "Hi, how can I help?",
      usage: { prompt_tokens: 12, completion_tokens: 6 },
    }],
  });
  const { client } = clientFor(fake.baseUrl);
  const reply = await client.complete({ messages: hello, temperature: 0.2, seed: 7 });
  assert.deepEqual(reply.content, "Hi, how can I help?");
  assert.deepEqual(reply.toolCalls, []);
  assert.deepEqual(reply.message, { role: "assistant", content: "Hi, how can I help?" });
  assert.deepEqual(reply.usage, { prompt_tokens: 12, completion_tokens: 6 });
  assert.deepEqual(reply.finishReason, "stop");
  assert.deepEqual(reply.attempts, 1);
  const sent = fake.requests[0]!;
  assert.deepEqual(sent.headers.authorization, "Bearer sk-test");
  assert.deepEqual(sent.body.model, "test-model");
  assert.deepEqual(sent.body.messages, hello);
  assert.deepEqual(sent.body.temperature, 0.2);
  assert.deepEqual(sent.body.seed, 7);
  assert.deepEqual(sent.body.stream, undefined);
});

Deno.test("complete() assembles a streamed reply and counts the usage chunk", async () => {
  await using fake = startFakeOpenAI({
    replies: [{
      content: "Sure, one moment please.",
      usage: { prompt_tokens: 30, completion_tokens: 5 },
    }],
  });
  const { client } = clientFor(fake.baseUrl);
  const reply = await client.complete({ messages: hello, stream: true });
  assert.deepEqual(reply.content, "Sure, one moment please.");
  assert.deepEqual(reply.usage, { prompt_tokens: 30, completion_tokens: 5 });
  assert.deepEqual(reply.finishReason, "stop");
  assert.deepEqual(fake.requests[0]!.body.stream, true);
  assert.deepEqual(fake.requests[0]!.body.stream_options, { include_usage: true });
});

Deno.test("complete() leaves usage unset when a stream does not report it", async () => {
  await using fake = startFakeOpenAI({ replies: [{ content: "Hello", usage: null }] });
  const { client } = clientFor(fake.baseUrl);
  const reply = await client.complete({ messages: hello, stream: true });
  assert.deepEqual(reply.content, "Hello");
  assert.deepEqual(reply.usage, undefined);
});

Deno.test("complete() assembles streamed tool-call deltas into whole calls", async () => {
  await using fake = startFakeOpenAI({
    replies: [{
      toolCalls: [
        { name: "get_reservation", arguments: { reservation_id: "ABC123" }, id: "call_1" },
        { name: "get_user", arguments: { user_id: "u_42", verbose: true }, id: "call_2" },
      ],
    }],
  });
  const { client } = clientFor(fake.baseUrl);
  const reply = await client.complete({ messages: hello, stream: true });
  assert.deepEqual(reply.content, "");
  assert.deepEqual(reply.finishReason, "tool_calls");
  assert.deepEqual(reply.toolCalls, [
    {
      id: "call_1",
      type: "function",
      function: { name: "get_reservation", arguments: '{"reservation_id":"ABC123"}' },
    },
    {
      id: "call_2",
      type: "function",
      function: { name: "get_user", arguments: '{"user_id":"u_42","verbose":true}' },
    },
  ]);
  assert.deepEqual(reply.message.content, null);
  assert.deepEqual(reply.message.tool_calls, reply.toolCalls);
});

Deno.test("complete() sends tools as functions and passes tool results back", async () => {
  await using fake = startFakeOpenAI({
    replies: [{ toolCalls: [{ name: "lookup", arguments: { id: 1 }, id: "c1" }] }, {
      content: "Found it.",
    }],
  });
  const { client } = clientFor(fake.baseUrl);
  const tools = [{
    name: "lookup",
    description: "Look a record up",
    parameters: { type: "object", properties: { id: { type: "integer" } }, required: ["id"] },
  }];
  const first = await client.complete({ messages: hello, tools });
  assert.deepEqual(first.toolCalls[0]!.function, { name: "lookup", arguments: '{"id":1}' });
  const second = await client.complete({
    messages: [...hello, first.message, { role: "tool", tool_call_id: "c1", content: '{"ok":1}' }],
    tools,
  });
  assert.deepEqual(second.content, "Found it.");
  assert.deepEqual(fake.requests[0]!.body.tools, [{ type: "function", function: tools[0]! }]);
  assert.deepEqual(fake.requests[1]!.body.messages.slice(1), [
    {
      role: "assistant",
      content: null,
      tool_calls: [{
        id: "c1",
        type: "function",
        function: { name: "lookup", arguments: '{"id":1}' },
      }],
    },
    { role: "tool", tool_call_id: "c1", content: '{"ok":1}' },
  ]);
});

Deno.test("complete() merges extra body fields without letting them replace the model", async () => {
  await using fake = startFakeOpenAI({ replies: [{ content: "{}" }] });
  const { client } = clientFor(fake.baseUrl);
  await client.complete({
    messages: hello,
    extra: { chat_template_kwargs: { enable_thinking: true }, model: "other" },
  });
  assert.deepEqual(fake.requests[0]!.body.chat_template_kwargs, { enable_thinking: true });
  assert.deepEqual(fake.requests[0]!.body.model, "test-model");
});

Deno.test("complete() waits as Retry-After asks after a 429, then succeeds", async () => {
  await using fake = startFakeOpenAI({
    replies: [{ status: 429, error: "slow down", headers: { "retry-after": "2" } }, {
      content: "ok",
    }],
  });
  const { client, sleeps } = clientFor(fake.baseUrl);
  const reply = await client.complete({ messages: hello, stream: true });
  assert.deepEqual(reply.content, "ok");
  assert.deepEqual(reply.attempts, 2);
  assert.deepEqual(sleeps, [2000]);
  assert.deepEqual(fake.requests.length, 2);
});

Deno.test("complete() backs off exponentially with jitter and gives up on a lasting 500", async () => {
  await using fake = startFakeOpenAI({ fallback: () => ({ status: 500, error: "boom" }) });
  const { client, sleeps } = clientFor(fake.baseUrl, { maxRetries: 3 });
  const error = await rejection(() => client.complete({ messages: hello }));
  assert.deepEqual(error.kind, "http");
  assert.deepEqual(error.details.status, 500);
  assert.deepEqual(error.details.attempts, 4);
  assert.ok(error.message.includes("boom"), error.message);
  // Half of 100, 200, 400 fixed, the other half times random() = 0.5.
  assert.deepEqual(sleeps, [75, 150, 300]);
  assert.deepEqual(fake.requests.length, 4);
});

Deno.test("complete() caps the backoff and a long Retry-After", async () => {
  await using fake = startFakeOpenAI({
    replies: [{ status: 503, headers: { "retry-after": "600" } }, { status: 502 }, {
      content: "ok",
    }],
  });
  const { client, sleeps } = clientFor(fake.baseUrl, { backoffMs: 1000, maxBackoffMs: 1500 });
  await client.complete({ messages: hello });
  assert.deepEqual(sleeps, [1500, 1125]);
});

Deno.test("complete() does not retry a client error", async () => {
  await using fake = startFakeOpenAI({
    fallback: () => ({ status: 400, error: "bad tool schema" }),
  });
  const { client, sleeps } = clientFor(fake.baseUrl);
  const error = await rejection(() => client.complete({ messages: hello }));
  assert.deepEqual(error.kind, "http");
  assert.deepEqual(error.details.status, 400);
  assert.deepEqual(sleeps, []);
  assert.deepEqual(fake.requests.length, 1);
});

Deno.test("complete() reports a reply that is not JSON as malformed, without retrying", async () => {
  await using fake = startFakeOpenAI({ fallback: () => ({ raw: '{"choices": [' }) });
  const { client } = clientFor(fake.baseUrl);
  const error = await rejection(() => client.complete({ messages: hello }));
  assert.deepEqual(error.kind, "malformed");
  assert.ok(error.message.includes('The reply is not JSON: {"choices": ['), error.message);
  assert.deepEqual(fake.requests.length, 1);
});

Deno.test("complete() names the field of a reply that is JSON but not a completion", async () => {
  await using fake = startFakeOpenAI({
    replies: [{
      raw: JSON.stringify({ choices: [{ message: { tool_calls: [{ function: {} }] } }] }),
    }],
  });
  const { client } = clientFor(fake.baseUrl);
  const error = await rejection(() => client.complete({ messages: hello }));
  assert.deepEqual(error.kind, "malformed");
  assert.ok(
    error.message.includes('at "choices.0.message.tool_calls.0.function.name"'),
    error.message,
  );
});

Deno.test("complete() reports a garbled stream chunk as malformed", async () => {
  await using fake = startFakeOpenAI({
    replies: [{ raw: 'data: {"choices":[{"delta":{"content":"Hi"}}]}\n\ndata: {oops\n\n' }],
  });
  const { client } = clientFor(fake.baseUrl);
  const error = await rejection(
    () => client.complete({ messages: hello, stream: true }),
  );
  assert.deepEqual(error.kind, "malformed");
  assert.ok(error.message.includes("The stream chunk is not JSON: {oops"), error.message);
});

Deno.test("complete() retries a stream cut off before it finished", async () => {
  await using fake = startFakeOpenAI({
    replies: [{ content: "I will", truncateAfter: 2 }, { content: "I will help." }],
  });
  const { client, sleeps } = clientFor(fake.baseUrl);
  const reply = await client.complete({ messages: hello, stream: true });
  assert.deepEqual(reply.content, "I will help.");
  assert.deepEqual(reply.attempts, 2);
  assert.deepEqual(sleeps.length, 1);
});

Deno.test("complete() fails with truncated when every stream is cut off", async () => {
  await using fake = startFakeOpenAI({ fallback: () => ({ content: "a b c", truncateAfter: 3 }) });
  const { client } = clientFor(fake.baseUrl, { maxRetries: 1 });
  const error = await rejection(
    () => client.complete({ messages: hello, stream: true }),
  );
  assert.deepEqual(error.kind, "truncated");
  assert.deepEqual(error.details.attempts, 2);
});

Deno.test("complete() retries when the server cannot be reached", async () => {
  const fake = startFakeOpenAI();
  const baseUrl = fake.baseUrl;
  await fake.close();
  const { client, sleeps } = clientFor(baseUrl, { maxRetries: 2 });
  const error = await rejection(() => client.complete({ messages: hello }));
  assert.deepEqual(error.kind, "network");
  assert.deepEqual(sleeps.length, 2);
});

Deno.test("complete() times out a server that never answers", async () => {
  await using fake = startFakeOpenAI({ fallback: () => ({ hang: true }) });
  const { client } = clientFor(fake.baseUrl, { timeoutMs: 30, maxRetries: 1 });
  const error = await rejection(() => client.complete({ messages: hello }));
  assert.deepEqual(error.kind, "timeout");
  assert.deepEqual(error.details.attempts, 2);
});

Deno.test("complete() stops at once when the caller aborts", async () => {
  await using fake = startFakeOpenAI({ fallback: () => ({ hang: true }) });
  const { client, sleeps } = clientFor(fake.baseUrl);
  const controller = new AbortController();
  const pending = client.complete({ messages: hello, signal: controller.signal });
  setTimeout(() => controller.abort(), 10);
  const error = await rejection(() => pending);
  assert.deepEqual(error.kind, "aborted");
  assert.deepEqual(sleeps, []);
});

Deno.test("complete() measures the time to first token of a stream", async () => {
  await using fake = startFakeOpenAI({
    replies: [{ content: "one two three four", delayMs: 30, chunkDelayMs: 25 }],
  });
  const { client } = clientFor(fake.baseUrl);
  const reply = await client.complete({ messages: hello, stream: true });
  assert.ok(reply.ttftMs >= 25, `ttft ${reply.ttftMs}`);
  // The first token came well before the last one.
  assert.ok(
    reply.latencyMs - reply.ttftMs >= 50,
    `ttft ${reply.ttftMs}, latency ${reply.latencyMs}`,
  );
});

Deno.test("complete() measures ttft from the successful attempt, latency from the start", async () => {
  let t = 0;
  await using fake = startFakeOpenAI({ replies: [{ status: 500 }, { content: "ok" }] });
  const { client } = clientFor(fake.baseUrl, {
    now: () => t,
    sleep: () => {
      t += 1000;
      return Promise.resolve();
    },
  });
  const reply = await client.complete({ messages: hello });
  assert.deepEqual(reply.ttftMs, 0);
  assert.deepEqual(reply.latencyMs, 1000);
});

Deno.test("chatCompletionsUrl() appends the endpoint unless it is there", () => {
  assert.deepEqual(chatCompletionsUrl("http://h/v1"), "http://h/v1/chat/completions");
  assert.deepEqual(chatCompletionsUrl("http://h/v1/"), "http://h/v1/chat/completions");
  assert.deepEqual(
    chatCompletionsUrl("http://h/v1/chat/completions"),
    "http://h/v1/chat/completions",
  );
});

Deno.test("parseRetryAfter() reads milliseconds, seconds and HTTP dates", () => {
  const now = Date.parse("2025-01-01T00:00:00Z");
  const h = (init: Record<string, string>) => new Headers(init);
  assert.deepEqual(parseRetryAfter(h({ "retry-after-ms": "250" }), now), 250);
  assert.deepEqual(parseRetryAfter(h({ "retry-after": "1.5" }), now), 1500);
  assert.deepEqual(
    parseRetryAfter(h({ "retry-after": "Wed, 01 Jan 2025 00:00:03 GMT" }), now),
    3000,
  );
  assert.deepEqual(parseRetryAfter(h({ "retry-after": "soon" }), now), undefined);
  assert.deepEqual(parseRetryAfter(h({}), now), undefined);
});

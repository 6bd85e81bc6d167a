/**
 * A fake OpenAI-compatible server for tests: `POST /v1/chat/completions` on 127.0.0.1,
 * answered from a script. Each request takes the next scripted reply (or asks
 * `fallback` when the script is used up); a reply is streamed (SSE) when the request
 * asks for `stream: true`, else sent as one JSON body. Every request is recorded.
 *
 * @example
 * ```ts
 * await using fake = startFakeOpenAI();
 * fake.reply({ status: 429, headers: { "retry-after": "2" } }, { content: "Hi there" });
 * const client = new OpenAiClient({ baseUrl: fake.baseUrl, model: "m", sleep: async () => {} });
 * await client.complete({ messages: [{ role: "user", content: "Hello" }], stream: true });
 * fake.requests.length; // 2
 * ```
 *
 * Needs `--allow-net=127.0.0.1`.
 *
 * @module
 */
import type { ChatMessage } from "../src/llm/openai.ts";
import type { ToolSpec, Usage } from "../src/bridge/call.ts";

/** One scripted answer. With no field set: an empty text reply. */
export interface FakeReply {
  /** The assistant's text. */
  content?: string;
  /** Tool calls; `arguments` is JSON-encoded unless already a string. */
  toolCalls?: { name: string; arguments?: unknown; id?: string }[];
  /** Token usage; default `{prompt_tokens: 10, completion_tokens: 5}`; `null` omits it. */
  usage?: Usage | null;
  /** An HTTP error status: the body is `{"error":{"message": error}}`. */
  status?: number;
  error?: string;
  headers?: Record<string, string>;
  /** A body sent verbatim (status 200 unless `status` says otherwise): malformed replies. */
  raw?: string;
  /** Streamed replies only: send this many events, then close without `[DONE]`. */
  truncateAfter?: number;
  /** Real milliseconds before the response starts. */
  delayMs?: number;
  /** Streamed replies only: real milliseconds between events. */
  chunkDelayMs?: number;
  /** Never answer: the client has to time out (or the server closes). */
  hang?: boolean;
}

/** A request the fake received. */
export interface FakeRequest {
  path: string;
  headers: Record<string, string>;
  body: {
    model?: string;
    messages: ChatMessage[];
    tools?: { type: "function"; function: ToolSpec }[];
    stream?: boolean;
    stream_options?: { include_usage?: boolean };
    [key: string]: unknown;
  };
}

export type FakeScript = FakeReply | ((request: FakeRequest) => FakeReply);

export interface FakeOpenAI {
  /** E.g. `http://127.0.0.1:41234/v1`: give it to the client as its base URL. */
  readonly baseUrl: string;
  /** Every chat completions request, in arrival order. */
  readonly requests: FakeRequest[];
  /** Queues replies, used in order, one per request. */
  reply(...replies: FakeScript[]): void;
  /** Stops the server, releasing any request still waiting. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Starts the fake on a free port. `fallback` answers once the queue is empty;
 * without it such a request gets a 500 saying the script ran out.
 */
export function startFakeOpenAI(
  options: { replies?: FakeScript[]; fallback?: (request: FakeRequest) => FakeReply } = {},
): FakeOpenAI {
  const queue: FakeScript[] = [...(options.replies ?? [])];
  const requests: FakeRequest[] = [];
  const closing = new AbortController();
  let sequence = 0;

  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (req) => {
      const path = new URL(req.url).pathname;
      if (req.method !== "POST" || path !== "/v1/chat/completions") {
        return Response.json({ error: { message: `No route ${req.method} ${path}` } }, {
          status: 404,
        });
      }
      let body: FakeRequest["body"];
      try {
        body = await req.json();
      } catch {
        return Response.json({ error: { message: "Request body is not JSON" } }, { status: 400 });
      }
      const request: FakeRequest = { path, headers: Object.fromEntries(req.headers), body };
      requests.push(request);
      const script: FakeScript = queue.shift() ?? options.fallback ??
        { status: 500, error: "fake_openai: no scripted reply left" };
      const reply = typeof script === "function" ? script(request) : script;
      // Released when the server closes (not on client disconnect: Deno's legacy
      // `request.signal` also aborts on every completed response).
      const gone = closing.signal;
      if (reply.hang) {
        await wait(Infinity, gone);
        return new Response(null, { status: 503 });
      }
      if (reply.delayMs) await wait(reply.delayMs, gone);
      const id = `chatcmpl-fake-${++sequence}`;
      return respond(reply, request, id, gone);
    },
  );
  const addr = server.addr as Deno.NetAddr;
  const close = async () => {
    closing.abort();
    await server.shutdown();
  };
  return {
    baseUrl: `http://127.0.0.1:${addr.port}/v1`,
    requests,
    reply: (...replies) => void queue.push(...replies),
    close,
    [Symbol.asyncDispose]: close,
  };
}

function respond(reply: FakeReply, request: FakeRequest, id: string, gone: AbortSignal): Response {
  const headers = new Headers(reply.headers);
  if (reply.raw !== undefined) {
    if (!headers.has("content-type")) {
      headers.set("content-type", request.body.stream ? "text/event-stream" : "application/json");
    }
    return new Response(reply.raw, { status: reply.status ?? 200, headers });
  }
  if (reply.status !== undefined && reply.status !== 200) {
    return Response.json(
      { error: { message: reply.error ?? `fake error ${reply.status}`, type: "fake_error" } },
      { status: reply.status, headers },
    );
  }
  const model = request.body.model ?? "fake-model";
  const usage = reply.usage === undefined
    ? { prompt_tokens: 10, completion_tokens: 5 }
    : reply.usage;
  const toolCalls = (reply.toolCalls ?? []).map((c, i) => ({
    id: c.id ?? `call_fake_${id.split("-").pop()}_${i}`,
    type: "function" as const,
    function: {
      name: c.name,
      arguments: typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments ?? {}),
    },
  }));
  const finishReason = toolCalls.length > 0 ? "tool_calls" : "stop";
  if (!request.body.stream) {
    return Response.json({
      id,
      object: "chat.completion",
      created: 0,
      model,
      choices: [{
        index: 0,
        message: {
          role: "assistant",
          content: reply.content ?? (toolCalls.length > 0 ? null : ""),
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
        finish_reason: finishReason,
      }],
      ...(usage ? { usage } : {}),
    }, { headers });
  }

  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) => ({
    id,
    object: "chat.completion.chunk",
    created: 0,
    model,
    choices,
    ...extra,
  });
  const events: unknown[] = [chunk([{ index: 0, delta: { role: "assistant", content: "" } }])];
  for (const piece of (reply.content ?? "").match(/\s*\S+/g) ?? []) {
    events.push(chunk([{ index: 0, delta: { content: piece } }]));
  }
  for (const [index, call] of toolCalls.entries()) {
    events.push(chunk([{
      index: 0,
      delta: {
        tool_calls: [{
          index,
          id: call.id,
          type: "function",
          function: { name: call.function.name, arguments: "" },
        }],
      },
    }]));
    const args = call.function.arguments;
    const half = Math.ceil(args.length / 2);
    for (const part of [args.slice(0, half), args.slice(half)]) {
      if (part) {
        events.push(
          chunk([{ index: 0, delta: { tool_calls: [{ index, function: { arguments: part } }] } }]),
        );
      }
    }
  }
  events.push(chunk([{ index: 0, delta: {}, finish_reason: finishReason }]));
  if (usage && request.body.stream_options?.include_usage) events.push(chunk([], { usage }));
  const lines = events.map((e) => `data: ${JSON.stringify(e)}\n\n`);
  lines.push("data: [DONE]\n\n");
  const sent = reply.truncateAfter === undefined ? lines : lines.slice(0, reply.truncateAfter);

  const encoder = new TextEncoder();
  let next = 0;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (next >= sent.length || gone.aborted) return controller.close();
      if (next > 0 && reply.chunkDelayMs) await wait(reply.chunkDelayMs, gone);
      controller.enqueue(encoder.encode(sent[next++]!));
    },
  });
  headers.set("content-type", "text/event-stream");
  headers.set("cache-control", "no-cache");
  return new Response(stream, { headers });
}

/** Resolves after `ms`, or as soon as `signal` aborts. */
function wait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(id);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const id = Number.isFinite(ms) ? setTimeout(done, ms) : undefined;
    signal.addEventListener("abort", done, { once: true });
  });
}

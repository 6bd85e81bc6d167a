/**
 * A client for OpenAI-compatible `/v1/chat/completions` servers (OpenAI, vLLM,
 * llama.cpp, Ollama...), over `fetch`. One method, `complete`, sends a conversation
 * (with tools and tool results) and returns the whole assistant reply, streamed or not;
 * it retries 429, 5xx and network failures with exponential backoff and jitter, honours
 * `Retry-After`, counts tokens and measures the time to first token.
 *
 * @example
 * ```ts
 * const client = new OpenAiClient({ baseUrl: "https://api.openai.com/v1", model: "gpt-4o-mini" });
 * const reply = await client.complete({
 *   messages: [{ role: "user", content: "Say hello." }],
 *   stream: true,
 * });
 * console.log(reply.content, reply.usage, reply.ttftMs);
 * ```
 *
 * @module
 */
import { z } from "zod";
import type { ToolSpec, Usage } from "../bridge/call.ts";
import { sseData } from "./_sse.ts";

/** A tool call the model made, as the API spells it. */
export interface ChatToolCall {
  id: string;
  type: "function";
  /** `arguments` is the JSON text the model wrote (not parsed: it may be invalid). */
  function: { name: string; arguments: string };
}

/** One message of a conversation. */
export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | { role: "assistant"; content: string | null; tool_calls?: ChatToolCall[] }
  | { role: "tool"; tool_call_id: string; content: string };

/** Sampling settings sent as they are; all optional (the server's defaults apply). */
export interface SamplingSettings {
  temperature?: number;
  top_p?: number;
  max_tokens?: number;
  seed?: number;
}

export interface ChatRequest extends SamplingSettings {
  messages: ChatMessage[];
  /** Functions the model may call. */
  tools?: ToolSpec[];
  tool_choice?: "auto" | "none" | "required";
  /** Stream the reply (SSE); needed for a real time to first token. Default false. */
  stream?: boolean;
  /** The client's model unless given. */
  model?: string;
  /** Other body fields, e.g. `{ chat_template_kwargs: { enable_thinking: true } }`. */
  extra?: Record<string, unknown>;
  /** Cancels the request (and any retry wait): rejects with an `OpenAiError` "aborted". */
  signal?: AbortSignal;
}

/** The whole assistant reply. */
export interface ChatResult {
  /** The reply's text; "" when the model only called tools. */
  content: string;
  toolCalls: ChatToolCall[];
  /** The reply as a message, ready to append to the conversation. */
  message: Extract<ChatMessage, { role: "assistant" }>;
  finishReason: string | null;
  /** Token counts, when the server reported them. */
  usage?: Usage;
  /**
   * Milliseconds from sending the successful attempt to its first token (content or
   * tool call). Without streaming, the time until the whole reply arrived.
   */
  ttftMs: number;
  /** Milliseconds the whole `complete` call took, retries and waits included. */
  latencyMs: number;
  /** Requests sent (1 when the first succeeded). */
  attempts: number;
  /** The model the server says answered, else the one requested. */
  model: string;
}

/** Anything that completes a conversation: the client, or a stand-in in tests. */
export interface ChatCompleter {
  readonly model: string;
  complete(request: ChatRequest): Promise<ChatResult>;
}

/** Why a completion failed. `http`, `network`, `timeout` and `truncated` are retried. */
export type OpenAiErrorKind =
  | "http"
  | "network"
  | "timeout"
  | "truncated"
  | "malformed"
  | "aborted";

/** A completion failed, after any retries. */
export class OpenAiError extends Error {
  constructor(
    readonly kind: OpenAiErrorKind,
    message: string,
    readonly details: {
      /** The HTTP status, for `http`. */
      status?: number;
      /** Requests sent before giving up. */
      attempts?: number;
      /** The start of the offending reply. */
      body?: string;
      /** What the server's `Retry-After` asked for. */
      retryAfterMs?: number;
    } = {},
  ) {
    super(message);
    this.name = "OpenAiError";
  }

  /** Whether another attempt may succeed. */
  get retryable(): boolean {
    if (this.kind === "http") {
      const s = this.details.status ?? 0;
      return s === 408 || s === 409 || s === 429 || s >= 500;
    }
    return this.kind === "network" || this.kind === "timeout" || this.kind === "truncated";
  }
}

export interface OpenAiClientOptions {
  /** E.g. `https://api.openai.com/v1`; a URL ending in `/chat/completions` is used as is. */
  baseUrl: string;
  model: string;
  /** Sent as `Authorization: Bearer <key>` when given. */
  apiKey?: string;
  /** Retries after the first attempt. Default 3. */
  maxRetries?: number;
  /** Per-attempt timeout, streaming included. Default 120 000 ms. */
  timeoutMs?: number;
  /** First backoff delay; it doubles each retry. Default 500 ms. */
  backoffMs?: number;
  /** Longest backoff delay, and the cap on a `Retry-After`. Default 30 000 ms. */
  maxBackoffMs?: number;
  /** Ask a streamed reply to end with token usage (`stream_options`). Default true. */
  includeUsage?: boolean;
  headers?: Record<string, string>;
  /** Injected for tests: the wait between attempts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Injected for tests: a number in [0, 1) for jitter. */
  random?: () => number;
  /** Injected for tests: milliseconds, monotonic. */
  now?: () => number;
  fetch?: typeof fetch;
}

/** A real OpenAI-compatible chat completions client. */
export class OpenAiClient implements ChatCompleter {
  readonly model: string;
  readonly url: string;
  readonly #options: OpenAiClientOptions;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly #random: () => number;
  readonly #now: () => number;
  readonly #fetch: typeof fetch;

  constructor(options: OpenAiClientOptions) {
    this.#options = options;
    this.model = options.model;
    this.url = chatCompletionsUrl(options.baseUrl);
    this.#sleep = options.sleep ?? abortableSleep;
    this.#random = options.random ?? Math.random;
    this.#now = options.now ?? (() => performance.now());
    this.#fetch = options.fetch ?? fetch;
  }

  /** Sends the conversation and returns the reply, retrying transient failures. */
  async complete(request: ChatRequest): Promise<ChatResult> {
    const started = this.#now();
    const maxRetries = this.#options.maxRetries ?? 3;
    const body = JSON.stringify(this.#body(request));
    for (let attempt = 1;; attempt++) {
      try {
        const reply = await this.#attempt(body, request);
        return { ...reply, latencyMs: this.#now() - started, attempts: attempt };
      } catch (e) {
        const error = e instanceof OpenAiError ? e : new OpenAiError("network", String(e));
        if (!error.retryable || attempt > maxRetries) {
          throw new OpenAiError(error.kind, `${error.message} (after ${attempt} attempt(s))`, {
            ...error.details,
            attempts: attempt,
          });
        }
        try {
          await this.#sleep(this.#delay(attempt, error), request.signal);
        } catch {
          throw new OpenAiError("aborted", "Request cancelled while waiting to retry", {
            attempts: attempt,
          });
        }
      }
    }
  }

  #body(request: ChatRequest): Record<string, unknown> {
    const body: Record<string, unknown> = {
      ...request.extra,
      model: request.model ?? this.model,
      messages: request.messages,
    };
    for (const key of ["temperature", "top_p", "max_tokens", "seed", "tool_choice"] as const) {
      if (request[key] !== undefined) body[key] = request[key];
    }
    if (request.tools && request.tools.length > 0) {
      body.tools = request.tools.map((t) => ({
        type: "function",
        function: { name: t.name, description: t.description, parameters: t.parameters },
      }));
    }
    if (request.stream) {
      body.stream = true;
      if (this.#options.includeUsage ?? true) body.stream_options = { include_usage: true };
    }
    return body;
  }

  /** Exponential backoff with jitter (half fixed, half random), or the server's wish. */
  #delay(attempt: number, error: OpenAiError): number {
    const max = this.#options.maxBackoffMs ?? 30_000;
    const asked = error.details.retryAfterMs;
    if (asked !== undefined) return Math.min(asked, max);
    const base = Math.min(max, (this.#options.backoffMs ?? 500) * 2 ** (attempt - 1));
    return base / 2 + (base / 2) * this.#random();
  }

  async #attempt(
    body: string,
    request: ChatRequest,
  ): Promise<Omit<ChatResult, "latencyMs" | "attempts">> {
    if (request.signal?.aborted) throw new OpenAiError("aborted", "Request cancelled");
    const timeoutMs = this.#options.timeoutMs ?? 120_000;
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onAbort = () => controller.abort();
    request.signal?.addEventListener("abort", onAbort, { once: true });
    const sent = this.#now();
    const cancelled = () =>
      timedOut
        ? new OpenAiError("timeout", `No complete reply from ${this.url} within ${timeoutMs} ms`)
        : new OpenAiError("aborted", "Request cancelled");
    try {
      let response: Response;
      try {
        response = await this.#fetch(this.url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            ...(this.#options.apiKey ? { authorization: `Bearer ${this.#options.apiKey}` } : {}),
            ...this.#options.headers,
          },
          body,
          signal: controller.signal,
        });
      } catch (e) {
        if (controller.signal.aborted) throw cancelled();
        throw new OpenAiError("network", `Cannot reach ${this.url}: ${messageOf(e)}`);
      }
      if (!response.ok) throw await httpError(response);
      const model = request.model ?? this.model;
      try {
        return request.stream
          ? await this.#readStream(response, sent, model)
          : await this.#readJson(response, sent, model);
      } catch (e) {
        if (controller.signal.aborted) throw cancelled();
        if (e instanceof OpenAiError) throw e;
        throw new OpenAiError("network", `Reply from ${this.url} broke off: ${messageOf(e)}`);
      }
    } finally {
      clearTimeout(timer);
      request.signal?.removeEventListener("abort", onAbort);
    }
  }

  async #readJson(
    response: Response,
    sent: number,
    model: string,
  ): Promise<Omit<ChatResult, "latencyMs" | "attempts">> {
    const text = await response.text();
    const ttftMs = this.#now() - sent;
    const json = parseJson(text, "reply");
    const parsed = completionSchema.safeParse(json);
    if (!parsed.success) throw malformed("reply", parsed.error, text);
    const choice = parsed.data.choices[0]!;
    const content = textOf(choice.message.content);
    const toolCalls = (choice.message.tool_calls ?? []).map((c, i) => ({
      id: c.id || syntheticId(i),
      type: "function" as const,
      function: {
        name: c.function.name,
        arguments: argumentsText(c.function.arguments),
      },
    }));
    return {
      ...assemble(content, toolCalls),
      finishReason: choice.finish_reason ?? null,
      ...(parsed.data.usage ? { usage: usageOf(parsed.data.usage) } : {}),
      ttftMs,
      model: parsed.data.model ?? model,
    };
  }

  async #readStream(
    response: Response,
    sent: number,
    model: string,
  ): Promise<Omit<ChatResult, "latencyMs" | "attempts">> {
    if (!response.body) throw new OpenAiError("malformed", "Streamed reply has no body");
    let content = "";
    const calls: { id?: string; name: string; arguments: string }[] = [];
    let finishReason: string | null = null;
    let usage: Usage | undefined;
    let ttftMs: number | undefined;
    let done = false;
    let answeredBy = model;
    for await (const data of sseData(response.body)) {
      if (data.trim() === "[DONE]") {
        done = true;
        break;
      }
      const json = parseJson(data, "stream chunk");
      const parsed = chunkSchema.safeParse(json);
      if (!parsed.success) throw malformed("stream chunk", parsed.error, data);
      const chunk = parsed.data;
      if (chunk.error) {
        throw new OpenAiError("truncated", `Stream ended in an error: ${errorText(chunk.error)}`);
      }
      if (chunk.model) answeredBy = chunk.model;
      if (chunk.usage) usage = usageOf(chunk.usage);
      const choice = chunk.choices?.[0];
      if (!choice) continue;
      const delta = choice.delta;
      if (delta?.content) {
        ttftMs ??= this.#now() - sent;
        content += delta.content;
      }
      for (const [position, d] of (delta?.tool_calls ?? []).entries()) {
        ttftMs ??= this.#now() - sent;
        const index = d.index ?? position;
        const call = (calls[index] ??= { name: "", arguments: "" });
        if (d.id) call.id = d.id;
        if (d.function?.name) call.name += d.function.name;
        if (d.function?.arguments) call.arguments += d.function.arguments;
      }
      if (choice.finish_reason) finishReason = choice.finish_reason;
    }
    if (!done && finishReason === null) {
      throw new OpenAiError("truncated", `Stream from ${this.url} ended before the reply did`);
    }
    const toolCalls: ChatToolCall[] = [];
    for (const [i, c] of calls.entries()) {
      if (!c) continue;
      if (!c.name) {
        throw new OpenAiError("malformed", `Streamed tool call ${i} has no function name`);
      }
      toolCalls.push({
        id: c.id || syntheticId(i),
        type: "function",
        function: { name: c.name, arguments: argumentsText(c.arguments) },
      });
    }
    return {
      ...assemble(content, toolCalls),
      finishReason,
      ...(usage ? { usage } : {}),
      ttftMs: ttftMs ?? this.#now() - sent,
      model: answeredBy,
    };
  }
}

/** The endpoint for a base URL: `<base>/chat/completions` unless the URL already is one. */
export function chatCompletionsUrl(baseUrl: string): string {
  const base = baseUrl.replace(/\/+$/, "");
  return base.endsWith("/chat/completions") ? base : `${base}/chat/completions`;
}

const usageSchema = z.object({ prompt_tokens: z.number(), completion_tokens: z.number() });

const completionSchema = z.object({
  model: z.string().optional(),
  choices: z.array(z.object({
    message: z.object({
      content: z.union([z.string(), z.array(z.object({ text: z.string().optional() }))])
        .nullish(),
      tool_calls: z.array(z.object({
        id: z.string().nullish(),
        function: z.object({
          name: z.string().min(1),
          arguments: z.union([z.string(), z.record(z.string(), z.unknown())]).nullish(),
        }),
      })).nullish(),
    }),
    finish_reason: z.string().nullish(),
  })).min(1),
  usage: usageSchema.nullish(),
});

const chunkSchema = z.object({
  model: z.string().optional(),
  choices: z.array(z.object({
    delta: z.object({
      content: z.string().nullish(),
      tool_calls: z.array(z.object({
        index: z.number().int().min(0).optional(),
        id: z.string().nullish(),
        function: z.object({ name: z.string().nullish(), arguments: z.string().nullish() })
          .nullish(),
      })).nullish(),
    }).nullish(),
    finish_reason: z.string().nullish(),
  })).nullish(),
  usage: usageSchema.nullish(),
  error: z.unknown().optional(),
});

function assemble(content: string, toolCalls: ChatToolCall[]) {
  const message: ChatResult["message"] = {
    role: "assistant",
    content: content === "" && toolCalls.length > 0 ? null : content,
    ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
  };
  return { content, toolCalls, message };
}

function textOf(content: string | { text?: string }[] | null | undefined): string {
  if (typeof content === "string") return content;
  return (content ?? []).map((p) => p.text ?? "").join("");
}

function argumentsText(args: string | Record<string, unknown> | null | undefined): string {
  if (args === null || args === undefined || args === "") return "{}";
  return typeof args === "string" ? args : JSON.stringify(args);
}

function usageOf(u: z.infer<typeof usageSchema>): Usage {
  return { prompt_tokens: u.prompt_tokens, completion_tokens: u.completion_tokens };
}

/** An id for a tool call the server sent without one (some local servers do). */
function syntheticId(index: number): string {
  return `call_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}_${index}`;
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new OpenAiError("malformed", `The ${what} is not JSON: ${snippet(text)}`, {
      body: snippet(text),
    });
  }
}

function malformed(what: string, error: z.ZodError, text: string): OpenAiError {
  const issue = error.issues[0];
  const where = issue && issue.path.length > 0 ? ` at "${issue.path.join(".")}"` : "";
  return new OpenAiError(
    "malformed",
    `The ${what} is not a chat completion${where}: ${issue?.message ?? "invalid"}`,
    { body: snippet(text) },
  );
}

async function httpError(response: Response): Promise<OpenAiError> {
  const text = await response.text().catch(() => "");
  let detail = snippet(text);
  try {
    detail = errorText((JSON.parse(text) as { error?: unknown }).error ?? text);
  } catch {
    // not JSON: keep the raw snippet
  }
  const retryAfterMs = parseRetryAfter(response.headers);
  return new OpenAiError(
    "http",
    `HTTP ${response.status} from ${response.url}${detail ? `: ${detail}` : ""}`,
    {
      status: response.status,
      body: snippet(text),
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    },
  );
}

/**
 * Milliseconds a server asks to wait: `retry-after-ms`, else `Retry-After` in seconds or
 * as an HTTP date.
 */
export function parseRetryAfter(headers: Headers, nowMs = Date.now()): number | undefined {
  const ms = Number(headers.get("retry-after-ms") ?? NaN);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers.get("retry-after");
  if (value === null || value.trim() === "") return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

function errorText(error: unknown): string {
  if (typeof error === "string") return snippet(error);
  if (typeof error === "object" && error !== null && "message" in error) {
    return snippet(String((error as { message: unknown }).message));
  }
  return snippet(JSON.stringify(error));
}

function snippet(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max)}...` : flat;
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(id);
      reject(signal!.reason);
    };
    const id = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * The harness's tools over MCP (`eval --tools-server`), for agents that call their
 * tools from their own backend: one Streamable HTTP server (the
 * `@modelcontextprotocol/sdk` package's web-standard transport, stateless) on
 * loopback, and one registration per call. A call's endpoint is
 * `http://HOST:PORT/mcp/TOKEN`, or `http://HOST:PORT/mcp` with `Authorization:
 * Bearer TOKEN`; `tools/list` gives exactly the call's agent tools with their JSON
 * Schemas, and `tools/call` runs the tool on the call's line, so in the trial's world
 * with the same results, errors and `unknown_tool` as every other wire, and in the
 * record's tool calls and actions.
 *
 * A token works only for its own call and only while the call lasts (another call's
 * or a closed call's is refused with 401). Every request is bounded: its body
 * (`maxBodyBytes`, 413), its rate per call (`maxRequestsPerSecond`, 429), and what is
 * received passes the value bounds of `../protocol/limits.ts` before anything reads it.
 * The rate counts JSON-RPC messages, not HTTP requests: a batch of 100 calls spends 100
 * (a batch larger than the bucket is refused whole), so batching never multiplies it.
 *
 * @module
 */
// deno-lint-ignore no-import-prefix -- kept out of the import map, so a first run does not download it
import { Server } from "npm:@modelcontextprotocol/sdk@1.32.2/server/index.js";
// deno-lint-ignore no-import-prefix -- kept out of the import map, so a first run does not download it
import { WebStandardStreamableHTTPServerTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/server/webStandardStreamableHttp.js";
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  // deno-lint-ignore no-import-prefix -- kept out of the import map, so a first run does not download it
} from "npm:@modelcontextprotocol/sdk@1.32.2/types.js";
import type { ToolCallReply, ToolSpec } from "../bridge/call.ts";
import { checkValueLimits } from "../protocol/limits.ts";

/** What a call offers over MCP: its agent tools, run on its line. */
export interface TrialTools {
  tools: readonly ToolSpec[];
  callTool(name: string, args: unknown): Promise<ToolCallReply>;
}

/** One call's endpoint. */
export interface ToolsRegistration {
  /** The call's own URL (`…/mcp/TOKEN`). */
  url: string;
  /** The server's shared URL (`…/mcp`), for a bearer token; what records show. */
  baseUrl: string;
  token: string;
  /** Ends the registration: its token is refused from now on. */
  close(): void;
}

/** What registers calls (the runner sees only this). */
export interface ToolsRegistry {
  register(trial: TrialTools): ToolsRegistration;
}

export interface ToolsServerOptions {
  /** Default 127.0.0.1. */
  hostname?: string;
  /** Default 0 (a free port). */
  port?: number;
  /** Largest request body (default 256 KiB). */
  maxBodyBytes?: number;
  /**
   * JSON-RPC messages per second one call may send (default 20, in bursts of as many);
   * each message of a batch counts.
   */
  maxRequestsPerSecond?: number;
}

interface Entry {
  trial: TrialTools;
  /** Token bucket: messages left, refilled at the rate. */
  allowance: number;
  last: number;
}

/** The part of a `tools/call` request read here. */
interface CallRequest {
  params: { name: string; arguments?: Record<string, unknown> };
}

const SERVER_INFO = { name: "callbench", version: "0.1.0" };

/** The tools server: one per process, many calls. */
export class ToolsServer implements ToolsRegistry {
  readonly baseUrl: string;
  readonly #server: Deno.HttpServer<Deno.NetAddr>;
  readonly #calls = new Map<string, Entry>();
  readonly #maxBody: number;
  readonly #rate: number;

  private constructor(server: Deno.HttpServer<Deno.NetAddr>, host: string, o: ToolsServerOptions) {
    this.#server = server;
    this.#maxBody = o.maxBodyBytes ?? 256 * 1024;
    this.#rate = o.maxRequestsPerSecond ?? 20;
    const shown = host.includes(":") ? `[${host}]` : host;
    this.baseUrl = `http://${shown}:${server.addr.port}/mcp`;
  }

  /** Starts listening. */
  static start(options: ToolsServerOptions = {}): ToolsServer {
    const hostname = options.hostname ?? "127.0.0.1";
    const holder: { self?: ToolsServer } = {};
    const server = Deno.serve(
      { hostname, port: options.port ?? 0, onListen: () => {} },
      (req) => holder.self!.#handle(req),
    );
    return holder.self = new ToolsServer(server, hostname, options);
  }

  register(trial: TrialTools): ToolsRegistration {
    const token = crypto.getRandomValues(new Uint8Array(24)).toHex();
    this.#calls.set(token, { trial, allowance: this.#rate, last: performance.now() });
    return {
      url: `${this.baseUrl}/${token}`,
      baseUrl: this.baseUrl,
      token,
      close: () => void this.#calls.delete(token),
    };
  }

  /** Calls registered and not closed. */
  get open(): number {
    return this.#calls.size;
  }

  async close(): Promise<void> {
    this.#calls.clear();
    await this.#server.shutdown();
  }

  async #handle(req: Request): Promise<Response> {
    const path = new URL(req.url).pathname;
    const m = /^\/mcp(?:\/([0-9a-f]{48}))?\/?$/.exec(path);
    if (!m) return text(404, "not found");
    const bearer = /^Bearer ([0-9a-f]{48})$/.exec(req.headers.get("authorization") ?? "");
    const token = m[1] ?? bearer?.[1];
    const entry = token !== undefined ? this.#calls.get(token) : undefined;
    if (!entry) return text(401, "unknown or closed call");
    // Every request spends one, before its body is read (a refused body costs too).
    if (!this.#allow(entry, 1)) return text(429, "too many requests");
    if (req.method !== "POST") return text(405, "POST only (stateless Streamable HTTP)");
    const length = Number(req.headers.get("content-length") ?? "0");
    if (length > this.#maxBody) return text(413, `request over ${this.#maxBody} bytes`);
    const body = await readBounded(req, this.#maxBody);
    if (body === undefined) return text(413, `request over ${this.#maxBody} bytes`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return jsonRpcError(-32700, "parse error");
    }
    const problem = checkValueLimits(parsed);
    if (problem) return jsonRpcError(-32600, `request ${problem}`);
    // Each message of a batch is a call: the rest of a batch spends one a message.
    const messages = Array.isArray(parsed) ? Math.max(1, parsed.length) : 1;
    if (messages > this.#rate) {
      return text(
        429,
        `a batch of ${messages} messages is over the ${this.#rate} a second allowed`,
      );
    }
    if (!this.#allow(entry, messages - 1)) return text(429, "too many requests");
    const server = toolsMcpServer(entry.trial);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    try {
      return await transport.handleRequest(req, { parsedBody: parsed });
    } finally {
      void server.close();
    }
  }

  /** Takes `n` messages from the call's bucket if they fit now; whether they did. */
  #allow(entry: Entry, n: number): boolean {
    const now = performance.now();
    entry.allowance = Math.min(
      this.#rate,
      entry.allowance + ((now - entry.last) * this.#rate) / 1000,
    );
    entry.last = now;
    if (entry.allowance < n) return false;
    entry.allowance -= n;
    return true;
  }
}

/** An MCP server over one call's tools. */
function toolsMcpServer(trial: TrialTools): Server {
  const server = new Server(SERVER_INFO, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: trial.tools.map((t) => ({
      name: t.name,
      description: t.description,
      inputSchema: t.parameters as { type: "object"; [k: string]: unknown },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request: CallRequest) => {
    const reply = await trial.callTool(request.params.name, request.params.arguments ?? {});
    const result = reply.result;
    return {
      content: [{
        type: "text" as const,
        text: typeof result === "string" ? result : JSON.stringify(result),
      }],
      ...(typeof result === "object" && result !== null && !Array.isArray(result)
        ? { structuredContent: result as Record<string, unknown> }
        : {}),
      isError: !reply.ok,
    };
  });
  return server;
}

/** The body as text, or undefined past `max` bytes (read no further). */
async function readBounded(req: Request, max: number): Promise<string | undefined> {
  if (!req.body) return "";
  const reader = req.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  while (true) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > max) {
      await reader.cancel();
      return undefined;
    }
    parts.push(value);
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.length;
  }
  return new TextDecoder().decode(all);
}

function text(status: number, message: string): Response {
  return new Response(message, { status, headers: { "content-type": "text/plain" } });
}

function jsonRpcError(code: number, message: string): Response {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status: 400 });
}

/**
 * `eval --tools-server`: the agent of each call gets its own MCP endpoint for its
 * tools (`src/tools_server/`), for agents that call tools from their own backend. The
 * agent participant is wrapped: when the call starts, the call is registered with the
 * tools it was offered and its line's `callTool` (so every MCP call runs in the
 * trial's world and lands in the record like any other), the setup carries the
 * endpoint (`CallSetup.tools_server`), and the registration closes when the call ends.
 * The record's agent settings name the server's shared URL, never the call's token.
 *
 * @module
 */
import type {
  CallEvent,
  CallLine,
  CallSetup,
  Participant,
  ParticipantInfo,
  SelfWorldReport,
  ToolCallReply,
  ToolSpec,
} from "../bridge/call.ts";

/** One call's endpoint, as the registry hands it out. */
export interface ServedTools {
  /** The call's own URL (the token in its path). */
  url: string;
  /** The server's shared URL (for a bearer token). */
  baseUrl: string;
  /** The call's token (path segment or bearer); never recorded. */
  token: string;
  /** Ends the registration: the token is refused from then on. */
  close(): void;
}

/** Registers calls with a tools server (`src/tools_server/tools_server.ts`'s `ToolsServer`). */
export interface ToolsRegistry {
  /** Registers one call: its agent tools, run on its line. */
  register(trial: {
    tools: readonly ToolSpec[];
    callTool(name: string, args: unknown): Promise<ToolCallReply>;
  }): ServedTools;
}

/** The agent, with its call's tools served over MCP. */
export class ToolsServedAgent implements Participant {
  readonly #inner: Participant;
  readonly #registry: ToolsRegistry;
  #served?: ServedTools;

  constructor(inner: Participant, registry: ToolsRegistry) {
    this.#inner = inner;
    this.#registry = registry;
  }

  get info(): ParticipantInfo {
    const info = this.#inner.info;
    if (!this.#served) return info;
    return { ...info, settings: { ...info.settings, tools_server: this.#served.baseUrl } };
  }

  start(line: CallLine, setup: CallSetup): Promise<void> {
    this.#served = this.#registry.register({
      tools: setup.tools,
      callTool: (name, args) => line.callTool(name, args),
    });
    return this.#inner.start(line, {
      ...setup,
      tools_server: { url: this.#served.url, token: this.#served.token },
    });
  }

  onEvent(event: CallEvent): void {
    if (event.type === "hangup") this.#served?.close();
    this.#inner.onEvent(event);
  }

  worldReport(): Promise<SelfWorldReport> {
    return this.#inner.worldReport?.() ?? Promise.resolve({ db_hash: null, actions: [] });
  }

  applySyncDelta(delta: Record<string, unknown>): void {
    this.#inner.applySyncDelta?.(delta);
  }

  /** The call is ending: the agent hands over its turn in progress (the bridge asks). */
  flush(options: { wait: boolean }): Promise<void> | void {
    return this.#inner.flush?.(options);
  }

  async close(): Promise<void> {
    this.#served?.close();
    await this.#inner.close();
  }
}

/**
 * Test helper: drives two `serve` sessions (agent bot and user bot) exactly as the
 * reference harness's runner and bridge do (reference-harness.md §1.4), in text: a
 * configuration connection per bot (`client-ready`, `reset`, `update_system_prompt`
 * without a scenario field, `apply_initialization`), closed; then a run connection per
 * bot, the `send-text` "Hello" kick to the agent, the bridge relaying each bot's
 * spoken turns (`bot-started-speaking` .. `bot-tts-text` .. `bot-stopped-speaking`) to
 * the other as `send-text`, until the agent's `<exit>`; then `get_context_history` and
 * `get_scenario_summary` on each run connection.
 *
 * @module
 */
import { parseMessage, rtvi, type RtviMessage } from "../src/protocol/messages.ts";
import type { Scenario } from "../src/scenario/scenario.ts";

/** One bot connection as the reference bridge holds it. */
class BotSocket {
  readonly ws: WebSocket;
  readonly received: RtviMessage[] = [];
  readonly opened: Promise<void>;
  readonly closed: Promise<void>;
  onMessage: (m: RtviMessage) => void = () => {};
  #waiters: { pred: (m: RtviMessage) => boolean; resolve: (m: RtviMessage) => void }[] = [];

  constructor(url: string) {
    this.ws = new WebSocket(url);
    this.opened = new Promise((resolve, reject) => {
      this.ws.onopen = () => resolve();
      this.ws.onerror = () => reject(new Error(`cannot connect to ${url}`));
    });
    this.closed = new Promise((resolve) => (this.ws.onclose = () => resolve()));
    this.ws.onmessage = (event) => {
      const parsed = parseMessage(String(event.data));
      if (!parsed.ok || !parsed.message) return;
      const msg = parsed.message;
      this.received.push(msg);
      const hit = this.#waiters.findIndex((w) => w.pred(msg));
      if (hit >= 0) this.#waiters.splice(hit, 1)[0]!.resolve(msg);
      this.onMessage(msg);
    };
  }

  send(msg: RtviMessage): void {
    this.ws.send(JSON.stringify(msg));
  }

  next(pred: (m: RtviMessage) => boolean, timeoutMs = 15_000): Promise<RtviMessage> {
    const seen = this.received.find(pred);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("no reply within the wait")), timeoutMs);
      this.#waiters.push({
        pred,
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m);
        },
      });
    });
  }

  /** `client-ready`, then the `bot-ready` wait. */
  async ready(): Promise<void> {
    await this.opened;
    const id = `client_ready_${Date.now() / 1000}`;
    this.send(rtvi("client-ready", {
      version: "1.1.0",
      about: { library: "evaluation-bridge", library_version: "1.0.0" },
    }, id));
    await this.next((m) => m.type === "bot-ready" && m.id === id, 5_000);
  }

  /** A client-message; the reply whose id matches (`undefined` for fire-and-forget). */
  request(t: string, d: unknown, id: string): Promise<RtviMessage> {
    this.send(rtvi("client-message", { t, d }, id));
    return this.next((m) =>
      (m.type === "server-response" || m.type === "error-response") && m.id === id
    );
  }

  async close(): Promise<void> {
    this.ws.close(1000);
    await this.closed;
  }
}

/** What the reference runner keeps from one scenario. */
export interface ReferenceRun {
  stop: "[EXIT]" | "[TIMEOUT]";
  agentSummary: { actions: unknown[]; db_hash: string | null; db?: unknown };
  userSummary: { actions: unknown[]; db_hash: string | null };
  /** The agent's `get_context_history` list, decoded as the reference bridge does. */
  agentContext: unknown[];
  /** `metrics.tokens` entries from the agent (the reference's agent `n_calls`). */
  agentTokenCalls: number;
  /** The relayed turns, in order. */
  turns: { role: "agent" | "user"; text: string }[];
  /** `action-applied` notices from the agent bot. */
  actionApplied: number;
}

const ts = () => Date.now() / 1000;

/**
 * Runs one scenario through the agent bot at `agentUrl` and the user bot at `userUrl`
 * (each a fixed URL, as the reference's bots are), as the reference runner does.
 */
export async function runAsReference(
  scenario: Scenario,
  agentUrl: string,
  userUrl: string,
  options: { timeoutMs?: number } = {},
): Promise<ReferenceRun> {
  const includeDb = scenario.expect.db_state_assertions.length > 0;
  const sharedState = (side: "agent" | "user") => {
    const source = side === "agent" ? scenario.world.db : scenario.world.user_db;
    const state: Record<string, unknown> = { today: scenario.today };
    if (source && "path" in source) state.db_path = source.path;
    else if (source) state.db = source.inline;
    return state;
  };
  const toolsJson = (names: readonly string[]) =>
    JSON.stringify(Object.fromEntries(names.map((n) => [n, {}])));

  // ---- preparation: one configuration connection per bot --------------------------
  const user = new BotSocket(userUrl);
  const agent = new BotSocket(agentUrl);
  await user.ready();
  await agent.ready();
  user.send(rtvi("client-message", { t: "reset", d: {} }, `reset_${ts()}`));
  agent.send(rtvi("client-message", { t: "reset", d: {} }, `reset_${ts()}`));
  // Not awaited, as the reference's step 5.
  user.send(rtvi("client-message", {
    t: "update_system_prompt",
    d: {
      prompt: scenario.user.prompt || "You are the caller.",
      tools: toolsJson(scenario.user.tools),
      add_suffix: false,
      tool_domain: scenario.domain,
    },
  }, `update_prompt_${ts()}`));
  agent.send(rtvi("client-message", {
    t: "update_system_prompt",
    d: {
      prompt: scenario.agent.prompt || "You are the agent.",
      tools: toolsJson(scenario.agent.tools),
      add_suffix: false,
      tool_domain: scenario.domain,
    },
  }, `update_prompt_${ts()}`));
  for (const [side, bot] of [["agent", agent], ["user", user]] as const) {
    const reply = await bot.request("apply_initialization", {
      domain: scenario.domain,
      shared_state_init: JSON.stringify(sharedState(side)),
      actions: scenario.initialization_actions.filter((a) => a.side === side),
    }, `apply_init_${side}_${ts()}`);
    const d = (reply.data as { d?: { success?: boolean; errors?: string[] } }).d;
    if (reply.type !== "server-response" || d?.success !== true) {
      throw new Error(`apply_initialization (${side}) failed: ${JSON.stringify(reply.data)}`);
    }
  }
  await user.close();
  await agent.close();

  // ---- run: fresh connections, the kick, the relay ----------------------------------
  const runUser = new BotSocket(userUrl);
  const runAgent = new BotSocket(agentUrl);
  await runUser.ready();
  await runAgent.ready();
  const turns: ReferenceRun["turns"] = [];
  let agentTokenCalls = 0;
  let actionApplied = 0;
  let exited!: () => void;
  const exit = new Promise<void>((resolve) => (exited = resolve));
  const relay = (from: BotSocket, to: BotSocket, role: "agent" | "user") => {
    let open: string | undefined;
    from.onMessage = (m) => {
      const data = (m.data ?? {}) as Record<string, unknown>;
      if (m.type === "metrics" && role === "agent" && Array.isArray(data.tokens)) {
        agentTokenCalls += data.tokens.length;
      }
      if (m.type === "server-message" && role === "agent") {
        if (data.type === "action-applied") actionApplied++;
        const text = typeof data.text === "string" ? data.text.trim() : "";
        if (text.startsWith("<exit>") && text.endsWith("</exit>")) exited();
      }
      if (m.type === "bot-started-speaking") open = "";
      if (m.type === "bot-tts-text" && open !== undefined) {
        open += (open ? " " : "") + String(data.text ?? "");
      }
      if (m.type === "bot-stopped-speaking" && open !== undefined) {
        const text = open || "[INTERRUPTED]";
        open = undefined;
        turns.push({ role, text });
        to.send(rtvi("send-text", {
          content: text,
          options: { run_immediately: true, audio_response: true },
        }, `send_text_${ts()}`));
      }
    };
  };
  relay(runAgent, runUser, "agent");
  relay(runUser, runAgent, "user");
  runAgent.send(rtvi("send-text", {
    content: "Hello",
    options: { run_immediately: true, audio_response: true },
  }, `send_text_${ts()}`));
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stop = await Promise.race([
    exit.then(() => "[EXIT]" as const),
    new Promise<"[TIMEOUT]">((
      r,
    ) => (timer = setTimeout(() => r("[TIMEOUT]"), options.timeoutMs ?? 20_000))),
  ]);
  clearTimeout(timer);
  // The exit settle delay: in-flight tool calls commit.
  await new Promise((r) => setTimeout(r, 50));
  runAgent.onMessage = runUser.onMessage = () => {};

  // ---- end-of-scenario pulls, inside each run connection ----------------------------
  const pull = async (bot: BotSocket) => {
    const history = await bot.request("get_context_history", {}, `get_context_history_${ts()}`);
    const summary = await bot.request(
      "get_scenario_summary",
      { include_db: includeDb },
      `get_scenario_summary_${ts()}`,
    );
    return {
      context: (history.data as { d: { context: string } }).d.context,
      summary: (summary.data as { d: ReferenceRun["agentSummary"] }).d,
    };
  };
  const agentPull = await pull(runAgent);
  const userPull = await pull(runUser);
  await runAgent.close();
  await runUser.close();
  // The bridge evaluates the context as a Python literal (a string), then parses it.
  const literal = JSON.parse(agentPull.context);
  const agentContext = typeof literal === "string" ? JSON.parse(literal) : literal;
  return {
    stop,
    agentSummary: agentPull.summary,
    userSummary: userPull.summary,
    agentContext,
    agentTokenCalls,
    turns,
    actionApplied,
  };
}

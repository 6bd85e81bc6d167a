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
import { pcm16ToBytes } from "../src/audio/pcm.ts";
import { parseMessage, rtvi, type RtviMessage } from "../src/protocol/messages.ts";
import {
  decodePipecatFrame,
  encodeAudioFrame,
  encodeMessageFrame,
} from "../src/protocol/protobuf.ts";
import type { Scenario } from "../src/scenario/scenario.ts";

/**
 * One bot connection as the reference bridge holds it: JSON text frames, or (for
 * `serve --audio`) binary pipecat protobuf `Frame`s carrying messages and audio.
 */
export class BotSocket {
  readonly ws: WebSocket;
  readonly received: RtviMessage[] = [];
  readonly opened: Promise<void>;
  readonly closed: Promise<void>;
  onMessage: (m: RtviMessage) => void = () => {};
  /** Audio from the bot (protobuf framing only). */
  onAudio: (pcm: Uint8Array) => void = () => {};
  readonly #framing: "text" | "protobuf";
  #waiters: { pred: (m: RtviMessage) => boolean; resolve: (m: RtviMessage) => void }[] = [];

  constructor(url: string, framing: "text" | "protobuf" = "text") {
    this.#framing = framing;
    this.ws = new WebSocket(url);
    if (framing === "protobuf") this.ws.binaryType = "arraybuffer";
    this.opened = new Promise((resolve, reject) => {
      this.ws.onopen = () => resolve();
      this.ws.onerror = () => reject(new Error(`cannot connect to ${url}`));
    });
    this.closed = new Promise((resolve) => (this.ws.onclose = () => resolve()));
    this.ws.onmessage = (event) => {
      const msg = this.#decode(event.data);
      if (!msg) return;
      this.received.push(msg);
      const hit = this.#waiters.findIndex((w) => w.pred(msg));
      if (hit >= 0) this.#waiters.splice(hit, 1)[0]!.resolve(msg);
      this.onMessage(msg);
    };
  }

  /** The message a frame carries; audio goes to `onAudio`; anything else is dropped. */
  #decode(data: unknown): RtviMessage | undefined {
    let text: string;
    if (this.#framing === "text") text = String(data);
    else {
      if (typeof data === "string") throw new Error("a text frame from a protobuf bot");
      const decoded = decodePipecatFrame(new Uint8Array(data as ArrayBuffer));
      if (!decoded.ok) throw new Error(`bad frame from the bot: ${decoded.problem.message}`);
      const frame = decoded.frame;
      if (frame.kind === "audio") this.onAudio(frame.pcm);
      if (frame.kind !== "message") return undefined;
      text = frame.data;
    }
    const parsed = parseMessage(text);
    return parsed.ok && parsed.message ? parsed.message : undefined;
  }

  send(msg: RtviMessage): void {
    if (this.ws.readyState !== WebSocket.OPEN) return;
    const json = JSON.stringify(msg);
    this.ws.send(this.#framing === "text" ? json : encodeMessageFrame(json));
  }

  /** 16-bit mono audio at `sampleRate`, as one protobuf audio frame. */
  sendAudio(samples: Int16Array, sampleRate: number): void {
    if (this.ws.readyState !== WebSocket.OPEN) return;
    this.ws.send(encodeAudioFrame({ pcm: pcm16ToBytes(samples), sampleRate, numChannels: 1 }));
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

  /** A client-message; the reply whose id matches. */
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

/** The reference bridge's message ids: a name and the time in seconds. */
export const ts = (): number => Date.now() / 1000;

/** What one end-of-scenario pull (`get_context_history`, `get_scenario_summary`) gives. */
export interface ReferencePull {
  /** The `get_context_history` string, undecoded. */
  context: string;
  summary: ReferenceRun["agentSummary"];
}

/**
 * The reference runner's preparation: a configuration connection per bot
 * (`client-ready`, `reset`, `update_system_prompt` not awaited and without a scenario
 * field, `apply_initialization` checked), then both closed.
 */
export async function prepareAsReference(
  scenario: Scenario,
  agentUrl: string,
  userUrl: string,
  framing: "text" | "protobuf" = "text",
): Promise<void> {
  const sharedState = (side: "agent" | "user") => {
    const source = side === "agent" ? scenario.world.db : scenario.world.user_db;
    const state: Record<string, unknown> = { today: scenario.today };
    if (source && "path" in source) state.db_path = source.path;
    else if (source) state.db = source.inline;
    return state;
  };
  const toolsJson = (names: readonly string[]) =>
    JSON.stringify(Object.fromEntries(names.map((n) => [n, {}])));
  const user = new BotSocket(userUrl, framing);
  const agent = new BotSocket(agentUrl, framing);
  await user.ready();
  await agent.ready();
  user.send(rtvi("client-message", { t: "reset", d: {} }, `reset_${ts()}`));
  agent.send(rtvi("client-message", { t: "reset", d: {} }, `reset_${ts()}`));
  // Not awaited, as the reference's step 5.
  for (const [bot, side] of [[user, "user"], [agent, "agent"]] as const) {
    const part = side === "user" ? scenario.user : scenario.agent;
    bot.send(rtvi("client-message", {
      t: "update_system_prompt",
      d: {
        prompt: part.prompt || (side === "user" ? "You are the caller." : "You are the agent."),
        tools: toolsJson(part.tools),
        add_suffix: false,
        tool_domain: scenario.domain,
      },
    }, `update_prompt_${ts()}`));
  }
  for (const [side, bot] of [["agent", agent], ["user", user]] as const) {
    const reply = await bot.request("apply_initialization", {
      domain: scenario.domain,
      shared_state_init: JSON.stringify(sharedState(side)),
      actions: scenario.initialization_actions.filter((a) => a.side === side),
    }, `apply_init_${side}_${ts()}`);
    const d = (reply.data as { d?: { success?: boolean } }).d;
    if (reply.type !== "server-response" || d?.success !== true) {
      throw new Error(`apply_initialization (${side}) failed: ${JSON.stringify(reply.data)}`);
    }
  }
  await user.close();
  await agent.close();
}

/** The end-of-scenario pulls on one run connection, as the reference bridge makes them. */
export async function pullAsReference(bot: BotSocket, includeDb: boolean): Promise<ReferencePull> {
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
}

/** The reference's `send-text` "Hello" kick to the agent. */
export function kick(agent: BotSocket): void {
  agent.send(rtvi("send-text", {
    content: "Hello",
    options: { run_immediately: true, audio_response: true },
  }, `send_text_${ts()}`));
}

/** `[EXIT]` once `exit` settles, `[TIMEOUT]` after `timeoutMs`; then the exit settle delay. */
export async function untilExit(
  exit: Promise<void>,
  timeoutMs: number,
  settleMs: number,
): Promise<"[EXIT]" | "[TIMEOUT]"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stop = await Promise.race([
    exit.then(() => "[EXIT]" as const),
    new Promise<"[TIMEOUT]">((r) => (timer = setTimeout(() => r("[TIMEOUT]"), timeoutMs))),
  ]);
  clearTimeout(timer);
  // The exit settle delay: in-flight tool calls commit.
  await new Promise((r) => setTimeout(r, settleMs));
  return stop;
}

/** True for the agent's `<exit>…</exit>` server-message text. */
export function isExit(data: Record<string, unknown>): boolean {
  const text = typeof data.text === "string" ? data.text.trim() : "";
  return text.startsWith("<exit>") && text.endsWith("</exit>");
}

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
  await prepareAsReference(scenario, agentUrl, userUrl);

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
        if (isExit(data)) exited();
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
  kick(runAgent);
  const stop = await untilExit(exit, options.timeoutMs ?? 20_000, 50);
  runAgent.onMessage = runUser.onMessage = () => {};

  // ---- end-of-scenario pulls, inside each run connection ----------------------------
  const agentPull = await pullAsReference(runAgent, includeDb);
  const userPull = await pullAsReference(runUser, includeDb);
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

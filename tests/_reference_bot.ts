/**
 * A stand-in for the reference harness's bot server, for `--agent-world self` tests
 * (reference-harness.md §1.1, §1.10): one client at a time (a second concurrent one
 * gets HTTP 409), and a shared state per URL that outlives its connections, so a
 * runner can configure it on one connection and run the call on the next. It holds
 * its own world with callbench's domain code, answers the six custom handlers, and
 * its "LLM" plays like the oracle: after the caller's first words it runs the
 * agent-side reference actions on its own world (announcing each write as
 * `action-applied`), asks the caller for each phone-side step and waits for the
 * answer, then offers more help and ends the call with `<exit>`.
 *
 * @module
 */
import assert from "node:assert/strict";
import { dbHash } from "../src/canonical/hash.ts";
import { getDomain } from "../src/domains/registry.ts";
import { Environment } from "../src/env/environment.ts";
import { formatPhoneStep } from "../src/participants/phone_step.ts";
import { rtvi } from "../src/protocol/messages.ts";
import { BUNDLED_DATA_ROOT, DataRoot } from "../src/scenario/data_root.ts";

/** One reference action the bot's "LLM" plays. */
export interface PlannedAction {
  side: "agent" | "user";
  name: string;
  arguments?: Record<string, unknown>;
}

/** What the bot received, by connection (0 = the first). */
export interface Received {
  connection: number;
  type: string;
  /** `client-message`'s handler name. */
  t?: string;
  d?: Record<string, unknown>;
  content?: string;
  /** ms since the connection opened. */
  atMs: number;
}

export interface ReferenceBotOptions {
  plan: readonly PlannedAction[];
  /** Reports a made-up final hash. */
  misreport?: boolean;
  /** The bot's calendar and id seed (its world's "today" and minted ids). */
  today?: string;
  seed?: string;
}

interface BotState {
  tools: string[];
  env?: Environment;
  domain?: string;
  spoke: boolean;
  /** Resolves the wait for the caller's next words. */
  heard?: () => void;
}

/** Starts the stand-in bot on a free loopback port. */
export function referenceBot(options: ReferenceBotOptions) {
  const root = new DataRoot(BUNDLED_DATA_ROOT);
  const received: Received[] = [];
  const deltas: Record<string, unknown>[] = [];
  const states = new Map<string, BotState>();
  const active = new Set<string>();
  const sockets: WebSocket[] = [];
  const refused: string[] = [];
  let connections = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const url = new URL(req.url);
    // One-client bots keep one pipeline per server; a URL stands for a server here.
    const key = url.pathname + url.search;
    if (active.has(key)) {
      refused.push(key);
      return new Response("one client at a time", { status: 409 });
    }
    active.add(key);
    let state = states.get(key);
    if (!state) states.set(key, state = { tools: [], spoke: false });
    const bot = state;
    const connection = connections++;
    const openedAt = performance.now();
    const { socket, response } = Deno.upgradeWebSocket(req);
    sockets.push(socket);
    socket.onclose = () => {
      active.delete(key);
      bot.heard = undefined; // the reference resets per-connection services only
    };
    const send = (type: string, data?: unknown, id?: string) =>
      socket.readyState === WebSocket.OPEN && socket.send(JSON.stringify(rtvi(type, data, id)));
    const reply = (id: string, t: string, d: unknown) => send("server-response", { t, d }, id);
    const say = (text: string) => {
      send("bot-started-speaking");
      for (const word of text.split(" ")) send("bot-tts-text", { text: word });
      send("bot-stopped-speaking");
    };
    const nextWords = () => new Promise<void>((resolve) => (bot.heard = resolve));
    const play = async () => {
      const env = bot.env!;
      let done = false;
      for (const action of options.plan) {
        if (action.side === "user") {
          say(
            `${done ? "I have taken care of that on my side. " : ""}${
              formatPhoneStep(action.name, action.arguments)
            }`,
          );
          done = false;
          await nextWords();
          continue;
        }
        // The reference names its tools by class; callbench's domain code knows both.
        const tool = env.tool("agent", action.name)!;
        const offered = bot.tools.find((n) => n === tool.name || tool.aliases?.includes(n));
        assert.ok(offered, `${action.name} was offered as ${JSON.stringify(bot.tools)}`);
        const before = env.actions.length;
        env.call("agent", offered, action.arguments ?? {});
        for (const done of env.actions.slice(before)) {
          const { side: _side, ...record } = done;
          send("server-message", {
            type: "action-applied",
            action: record,
            tool_domain: bot.domain,
          });
        }
        done = true;
      }
      say("That is all done. Is there anything else I can help you with?");
      await nextWords();
      say("Thank you for calling. Goodbye.");
      send("server-message", { text: "<exit>The task is finished.</exit>" });
    };
    socket.onmessage = async (e) => {
      const msg = JSON.parse(e.data as string);
      const atMs = performance.now() - openedAt;
      if (msg.type === "client-ready") {
        received.push({ connection, type: msg.type, atMs });
        return send("bot-ready", { version: "2.1.0" }, msg.id);
      }
      if (msg.type === "client-message") {
        const { t, d } = msg.data as { t: string; d: Record<string, unknown> };
        received.push({ connection, type: msg.type, t, d, atMs });
        if (t === "reset") return reply(msg.id, t, true);
        if (t === "update_system_prompt") {
          // As the reference: a new prompt clears the shared state.
          bot.tools = Object.keys(JSON.parse(d.tools as string));
          bot.domain = d.tool_domain as string;
          bot.env = undefined;
          bot.spoke = false;
          return reply(msg.id, t, true);
        }
        if (t === "apply_initialization") {
          const init = JSON.parse(d.shared_state_init as string);
          const domain = await getDomain(d.domain as string);
          // db_path is relative to the data root the bot shares with the run.
          const db = root.db(init.db_path);
          bot.env = new Environment(domain, { db }, {
            today: options.today ?? "2026-03-20",
            seed: options.seed ?? "bot",
          });
          const r = bot.env.initialize(d.actions as never);
          return reply(msg.id, t, { success: r.errors.length === 0, errors: r.errors });
        }
        if (t === "apply_sync_delta") {
          if (!bot.env) return reply(msg.id, t, { success: false, errors: ["no db"] });
          deltas.push(d.delta as Record<string, unknown>);
          const r = bot.env.applyDelta("agent", d.delta as Record<string, unknown>);
          return reply(msg.id, t, { success: r.success, errors: r.errors });
        }
        if (t === "get_context_history") {
          // A JSON string literal of the JSON list: what the reference bridge eval()s.
          return reply(msg.id, t, {
            context: JSON.stringify(JSON.stringify([{ role: "system" }])),
          });
        }
        if (t === "get_scenario_summary") {
          const env = bot.env!;
          const actions = env.actions.map(({ side: _side, ...a }) => a);
          return reply(msg.id, t, {
            actions,
            db_hash: options.misreport ? "0".repeat(64) : dbHash(env.db),
            ...(d.include_db ? { db: env.db } : {}),
          });
        }
        return send("error-response", { error: `unknown message type: ${t}` }, msg.id);
      }
      received.push({ connection, type: msg.type, content: msg.data?.content, atMs });
      if (msg.type !== "send-text") return;
      if (msg.data.content === "Hello") return say("Thank you for calling, how can I help?");
      if (!bot.spoke) {
        bot.spoke = true;
        return void play();
      }
      const heard = bot.heard;
      bot.heard = undefined;
      heard?.();
    };
    return response;
  });
  return {
    url: `ws://127.0.0.1:${server.addr.port}/ws`,
    received,
    /** `apply_sync_delta` payloads, in order. */
    deltas,
    /** Upgrades refused because another client was connected. */
    refused,
    /** The bot's own world (the last URL configured). */
    world(): Environment | undefined {
      return [...states.values()].at(-1)?.env;
    },
    async stop() {
      for (const s of sockets) if (s.readyState === WebSocket.OPEN) s.close();
      await server.shutdown();
    },
  };
}

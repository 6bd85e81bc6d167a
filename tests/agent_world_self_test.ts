/**
 * `eval --agent-world self`: callbench drives a reference-style bot that holds its own
 * world, the way the reference runner does (reference-harness.md §1.4). The stand-in
 * bot here holds a real eva world (the bundled fixtures' data root, which it shares
 * with the run) and runs its tools with callbench's own domain code. A second stand-in
 * misreports its final hash: the record carries that claim as the agent's own.
 */
import assert from "node:assert/strict";
import { run } from "../cli.ts";
import { memoryIo } from "../src/cli/io.ts";
import { dbHash } from "../src/canonical/hash.ts";
import { getDomain } from "../src/domains/registry.ts";
import { Environment } from "../src/env/environment.ts";
import { rtvi } from "../src/protocol/messages.ts";
import { BUNDLED_DATA_ROOT, DataRoot } from "../src/scenario/data_root.ts";
import { selectScenarios } from "../src/scenario/suites.ts";

const SCENARIO = "eva_airline__1_4_1";

interface Received {
  t: string;
  d: Record<string, unknown>;
}

/**
 * A reference-style bot: one shared state that outlives connections, the six custom
 * handlers, its own tools on its own world. Its "LLM" plays `plan` when the caller
 * first speaks, then ends the call with EndConversationTool.
 */
function standInBot(plan: { name: string; arguments: unknown }[], misreport = false) {
  const root = new DataRoot(BUNDLED_DATA_ROOT);
  const received: Received[] = [];
  const sockets: WebSocket[] = [];
  const state: { tools: string[]; env?: Environment; spoke: boolean } = {
    tools: [],
    spoke: false,
  };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const { socket, response } = Deno.upgradeWebSocket(req);
    sockets.push(socket);
    const send = (type: string, data?: unknown, id?: string) =>
      socket.readyState === WebSocket.OPEN && socket.send(JSON.stringify(rtvi(type, data, id)));
    const reply = (id: string, t: string, d: unknown) => send("server-response", { t, d }, id);
    const say = (text: string) => {
      send("bot-started-speaking");
      for (const word of text.split(" ")) send("bot-tts-text", { text: word });
      send("bot-stopped-speaking");
    };
    socket.onmessage = async (e) => {
      const msg = JSON.parse(e.data as string);
      if (msg.type === "client-ready") return send("bot-ready", { version: "2.1.0" }, msg.id);
      if (msg.type === "client-message") {
        const { t, d } = msg.data as Received;
        received.push({ t, d });
        if (t === "reset") return reply(msg.id, t, true);
        if (t === "update_system_prompt") {
          state.tools = Object.keys(JSON.parse(d.tools as string));
          return reply(msg.id, t, true);
        }
        if (t === "apply_initialization") {
          const init = JSON.parse(d.shared_state_init as string);
          const domain = await getDomain(d.domain as string);
          // db_path is relative to the data root the bot shares with the run.
          const db = root.db(init.db_path);
          state.env = new Environment(domain, { db }, { today: "2026-03-20", seed: "bot" });
          const r = state.env.initialize(d.actions as never);
          return reply(msg.id, t, { success: r.errors.length === 0, errors: r.errors });
        }
        if (t === "get_context_history") {
          // A JSON string literal of the JSON list: what the reference bridge eval()s.
          return reply(msg.id, t, {
            context: JSON.stringify(JSON.stringify([{ role: "system" }])),
          });
        }
        if (t === "get_scenario_summary") {
          const env = state.env!;
          const actions = env.actions.map(({ side: _side, ...a }) => a);
          return reply(msg.id, t, {
            actions,
            db_hash: misreport ? "0".repeat(64) : dbHash(env.db),
            ...(d.include_db ? { db: env.db } : {}),
          });
        }
        return send("error-response", { error: `unknown message type: ${t}` }, msg.id);
      }
      if (msg.type !== "send-text") return;
      if (msg.data.content === "Hello") return say("Thank you for calling, how can I help?");
      if (state.spoke) return;
      state.spoke = true;
      const env = state.env!;
      for (const call of plan) {
        // The reference names its tools by class; callbench's domain code knows both.
        const tool = env.tool("agent", call.name)!;
        const offered = state.tools.find((n) => n === tool.name || tool.aliases?.includes(n));
        assert.ok(offered, `${call.name} was offered as ${JSON.stringify(state.tools)}`);
        const before = env.actions.length;
        env.call("agent", offered, call.arguments);
        for (const action of env.actions.slice(before)) {
          const { side: _side, ...record } = action;
          send("server-message", { type: "action-applied", action: record, tool_domain: "eva" });
        }
      }
      say("All done, goodbye.");
      send("server-message", { text: "<exit>The task is finished.</exit>" });
    };
    return response;
  });
  return {
    url: `ws://127.0.0.1:${server.addr.port}/ws`,
    received,
    async stop() {
      for (const s of sockets) if (s.readyState === WebSocket.OPEN) s.close();
      await server.shutdown();
    },
  };
}

async function scenario() {
  const { scenarios } = await selectScenarios(new DataRoot(BUNDLED_DATA_ROOT), {
    scenarios: [SCENARIO],
  });
  return scenarios[0]!;
}

async function evalSelf(url: string) {
  const io = memoryIo();
  const code = await run(
    ["eval", "--scenarios", SCENARIO, "--agent", url, "--agent-world", "self"],
    io,
  );
  assert.equal(code, 0, io.stderr.join("\n"));
  return JSON.parse(io.stdout[0]!);
}

Deno.test("--agent-world self: a bot holding a real eva world is driven as the reference runner does", async () => {
  const sc = await scenario();
  const plan = (sc.expect.reference_actions ?? []).filter((a) => a.side === "agent");
  assert.ok(plan.length > 0);
  const bot = standInBot(plan);
  try {
    const record = await evalSelf(bot.url);
    assert.equal(record.status, "completed", JSON.stringify(record.error));
    // The reference's order and shapes.
    assert.deepEqual(bot.received.map((r) => r.t), [
      "reset",
      "update_system_prompt",
      "apply_initialization",
      "get_context_history",
      "get_scenario_summary",
    ]);
    const prompt = bot.received[1]!.d;
    assert.deepEqual(Object.keys(prompt).sort(), ["add_suffix", "prompt", "tool_domain", "tools"]);
    assert.equal(prompt.tool_domain, "eva_airline");
    const tools = JSON.parse(prompt.tools as string);
    assert.ok(
      "GetReservationTool" in tools && "EndConversationTool" in tools,
      prompt.tools as string,
    );
    assert.deepEqual(tools.GetReservationTool, {});
    assert.ok(!("send_dtmf" in tools));
    const init = bot.received[2]!.d;
    assert.deepEqual(JSON.parse(init.shared_state_init as string), {
      db_path: "eva_airline/1.4.1.json",
    });
    assert.equal(bot.received[4]!.d.include_db, sc.expect.db_state_assertions.length > 0);
    // The bot's own hash is the final one, and it is the expected one.
    assert.equal(record.world_owner, "agent");
    assert.equal(record.final.db_sha256, sc.expect.db_sha256);
    assert.equal(record.stop_reason, "agent_end");
    assert.ok(record.actions.length > 0 && record.actions.every((a: { side: string }) => a.side));
    // No tool ran on the harness's world.
    assert.deepEqual(record.tool_calls, []);
    console.log(
      `self-owned world: ${record.status}, ${record.stop_reason}, bot hash ${
        record.final.db_sha256 === sc.expect.db_sha256 ? "=" : "!="
      } expected, ${record.actions.length} action(s)`,
    );

    // score and report mark the result as self-reported.
    const dir = await Deno.makeTempDir();
    try {
      await Deno.writeTextFile(`${dir}/trials.jsonl`, JSON.stringify(record) + "\n");
      const scored = memoryIo();
      assert.equal(await run(["score", `${dir}/trials.jsonl`], scored), 0);
      await Deno.writeTextFile(`${dir}/verdicts.jsonl`, scored.stdout.join("\n") + "\n");
      assert.equal(JSON.parse(scored.stdout[0]!).self_reported, true);
      const report = memoryIo();
      assert.equal(await run(["report", `${dir}/verdicts.jsonl`], report), 0);
      const json = JSON.parse(report.stdout.join("\n"));
      assert.equal(json.scenarios[0].trials_detail[0].self_reported, true);
      const md = memoryIo();
      assert.equal(await run(["report", "--format", "md", `${dir}/verdicts.jsonl`], md), 0);
      assert.match(md.stdout.join("\n"), /1 trial\(s\) self-reported/);
      assert.match(md.stdout.join("\n"), /eva_airline__1_4_1 \*\(self-reported\)\*/);
      const html = memoryIo();
      assert.equal(await run(["report", "--format", "html", `${dir}/verdicts.jsonl`], html), 0);
      assert.match(html.stdout.join("\n"), /self-reported \(the agent's own world\)/);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  } finally {
    await bot.stop();
  }
});

Deno.test("--agent-world self: a bot that misreports its hash is recorded as the agent's own claim", async () => {
  const sc = await scenario();
  const plan = (sc.expect.reference_actions ?? []).filter((a) => a.side === "agent");
  const bot = standInBot(plan, true);
  try {
    const record = await evalSelf(bot.url);
    assert.equal(record.status, "completed", JSON.stringify(record.error));
    assert.equal(record.world_owner, "agent");
    assert.equal(record.final.db_sha256, "0".repeat(64), "the bot's claim, as it made it");
    assert.notEqual(record.final.db_sha256, sc.expect.db_sha256);
    // Scored on the claim, and the verdict says whose claim it is.
    const scored = memoryIo();
    const dir = await Deno.makeTempDir();
    try {
      await Deno.writeTextFile(`${dir}/trials.jsonl`, JSON.stringify(record) + "\n");
      assert.equal(await run(["score", `${dir}/trials.jsonl`], scored), 0);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
    const verdict = JSON.parse(scored.stdout[0]!);
    assert.equal(verdict.self_reported, true);
    assert.equal(verdict.signals.db_state_match, false);
  } finally {
    await bot.stop();
  }
});

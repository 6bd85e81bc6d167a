/**
 * `eval --agent-world self`: callbench drives a reference-style bot that holds its own
 * world, the way the reference runner does (reference-harness.md §1.4). The stand-in
 * bot here (`./_reference_bot.ts`) keeps its state per URL across connections and
 * takes one client at a time, as the reference's bots do; it holds a real eva world
 * (the bundled fixtures' data root, which it shares with the run) and runs its tools
 * with callbench's own domain code. A second stand-in misreports its final hash: the
 * record carries that claim as the agent's own.
 */
import assert from "node:assert/strict";
import { run } from "../cli.ts";
import { memoryIo } from "../src/cli/io.ts";
import { BUNDLED_DATA_ROOT, DataRoot } from "../src/scenario/data_root.ts";
import { selectScenarios } from "../src/scenario/suites.ts";
import { referenceBot } from "./_reference_bot.ts";

const SCENARIO = "eva_airline__1_4_1";

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
  const bot = referenceBot({ plan });
  try {
    const record = await evalSelf(bot.url);
    assert.equal(record.status, "completed", JSON.stringify(record.error));
    // The reference's order and shapes: configured on one connection, which is
    // closed, and the call run on a second one (§1.4 steps 2-9, 12).
    const handlers = (c: number) =>
      bot.received.filter((r) => r.connection === c).map((r) => r.t ?? r.type);
    assert.deepEqual(handlers(0), [
      "client-ready",
      "reset",
      "update_system_prompt",
      "apply_initialization",
    ]);
    const run1 = handlers(1);
    assert.deepEqual(run1.slice(0, 2), ["client-ready", "send-text"]);
    assert.deepEqual(run1.slice(-2), ["get_context_history", "get_scenario_summary"]);
    assert.ok(!run1.includes("reset") && !run1.includes("update_system_prompt"), `${run1}`);
    assert.ok(!run1.includes("disconnect-bot"), "a reference bot's pipeline outlives the call");
    assert.deepEqual(bot.refused, [], "the setup connection was closed before the call");
    assert.equal(Math.max(...bot.received.map((r) => r.connection)), 1);
    // The "Hello" kick, 1 s after the run connection opened (the reference's delay).
    const kick = bot.received.find((r) => r.connection === 1 && r.type === "send-text")!;
    assert.equal(kick.content, "Hello");
    assert.ok(kick.atMs >= 950, `kick after ${kick.atMs} ms`);
    const received = bot.received.filter((r) => r.t !== undefined);
    const prompt = received[1]!.d!;
    assert.deepEqual(Object.keys(prompt).sort(), ["add_suffix", "prompt", "tool_domain", "tools"]);
    assert.equal(prompt.tool_domain, "eva_airline");
    const tools = JSON.parse(prompt.tools as string);
    assert.ok(
      "GetReservationTool" in tools && "EndConversationTool" in tools,
      prompt.tools as string,
    );
    assert.deepEqual(tools.GetReservationTool, {});
    assert.ok(!("send_dtmf" in tools));
    const init = received[2]!.d!;
    assert.deepEqual(JSON.parse(init.shared_state_init as string), {
      db_path: "eva_airline/1.4.1.json",
    });
    assert.equal(received.at(-1)!.d!.include_db, sc.expect.db_state_assertions.length > 0);
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
  const bot = referenceBot({ plan, misreport: true });
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

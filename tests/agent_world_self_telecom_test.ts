/**
 * `eval --agent-world self` on telecom (reference-harness.md §7.3): the agent bot owns
 * the agent DB, callbench owns the caller's phone, and the bridge keeps them in line
 * during the call as the reference bridge does. Its shadow of the agent DB replays
 * each `action-applied` the bot announces, every write on either side is followed by
 * a sync, the phone takes its delta at once and the bot gets its own as
 * `apply_sync_delta`. The stand-in bot (`./_reference_bot.ts`) plays each bundled
 * telecom scenario's reference actions like the oracle, on its own world; the call
 * must end on the scenario's expected hashes on both sides.
 */
import assert from "node:assert/strict";
import { run } from "../cli.ts";
import { memoryIo } from "../src/cli/io.ts";
import { BUNDLED_DATA_ROOT, DataRoot } from "../src/scenario/data_root.ts";
import { selectScenarios } from "../src/scenario/suites.ts";
import { GOLD_SEED } from "../src/scenario/tau2/gold.ts";
import { referenceBot } from "./_reference_bot.ts";

async function telecomScenarios() {
  const { scenarios } = await selectScenarios(new DataRoot(BUNDLED_DATA_ROOT), {
    domains: ["tau2_telecom"],
  });
  return scenarios;
}

async function evalSelf(name: string, url: string) {
  const io = memoryIo();
  const code = await run(
    ["eval", "--scenarios", name, "--agent", url, "--agent-world", "self"],
    io,
  );
  assert.equal(code, 0, io.stderr.join("\n"));
  return JSON.parse(io.stdout[0]!);
}

Deno.test("--agent-world self, telecom: changes cross sides during the call and both worlds end on the expected hashes", async () => {
  const scenarios = await telecomScenarios();
  assert.equal(scenarios.length, 3);
  const lines: string[] = [];
  for (const sc of scenarios) {
    const plan = sc.expect.reference_actions ?? [];
    // Minted ids (a refuel's bill) come from the seed: the bot mints as the gold replay.
    const bot = referenceBot({ plan, today: sc.today, seed: GOLD_SEED });
    try {
      const record = await evalSelf(sc.name, bot.url);
      assert.equal(record.status, "completed", `${sc.name}: ${JSON.stringify(record.error)}`);
      assert.equal(record.world_owner, "agent");
      assert.equal(record.stop_reason, "agent_end", sc.name);
      assert.ok(sc.expect.db_sha256 && sc.expect.user_db_sha256);
      assert.equal(record.final.db_sha256, sc.expect.db_sha256, `${sc.name}: the bot's world`);
      assert.equal(record.final.user_db_sha256, sc.expect.user_db_sha256, `${sc.name}: the phone`);
      // The caller's phone steps ran on the harness's phone, and only those.
      const userSteps = plan.filter((a) => a.side === "user").map((a) => a.name);
      assert.deepEqual(
        record.tool_calls.filter((c: { ok: boolean }) => c.ok).map((c: { name: string }) => c.name),
        userSteps,
        sc.name,
      );
      const inCall = bot.received.filter((r) => r.connection === 1 && r.t === "apply_sync_delta");
      lines.push(
        `${sc.name}: agent ${record.final.db_sha256 === sc.expect.db_sha256 ? "=" : "!="}, user ${
          record.final.user_db_sha256 === sc.expect.user_db_sha256 ? "=" : "!="
        } expected; ${inCall.length} in-call apply_sync_delta`,
      );
      if (sc.name.endsWith("overdue_bill_suspension")) {
        // The caller's payment settles the bill on the bot's side, during the call.
        assert.deepEqual(inCall.map((r) => r.d!.delta), [{ "bills[B5900].status": "Paid" }]);
        assert.equal(inCall[0]!.d!.domain, "tau2_telecom");
      }
    } finally {
      await bot.stop();
    }
  }
  console.log(lines.join("\n"));
});

/**
 * On the real benchmarks: `serve` driven exactly as the reference runner and bridge
 * drive their bots (tests/_reference_runner.ts: configuration connection, then run
 * connection, "Hello" kick, text relay, `<exit>`, end-of-scenario pulls), with the
 * oracle as the agent bot and the scripted caller as the user bot. The agent bot's
 * final `db_hash` is the scenario's expected hash on 5 eva and 5 tau2 scenarios
 * (3 airline, 2 retail), each one whose expected state differs from its initial one.
 */
import assert from "node:assert/strict";
import { builtinFactory } from "../../src/commands/serve.ts";
import { openEnvironment } from "../../src/scenario/open_environment.ts";
import { DataRoot } from "../../src/scenario/data_root.ts";
import type { Scenario } from "../../src/scenario/scenario.ts";
import { selectScenarios } from "../../src/scenario/suites.ts";
import { serve } from "../../src/server/serve.ts";
import { runAsReference } from "../_reference_runner.ts";
import { DATA_ROOT, requireDataRoot } from "./_data_root.ts";

Deno.test({
  name: "serve as the reference runner's bots: 5 eva + 5 tau2 scenarios end on the expected hash",
  // The served scripted caller's goodbye timer may still be pending when the server stops.
  sanitizeOps: false,
  fn: async () => {
    requireDataRoot();
    const root = new DataRoot(DATA_ROOT);
    const counts = { eva_airline: 5, tau2_airline: 3, tau2_retail: 2 };
    const sel = await selectScenarios(root, { domains: Object.keys(counts) });
    // Scenarios whose expected state differs from the initial one: the tools must have run.
    const changes = async (s: Scenario) =>
      (await openEnvironment(root, s, "0")).env.hashes().db_sha256 !== s.expect.db_sha256;
    const picked: Scenario[] = [];
    for (const [d, n] of Object.entries(counts)) {
      let taken = 0;
      for (const s of sel.scenarios) {
        if (taken === n) break;
        if (s.domain === d && s.expect.db_sha256 && await changes(s)) {
          picked.push(s);
          taken++;
        }
      }
    }
    assert.equal(picked.length, 10);
    const server = await serve({
      hostname: "127.0.0.1",
      port: 0,
      factory: builtinFactory(root),
      dataRoot: root,
    });
    const lines: string[] = [];
    let matched = 0;
    try {
      for (const s of picked) {
        const q = `scenario=${encodeURIComponent(s.name)}`;
        const run = await runAsReference(
          s,
          `${server.url}?agent=oracle&${q}`,
          `${server.url}?user=scripted&${q}`,
        );
        const ok = run.stop === "[EXIT]" && run.agentSummary.db_hash === s.expect.db_sha256 &&
          run.agentTokenCalls >= 3;
        if (ok) matched++;
        lines.push(
          `${ok ? "ok  " : "FAIL"} ${s.name}: ${run.stop} db_hash ${
            run.agentSummary.db_hash?.slice(0, 12)
          } (expected ${
            s.expect.db_sha256?.slice(0, 12)
          }), ${run.turns.length} turns, ${run.agentTokenCalls} token events`,
        );
      }
    } finally {
      await server.shutdown();
    }
    console.log(`reference sequence on the real data: ${matched}/10\n  ${lines.join("\n  ")}`);
    assert.equal(matched, 10, lines.join("\n"));
  },
});

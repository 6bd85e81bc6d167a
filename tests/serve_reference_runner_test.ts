/**
 * `serve` as the reference harness's agent bot and user bot: the test plays the
 * reference runner and bridge (tests/_reference_runner.ts) against a served oracle
 * (`?agent=oracle&scenario=NAME`) and a served scripted caller
 * (`?user=scripted&scenario=NAME`), on the bundled eva and tau2 fixtures. The
 * configuration connection and the run connection are separate; the session's state
 * survives between them, and the final hash is the scenario's expected one.
 */
import assert from "node:assert/strict";
import { BUNDLED_DATA_ROOT, DataRoot } from "../src/scenario/data_root.ts";
import type { Scenario } from "../src/scenario/scenario.ts";
import { runAsReference } from "./_reference_runner.ts";
import { changingScenarios, serveBuiltin } from "./_serve.ts";

const root = new DataRoot(BUNDLED_DATA_ROOT);

Deno.test({
  name: "serve holds the reference runner's call: oracle agent bot + scripted user bot reach gold",
  // The served scripted caller's goodbye timer may still be pending when the server stops.
  sanitizeOps: false,
  fn: async () => {
    // Scenarios whose expected state differs from the initial one: the tools must have run.
    const picked: Scenario[] = [];
    for (const d of ["eva_airline", "tau2_airline", "tau2_retail"]) {
      picked.push(...await changingScenarios(root, d, 2));
    }
    assert.ok(picked.length >= 5, `only ${picked.length} fixture scenarios`);
    const server = await serveBuiltin(root);
    try {
      const results: string[] = [];
      for (const s of picked) {
        const q = `scenario=${encodeURIComponent(s.name)}`;
        const run = await runAsReference(
          s,
          `${server.url}?agent=oracle&${q}`,
          `${server.url}?user=scripted&${q}`,
        );
        assert.equal(run.stop, "[EXIT]", s.name);
        assert.equal(run.agentSummary.db_hash, s.expect.db_sha256, s.name);
        // The reference's --min-agent-turns (default 3) counts agent metrics.tokens.
        assert.ok(run.agentTokenCalls >= 3, `${s.name}: ${run.agentTokenCalls} token events`);
        // The context survived the reconnect: the prompt set on the first connection leads it.
        assert.equal((run.agentContext[0] as { role: string }).role, "system", s.name);
        assert.ok(
          run.turns.some((t) => t.role === "user"),
          `${s.name}: the user bot never answered`,
        );
        results.push(
          `${s.name}: ${run.turns.length} turns, ${run.agentTokenCalls} token events, ${run.actionApplied} action-applied`,
        );
      }
      console.log(
        `reference sequence on fixtures: ${picked.length}/${picked.length}\n  ${
          results.join("\n  ")
        }`,
      );
    } finally {
      await server.shutdown();
    }
  },
});

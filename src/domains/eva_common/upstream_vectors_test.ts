import assert from "node:assert/strict";
import { Environment } from "../../env/environment.ts";
import { deepFreeze } from "../../env/deep_freeze.ts";
import { getDomain } from "../registry.ts";
import { UPSTREAM_RUNS, UPSTREAM_VALIDATION } from "./_upstream_vectors.ts";

const KEEP_WRITES_ON_ERROR = new Set(["submit_mfa_reset", "reactivate_privileges"]);

for (const [id, run] of Object.entries(UPSTREAM_RUNS)) {
  Deno.test(`${id}: every call on a synthetic world returns the reference's result, and the world ends on its hash`, async () => {
    const domain = await getDomain(id);
    const world = JSON.parse(JSON.stringify(run.world));
    const env = new Environment(domain, { db: deepFreeze(world) }, {
      today: world._current_date,
      seed: "0",
    });
    run.calls.forEach((c, i) => {
      const r = env.call("agent", c.tool, c.arguments);
      assert.deepEqual(r.result, c.result, `call ${i} ${c.tool}`);
      // Two tools keep what they wrote although they answer an error, as the reference's do.
      const kept = KEEP_WRITES_ON_ERROR.has(c.tool);
      assert.equal(r.ok, kept || c.result.status === "success", `call ${i} ${c.tool}: ok`);
    });
    assert.equal(env.hashes().db_sha256, run.final_sha256);
  });
}

Deno.test("eva_itsm and eva_medical_hr: arguments the reference's models reject get its error, word for word", async () => {
  for (const v of UPSTREAM_VALIDATION) {
    const domain = await getDomain(v.domain);
    const env = new Environment(domain, { db: deepFreeze({ session: {} }) }, {
      today: "2026-05-01",
      seed: "0",
    });
    const r = env.call("agent", v.tool, v.arguments);
    assert.equal(r.ok, false, v.tool);
    assert.deepEqual(r.result, v.result, `${v.domain} ${v.tool} ${JSON.stringify(v.arguments)}`);
  }
});

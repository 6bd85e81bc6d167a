/**
 * The oracle passes every signal that applies on every bundled fixture scenario, in
 * every trial: an expected state that depended on the trial's seed (telecom's minted
 * bill ids) failed db_state_match on all but the gold seed.
 */
import assert from "node:assert/strict";
import { cli } from "./_cli.ts";

Deno.test("oracle: every bundled scenario passes every applicable signal in each of 3 trials", async () => {
  const domains = [
    "eva_airline",
    "tau2_airline",
    "tau2_retail",
    "tau2_telecom",
    "tau2_telecom_workflow",
  ];
  const ev = await cli([
    "eval",
    ...domains.flatMap((d) => ["--domain", d]),
    "--agent",
    "oracle",
    "--trials",
    "3",
  ]);
  assert.equal(ev.code, 0, ev.stderr);
  const scored = await cli(["score"], ev.stdout);
  assert.equal(scored.code, 0, scored.stderr);
  const verdicts = scored.stdout.trim().split("\n").map((l) => JSON.parse(l));
  assert.ok(verdicts.length >= 30, `${verdicts.length} verdicts`);
  const failing = verdicts.flatMap((v) =>
    Object.entries(v.signals as Record<string, boolean | null>)
      .filter(([, ok]) => ok === false)
      .map(([signal]) => `${v.scenario} t${v.key?.trial ?? v.trial}: ${signal}`)
  );
  assert.deepEqual(failing, []);
});

import { deepEqual as assertEquals, ok } from "node:assert/strict";
import { join } from "node:path";
import { DataRoot } from "../scenario/data_root.ts";
import { selectScenarios } from "../scenario/suites.ts";
import { participantFactory } from "../participants/registry.ts";
import { runTrial } from "./run_trial.ts";
import { trialKey } from "./trial_key.ts";
import { scoreTrial } from "../score/score_trial.ts";

const root = new DataRoot(join(Deno.cwd(), "fixtures"));
const limits = { silenceMs: 30_000, maxTurns: 200 };
const factory = (agent: string) =>
  participantFactory({ agent, user: "scripted", agentModel: {}, userModel: {} });

Deno.test("a trial with the wrong final world carries the paths where it differs", async () => {
  const { scenarios } = await selectScenarios(root, { scenarios: ["eva_airline__1_4_1"] });
  const s = scenarios[0]!;
  const noop = await runTrial({
    scenario: s,
    key: trialKey(s.name, 0, "cfg"),
    root,
    participants: factory("noop"),
    limits,
  });
  const diff = noop.final.db_diff!;
  ok(diff, "a failed db_state_match carries a diff");
  const status = diff.entries.find((e) => e.path === "reservations.H7KD2Q.bookings[0].status");
  assertEquals(status, {
    path: "reservations.H7KD2Q.bookings[0].status",
    kind: "changed",
    expected: '"cancelled"',
    actual: '"confirmed"',
  });
  assertEquals(diff.total, diff.entries.length);
  // The verdict carries it beside the two hashes.
  const v = scoreTrial(noop);
  assertEquals(v.details.db_state?.diff, diff);

  // The oracle's world is the expected one: no diff, and passing trials pay no replay.
  const oracle = await runTrial({
    scenario: s,
    key: trialKey(s.name, 0, "cfg"),
    root,
    participants: factory("oracle"),
    limits,
  });
  assertEquals(oracle.final.db_sha256, s.expect.db_sha256);
  assertEquals(oracle.final.db_diff, undefined);
});

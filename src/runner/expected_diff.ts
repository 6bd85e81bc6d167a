/**
 * A failed trial's state diff: its final agent-side world against the expected one,
 * the scenario's reference actions replayed (`replayReference`). Only when the replay
 * reaches the scenario's expected hash (otherwise the replay is no basis to compare
 * with, and no diff is given rather than a misleading one).
 *
 * @module
 */
import { diffState, type StateDiff } from "../env/state_diff.ts";
import type { Environment } from "../env/environment.ts";
import type { DataRoot } from "../scenario/data_root.ts";
import type { Scenario } from "../scenario/scenario.ts";
import { replayReference } from "../scenario/tau2/gold.ts";

/** Where `env`'s world differs from the expected one; undefined when there is no basis. */
export async function expectedStateDiff(
  root: DataRoot,
  scenario: Scenario,
  env: Environment,
): Promise<StateDiff | undefined> {
  const expected = scenario.expect.db_sha256;
  if (!expected || !scenario.expect.reference_actions?.length) return undefined;
  const { env: gold } = await replayReference(root, scenario);
  if (gold.hashes().db_sha256 !== expected) return undefined;
  return diffState(gold.db, env.db);
}

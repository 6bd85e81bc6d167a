/**
 * Gold replay of a tau2 scenario (reference-harness §5.2): open the scenario's
 * Environment (initialisation actions applied per side, then one sync), play each
 * reference action on its side in order, syncing after each, and read off the
 * expected hashes, the side-stamped action records, the state assertions' verdicts
 * on the gold state, and the calls that failed on the data itself.
 *
 * Cheap by construction: the worlds come parsed and frozen from the data root, the
 * Environment copies only what a call changes, and hashing reuses the canonical
 * text of every record the replay left alone.
 *
 * @module
 */
import type { DataRoot } from "../data_root.ts";
import type { Scenario } from "../scenario.ts";
import type { Gold } from "../suite.ts";
import { openEnvironment, WORLD_SEED } from "../open_environment.ts";

/**
 * The seed of a gold replay's Environment. Ids a tool mints from the seed (telecom
 * bills) are then the same in every process.
 */
export const GOLD_SEED = WORLD_SEED;

/**
 * Replays a scenario's reference actions. A failed call is kept in `errors` (its
 * index in `reference_actions`) and the replay goes on, as the reference's does; an
 * initialisation error is kept there too, with index -1.
 */
export async function replayGold(root: DataRoot, scenario: Scenario): Promise<Gold> {
  const { env, initErrors } = await openEnvironment(root, scenario, GOLD_SEED);
  // The Environment words each initialisation error `<func_name>: <message>`.
  const errors: NonNullable<Gold["errors"]> = initErrors.map((message) => ({
    index: -1,
    name: message.split(":", 1)[0]!,
    result: message,
  }));
  const actions = scenario.expect.reference_actions ?? [];
  actions.forEach((action, index) => {
    const call = env.call(action.side, action.name, action.arguments);
    if (!call.ok) errors.push({ index, name: action.name, result: call.result });
    // A recorded write has synced already; the reference syncs after every action.
    if (!call.record) env.sync();
  });
  const hashes = env.hashes();
  const gold: Gold = {
    name: scenario.name,
    domain: scenario.domain,
    expected_db_sha256: hashes.db_sha256,
    ...("user_db_sha256" in hashes ? { expected_user_db_sha256: hashes.user_db_sha256 } : {}),
    reference_actions: actions,
    reference_records: [...env.actions],
  };
  if (scenario.expect.db_state_assertions.length > 0) {
    gold.assertions = env.evaluate(scenario.expect.db_state_assertions);
  }
  if (errors.length > 0) gold.errors = errors;
  return gold;
}

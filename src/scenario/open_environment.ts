/**
 * A trial's Environment from a scenario: its world resolved from the data root (or
 * inline), initialisation actions applied per side, then one sync.
 *
 * @module
 */
import type { Db } from "../domains/domain.ts";
import { getDomain } from "../domains/registry.ts";
import type { DataRoot } from "./data_root.ts";
import type { DbSource, Scenario } from "./scenario.ts";
import { deepFreeze } from "../env/deep_freeze.ts";
import { Environment } from "../env/environment.ts";

/** Resolves a DB source: inline documents are frozen, paths read once per process. */
export function resolveDb(root: DataRoot, source: DbSource): Db {
  return "inline" in source ? deepFreeze(source.inline) : root.db(source.path);
}

export interface OpenedEnvironment {
  env: Environment;
  /** Initialisation errors (the reference logs them and goes on). */
  initErrors: string[];
}

/**
 * The seed of every world's minted ids (telecom's draft bill ids), in trials and in
 * gold replays alike: the same calls then mint the same ids, so a trial that makes
 * the reference's calls ends on the gold hash whatever its trial seed (which still
 * seeds the participants and the line).
 */
export const WORLD_SEED = "gold";

export async function openEnvironment(
  root: DataRoot,
  scenario: Scenario,
  seed: string,
): Promise<OpenedEnvironment> {
  const domain = await getDomain(scenario.domain);
  domain.prepare?.(root, scenario);
  const { db, user_db } = scenario.world;
  const env = new Environment(
    domain,
    {
      db: db ? resolveDb(root, db) : {},
      ...(user_db ? { user_db: resolveDb(root, user_db) } : {}),
    },
    { today: scenario.today, seed },
  );
  const init = env.initialize(scenario.initialization_actions);
  env.sync();
  return { env, initErrors: init.errors };
}

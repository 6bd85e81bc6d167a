/**
 * `validate --replay`: each file scenario's reference actions played on its world (as
 * `gold` does) and the final hash compared with its `expect.db_sha256`, each problem at
 * its line: a reference call that fails on the world, a replay that does not reach the
 * expected state.
 *
 * @module
 */
import type { Problem } from "../problem/problem.ts";
import type { DataRoot } from "./data_root.ts";
import type { Scenario } from "./scenario.ts";
import { problemAt } from "./check.ts";
import { replayReference } from "./tau2/gold.ts";

/** Every way the scenarios' reference actions do not reach their expected state. */
export async function checkReplay(
  scenarios: readonly Scenario[],
  root: DataRoot,
): Promise<Problem[]> {
  const problems: Problem[] = [];
  for (const s of scenarios) {
    if (s.domain === "flow" || !s.expect.reference_actions) continue;
    const { env, errors } = await replayReference(root, s);
    for (const e of errors) {
      problems.push(problemAt(
        s,
        e.index < 0 ? ["initialization_actions"] : ["expect", "reference_actions", e.index],
        `${e.name} failed on the world: ${JSON.stringify(e.result)}`,
      ));
    }
    const expected = s.expect.db_sha256;
    const actual = env.hashes().db_sha256;
    if (expected !== undefined && actual !== expected) {
      problems.push(problemAt(
        s,
        ["expect", "db_sha256"],
        `the reference actions replayed end at ${actual?.slice(0, 12) ?? "no world"}…, not at ` +
          `the expected ${expected.slice(0, 12)}…`,
        "fix the reference actions, or copy expected_db_sha256 from cli.ts gold FILE",
      ));
    }
  }
  return problems;
}

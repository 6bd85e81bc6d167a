import type { Command } from "../cli/io.ts";
import { formatProblem } from "../cli/problem.ts";
import { parseFlags } from "../cli/args.ts";
import { openDataRoot } from "../scenario/data_root.ts";
import { SELECTION_FLAGS, selectionFromFlags, selectScenarios } from "../scenario/suites.ts";

const help = `gold: each scenario's expected end state and the reference calls that reach it

Usage: cli.ts gold [--data-root DIR] [--domain X]... [--scenarios a,b]

Prints per scenario {"name","domain","expected_db_sha256","expected_user_db_sha256"?,
"reference_actions":[...]} plus, where the suite has them, the state assertions on the
gold state ("assertions") and reference calls that failed on the data ("errors").`;

export const command: Command = {
  summary: "expected hashes and reference calls per scenario",
  help,
  async main(args, io) {
    const { values } = parseFlags(args, {
      ...SELECTION_FLAGS,
    });
    const root = openDataRoot(values["data-root"], io);
    // Each selected scenario's gold is computed (or read from the cache) below.
    const sel = await selectScenarios(root, selectionFromFlags(values), { expected: false });
    for (const p of sel.problems) io.err(`warning: ${formatProblem(p)}`);
    for (const scenario of sel.scenarios) {
      const suite = sel.suites.get(scenario.name);
      if (!suite) continue;
      const g = await suite.gold(root, scenario);
      io.out(JSON.stringify({
        name: g.name,
        domain: g.domain,
        expected_db_sha256: g.expected_db_sha256,
        ...(g.expected_user_db_sha256 !== undefined
          ? { expected_user_db_sha256: g.expected_user_db_sha256 }
          : {}),
        reference_actions: g.reference_actions,
        ...(g.assertions ? { assertions: g.assertions } : {}),
        ...(g.errors?.length ? { errors: g.errors } : {}),
      }));
    }
    return sel.problems.length > 0 ? 2 : 0;
  },
};

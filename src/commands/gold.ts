import type { Command } from "../cli/io.ts";
import { formatProblem, InputError } from "../cli/problem.ts";
import { replayGold } from "../scenario/tau2/gold.ts";
import { flagRows, parseFlags } from "../cli/args.ts";
import { openDataRoot } from "../cli/data_root.ts";
import { selectScenarios } from "../scenario/suites.ts";
import { SELECTION_FLAGS, selectionFromFlags } from "../cli/selection_flags.ts";

const FLAGS = SELECTION_FLAGS;

const help = `gold: each scenario's expected end state and the reference calls that reach it

Usage: cli.ts gold [--data-root DIR] [--domain X]... [--scenarios a,b] [FILE|DIR ...]

Flags:
${flagRows(FLAGS, { extra: [["FILE|DIR", "scenario files (replayed: see below)"]] })}

Prints per scenario {"name","domain","expected_db_sha256","expected_user_db_sha256"?,
"reference_actions":[...]} plus, where the suite has them, the state assertions on the
gold state ("assertions") and reference calls that failed on the data ("errors").

Given scenario files, it replays each file scenario's expect.reference_actions on its
world (initialisation actions first) and prints the same line with "file" and the write
calls the replay recorded ("reference_records"): copy expected_db_sha256 into the file's
expect.db_sha256 to gate it on db_state_match. Exit 2 when a reference call fails
("errors", each also said on stderr with its scenario and call), in a file or in a
dataset, or a file does not validate; every line is printed all the same.`;

export const command: Command = {
  summary: "expected hashes and reference calls per scenario",
  help,
  flags: FLAGS,
  async main(args, io) {
    const { values, positionals } = parseFlags(args, FLAGS);
    const root = openDataRoot(values["data-root"], io);
    // Each selected scenario's gold is computed (or read from the cache) below.
    const sel = await selectScenarios(root, {
      ...selectionFromFlags(values, positionals),
      forGold: true,
    }, { expected: false });
    if (sel.fileProblems.length > 0) throw new InputError(sel.fileProblems);
    for (const p of sel.problems) io.err(`warning: ${formatProblem(p)}`);
    let failed = false;
    for (const scenario of sel.scenarios) {
      const suite = sel.suites.get(scenario.name);
      const file = scenario.source?.startsWith("file:") ? scenario.source.slice(5) : undefined;
      if (!suite && (!file || scenario.domain === "flow")) continue;
      // A file's scenario: its own reference actions replayed on its own world.
      const g = suite ? await suite.gold(root, scenario) : await replayGold(root, scenario);
      if (g.errors?.length) {
        // A dataset's task as well as a file's scenario: its gold is not what it claims.
        failed = true;
        for (const e of g.errors) {
          io.err(formatProblem({
            ...(file ? { file, where: scenario.name } : { file: scenario.name }),
            field: e.index < 0 ? "initialization_actions" : `expect.reference_actions[${e.index}]`,
            message: `${e.name} failed on the world: ${JSON.stringify(e.result)}`,
          }));
        }
      }
      io.out(JSON.stringify({
        name: g.name,
        domain: g.domain,
        ...(file ? { file } : {}),
        expected_db_sha256: g.expected_db_sha256,
        ...(g.expected_user_db_sha256 !== undefined
          ? { expected_user_db_sha256: g.expected_user_db_sha256 }
          : {}),
        reference_actions: g.reference_actions,
        ...(g.assertions ? { assertions: g.assertions } : {}),
        ...(file ? { reference_records: g.reference_records ?? [] } : {}),
        ...(g.errors?.length ? { errors: g.errors } : {}),
      }));
    }
    return sel.problems.length > 0 || failed ? 2 : 0;
  },
};

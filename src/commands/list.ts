import type { Command } from "../cli/io.ts";
import { formatProblem, InputError } from "../cli/problem.ts";
import { flagRows, type FlagTable, parseFlags } from "../cli/args.ts";
import { openDataRoot, sayBundled } from "../cli/data_root.ts";
import { suiteOf } from "../scenario/scenario.ts";
import { scenarioSha256 } from "../scenario/identity.ts";
import { selectScenarios, suiteIds } from "../scenario/suites.ts";
import { SELECTION_FLAGS, selectionFromFlags } from "../cli/selection_flags.ts";

const FLAGS = {
  ...SELECTION_FLAGS,
  domain: {
    ...SELECTION_FLAGS.domain,
    description: `a suite: ${suiteIds().join(", ")}`,
  },
} as const satisfies FlagTable;

const help = `list: print one scenario reference per line

Usage: cli.ts list [--data-root DIR] [--domain X]... [--scenarios a,b] [FILE.yaml|DIR ...]

${flagRows(FLAGS, { extra: [["FILE|DIR", "scenario or flow files (YAML or JSON)"]] })}

Each line: {"name","domain","suite","source","data_root","scenario_sha256"}; eval reads them
back, and refuses a reference whose scenario_sha256 (a fingerprint of the scenario as
loaded) differs from the scenario of that name in eval's data root. Entries
of the data root that fail to load are reported on stderr with file, line and field and
the rest are listed; problems in the files you name exit 2.`;

export const command: Command = {
  summary: "list scenarios (one JSON reference per line)",
  help,
  flags: FLAGS,
  async main(args, io) {
    const { values, positionals } = parseFlags(args, FLAGS);
    const root = openDataRoot(values["data-root"], io);
    // Expected states are not printed: none is computed.
    const sel = await selectScenarios(root, selectionFromFlags(values, positionals), {
      expected: false,
    });
    if (sel.fileProblems.length > 0) throw new InputError(sel.fileProblems);
    sayBundled(root, sel.scenarios, io);
    for (const p of sel.problems) io.err(`warning: ${formatProblem(p)}`);
    if (sel.scenarios.length === 0) io.err(`warning: no scenarios in ${root.path}`);
    for (const s of sel.scenarios) {
      io.out(
        JSON.stringify({
          name: s.name,
          domain: s.domain,
          suite: suiteOf(s),
          ...(s.source ? { source: s.source } : {}),
          data_root: root.path,
          scenario_sha256: scenarioSha256(s, root),
        }),
      );
    }
    return 0;
  },
};

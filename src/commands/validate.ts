/**
 * `validate FILE...`: checks scenario and flow files without running anything.
 *
 * @module
 */
import type { Command } from "../cli/io.ts";
import { flagRows, type FlagTable, parseFlags } from "../cli/args.ts";
import { formatProblem, InputError } from "../cli/problem.ts";
import { loadScenarioFiles } from "../scenario/files.ts";
import { checkRunnable, checkWarnings } from "../scenario/check.ts";
import { checkReplay } from "../scenario/check_replay.ts";
import { openDataRoot } from "../cli/data_root.ts";

const FLAGS = {
  "data-root": {
    type: "string",
    value: "DIR",
    description: "where the scenarios' worlds are (else EVAL_DATA_ROOT, else the bundled fixtures)",
  },
  replay: {
    type: "boolean",
    description: "also play each scenario's expect.reference_actions on its world and\n" +
      "compare the final hash with expect.db_sha256",
  },
} as const satisfies FlagTable;

const help = `validate: check scenario and flow files

Usage: cli.ts validate [--data-root DIR] [--replay] FILE|FOLDER...

Flags:
${flagRows(FLAGS)}

Loads every scenario file (YAML or JSON; a folder's .yaml, .yml and .json files) and
every flow file (scenarios.yaml groups: see "Flows" in the README) and checks them as
a run would: the schema, the flow rules, and that each scenario's domain, worlds (in
the data root) and named tools, functions and predicates exist, and that each reference
action's arguments are what its tool accepts (cli.ts tools --domain D lists them). With
--replay it also replays the reference actions, as gold does, and reports a call that
fails on the world and a final hash that is not expect.db_sha256. A success gated on
clean_exit while agent.tools offers no tool that ends the call is a warning.
Exit 0 when all are valid (warnings, such as flow nodes no scenario reaches, go to
stderr); exit 2 with every error, one per line, each naming the file, the line, the
scenario or node, and the field.`;

export const command: Command = {
  summary: "check scenario and flow files; located errors",
  help,
  flags: FLAGS,
  async main(args, io) {
    const { values, positionals } = parseFlags(args, FLAGS);
    if (positionals.length === 0) {
      throw new InputError({
        message: "validate needs at least one file or folder",
        hint: "see --help",
      });
    }
    const loaded = await loadScenarioFiles(positionals);
    const root = openDataRoot(values["data-root"], io);
    // As a run would: the scenarios' domains, worlds and named tools must exist.
    const runnable = await checkRunnable(loaded.scenarios, root);
    loaded.problems.push(...runnable);
    loaded.warnings.push(...await checkWarnings(loaded.scenarios));
    // A replay needs worlds and tools that exist: only when nothing else is wrong.
    if (values.replay && loaded.problems.length === 0) {
      loaded.problems.push(...await checkReplay(loaded.scenarios, root));
    }
    for (const w of loaded.warnings) io.err(`warning: ${formatProblem(w)}`);
    if (loaded.problems.length > 0) throw new InputError(loaded.problems);
    io.err(`${loaded.scenarios.length} scenario${loaded.scenarios.length === 1 ? "" : "s"} valid`);
    return 0;
  },
};

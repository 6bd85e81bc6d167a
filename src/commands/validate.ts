/**
 * `validate FILE...`: checks scenario and flow files without running anything.
 *
 * @module
 */
import type { Command } from "../cli/io.ts";
import { parseFlags } from "../cli/args.ts";
import { formatProblem, InputError } from "../cli/problem.ts";
import { loadScenarioFiles } from "../scenario/files.ts";

const help = `validate: check scenario and flow files

Usage: cli.ts validate FILE|FOLDER...

Loads every scenario file (YAML or JSON; a folder's .yaml, .yml and .json files) and
every flow file (scenarios.yaml groups, see flows.md) and checks them as a run would.
Exit 0 when all are valid (warnings, such as flow nodes no scenario reaches, go to
stderr); exit 2 with every error, one per line, each naming the file, the line, the
scenario or node, and the field.`;

export const command: Command = {
  summary: "check scenario and flow files (located errors, exit 2)",
  help,
  async main(args, io) {
    const { positionals } = parseFlags(args, {});
    if (positionals.length === 0) {
      throw new InputError({
        message: "validate needs at least one file or folder",
        hint: "see --help",
      });
    }
    const loaded = await loadScenarioFiles(positionals);
    for (const w of loaded.warnings) io.err(`warning: ${formatProblem(w)}`);
    if (loaded.problems.length > 0) throw new InputError(loaded.problems);
    io.err(`${loaded.scenarios.length} scenario${loaded.scenarios.length === 1 ? "" : "s"} valid`);
    return 0;
  },
};

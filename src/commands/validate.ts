/**
 * `validate FILE...`: checks scenario and flow files without running anything.
 *
 * @module
 */
import type { Command } from "../cli/io.ts";
import { parseFlags } from "../cli/args.ts";
import { formatProblem, InputError, type Problem } from "../cli/problem.ts";
import { loadScenarioFiles } from "../scenario/files.ts";
import { loadFlowFile } from "../flow/load.ts";

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
    const { problems, warnings } = await _withFlowSyntaxDetail(loaded.problems, loaded.warnings);
    for (const w of warnings) io.err(`warning: ${formatProblem(w)}`);
    if (problems.length > 0) throw new InputError(problems);
    io.err(`${loaded.scenarios.length} scenario${loaded.scenarios.length === 1 ? "" : "s"} valid`);
    return 0;
  },
};

/**
 * A flow file that is not even valid YAML to the general loader (an unquoted `#` in
 * a flow mapping, a duplicate key) gets the flow loader's own account, which names
 * the node and explains the trap.
 */
async function _withFlowSyntaxDetail(
  problems: Problem[],
  warnings: Problem[],
): Promise<{ problems: Problem[]; warnings: Problem[] }> {
  const broken = new Set(
    problems.filter((p) => p.file && /^invalid YAML/.test(p.message)).map((p) => p.file!),
  );
  const out = { problems: [...problems], warnings: [...warnings] };
  for (const file of broken) {
    let text: string;
    try {
      text = await Deno.readTextFile(file);
    } catch {
      continue;
    }
    if (!/^(nodes\s*:|scenarios\s*:[\s\S]*^\s*-\s*\{?\s*label\s*:)/m.test(text)) continue;
    const flow = loadFlowFile(file, text);
    if (flow.problems.length === 0) continue;
    out.problems = [...out.problems.filter((p) => p.file !== file), ...flow.problems];
    out.warnings = [...out.warnings.filter((p) => p.file !== file), ...flow.warnings];
  }
  return out;
}

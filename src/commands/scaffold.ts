/**
 * `scaffold`: writes a suite's scenarios as editable YAML files, one per scenario,
 * and prints a manifest line per file.
 *
 * @module
 */
import type { Command } from "../cli/io.ts";
import { flagRows, type FlagTable, parseFlags } from "../cli/args.ts";
import { closest, formatProblem, InputError } from "../cli/problem.ts";
import { openDataRoot, sayBundled } from "../cli/data_root.ts";
import { SELECTION_FLAGS } from "../cli/selection_flags.ts";
import { scaffoldFiles, writeScaffold } from "../scenario/scaffold.ts";
import { allSuites } from "../scenario/suites.ts";

const FLAGS = {
  domain: { type: "string", value: "X", description: "the suite to scaffold, e.g. eva_airline" },
  out: {
    type: "string",
    value: "DIR",
    description: "where to write <scenario name>.yaml files (created if needed)",
  },
  "data-root": SELECTION_FLAGS["data-root"],
  force: {
    type: "boolean",
    description: "overwrite files that differ from what would be written (edited ones)",
  },
} as const satisfies FlagTable;

const help = `scaffold: write a suite's scenarios as editable YAML scenario files

Usage: cli.ts scaffold --domain X --out DIR [--data-root DIR] [--force]

${flagRows(FLAGS)}

Deterministic and idempotent: re-running writes the same bytes. A file that differs
on disk is kept unless --force. Each file is one scenario document that list, eval
and validate read like any scenario file.

Prints one line per file: {"file","scenario","status"} with status "written",
"unchanged" or "kept" (differs on disk; not overwritten). Scaffolded files hold the
benchmark's prose: keep them out of version control unless its licence allows.`;

export const command: Command = {
  summary: "write editable scenario files from a dataset",
  help,
  flags: FLAGS,
  async main(args, io) {
    const { values, positionals } = parseFlags(args, FLAGS);
    if (positionals.length > 0) {
      throw new InputError({ message: `unexpected argument "${positionals[0]}" (see --help)` });
    }
    if (!values.domain) {
      throw new InputError({ field: "--domain", message: "missing (see --help)" });
    }
    if (!values.out) throw new InputError({ field: "--out", message: "missing (see --help)" });
    const root = openDataRoot(values["data-root"], io);
    const suites = await allSuites();
    const suite = suites.find((s) => s.id === values.domain);
    if (!suite) {
      const hint = closest(values.domain, suites.map((s) => s.id));
      throw new InputError({
        field: "--domain",
        message: `unknown suite "${values.domain}"`,
        hint: hint ? `did you mean "${hint}"?` : `known: ${suites.map((s) => s.id).join(", ")}`,
      });
    }
    if (!suite.present(root)) {
      throw new InputError({ file: root.path, message: `no ${suite.id} data in this data root` });
    }
    const { scenarios, problems } = await suite.load(root);
    sayBundled(root, scenarios, io);
    const entries = await writeScaffold(values.out, scaffoldFiles(scenarios, root), {
      force: values.force,
    });
    for (const e of entries) {
      io.out(JSON.stringify(e));
      if (e.status === "kept") {
        io.err(`warning: ${e.file} differs from the scaffold and was kept (--force overwrites)`);
      }
    }
    for (const p of problems) io.err(formatProblem(p));
    return problems.length > 0 ? 2 : 0;
  },
};

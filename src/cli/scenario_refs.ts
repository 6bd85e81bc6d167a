/** Which scenarios `eval` runs: its selection flags, else the references `list` piped in. */
import { z } from "zod";
import type { Io } from "./io.ts";
import { InputError } from "./problem.ts";
import { readJsonl } from "../jsonl/jsonl.ts";
import type { Selection } from "../scenario/suites.ts";
import { selectionFromFlags } from "./selection_flags.ts";
import type { RefIdentity } from "../scenario/identity.ts";

const ScenarioRef = z.object({
  name: z.string().min(1),
  source: z.string().optional(),
  data_root: z.string().optional(),
  scenario_sha256: z.string().optional(),
}).passthrough();

/** The run's selection: flags or files, every scenario (`--all`, a terminal), else stdin's references. */
export async function selectionFrom(
  values: { domain?: string[]; scenarios?: string[]; all?: boolean; language?: string },
  files: string[],
  io: Io,
): Promise<Selection & { dataRoot?: string; refs?: RefIdentity[] }> {
  const flags = selectionFromFlags(values, files);
  const named = flags.domains!.length > 0 || flags.scenarios!.length > 0 || files.length > 0;
  if (values.all && named) {
    throw new InputError({
      field: "--all",
      message: "selects every scenario; it does not go with --domain, --scenarios or files",
    });
  }
  // A terminal is no input: every scenario, as with --all.
  if (named || values.all || io.stdinIsTerminal) return flags;
  // Scenario references on stdin (`list | eval`).
  const names: string[] = [];
  const refFiles = new Set<string>();
  const roots = new Set<string>();
  const refs: RefIdentity[] = [];
  for await (const { line, value } of readJsonl(io.stdin)) {
    const ref = ScenarioRef.safeParse(value);
    if (!ref.success) {
      throw new InputError({
        file: "<stdin>",
        line,
        field: "name",
        message: 'expected a scenario reference {"name": ...}',
      });
    }
    names.push(ref.data.name);
    refs.push({ ...ref.data, line });
    if (ref.data.source?.startsWith("file:")) refFiles.add(ref.data.source.slice(5));
    if (typeof ref.data.data_root === "string") roots.add(ref.data.data_root);
  }
  if (roots.size > 1) {
    throw new InputError({
      file: "<stdin>",
      field: "data_root",
      message: `references from ${roots.size} data roots; run one eval per data root`,
    });
  }
  // An empty pipe is a selection that matched nothing (`list` failed, a jq filter
  // matched nothing): running everything instead could spend a paid model's budget.
  if (names.length === 0) {
    throw new InputError({
      file: "<stdin>",
      message: "no scenario references on stdin",
      hint: "pass --all to run every scenario, or select with --domain, --scenarios or files",
    });
  }
  return {
    scenarios: names,
    files: [...refFiles],
    dataRoot: [...roots][0],
    refs,
    ...(flags.language !== undefined ? { language: flags.language } : {}),
  };
}

/**
 * Scaffolding: a suite's scenarios as editable YAML scenario files, one per
 * scenario, each a self-contained `ScenarioSchema` document (prompts, known facts,
 * expectations; the world as a data-root path). The text depends only on the
 * scenario, so re-running writes the same bytes; a file that differs on disk (an
 * edited one) is kept unless forced.
 *
 * Scaffolded files hold the benchmark's prose: they belong in a working folder,
 * not in this repository.
 *
 * @module
 */
import { join } from "node:path";
import { stringify } from "yaml";
import { InputError } from "../problem/problem.ts";
import type { Scenario } from "./scenario.ts";
import type { DataRoot } from "./data_root.ts";
import { initialWorldHash } from "./identity.ts";

export interface ScaffoldFile {
  /** File name, `<scenario name>.yaml`. */
  name: string;
  scenario: string;
  text: string;
}

export type ScaffoldStatus = "written" | "unchanged" | "kept";

export interface ScaffoldEntry {
  file: string;
  scenario: string;
  status: ScaffoldStatus;
}

/** The YAML text of one scenario file. */
export function scaffoldText(scenario: Scenario): string {
  const header = [
    `# callbench scenario ${scenario.name}`,
    ...(scenario.source ? [`# scaffolded from ${scenario.source}; edit freely.`] : []),
    "# World paths are relative to the data root (--data-root or EVAL_DATA_ROOT); a world's",
    "# sha256 is its initial hash there, checked before a run.",
    "# Check an edited file with: cli.ts validate <file>",
    "",
  ].join("\n");
  return header + stringify(_editable(scenario), {
    // Quote what a YAML 1.1 reader (PyYAML) would take for a date, time or boolean,
    // so the files mean the same in every language; YAML 1.2 reads them alike.
    version: "1.1",
    lineWidth: 0,
    blockQuote: "literal",
    aliasDuplicateObjects: false,
  });
}

/**
 * One file per scenario, in the suite's order. With the data root, each world path
 * records the world's initial hash (`sha256`), so running the file against a data
 * root with another world is an error rather than a silent fallback.
 */
export function scaffoldFiles(scenarios: readonly Scenario[], root?: DataRoot): ScaffoldFile[] {
  return scenarios.map((s) => {
    const scenario = root ? withWorldHashes(s, root) : s;
    return { name: `${s.name}.yaml`, scenario: s.name, text: scaffoldText(scenario) };
  });
}

/** The scenario with each world path's initial hash recorded. */
export function withWorldHashes(s: Scenario, root: DataRoot): Scenario {
  const world = { ...s.world };
  for (const side of ["db", "user_db"] as const) {
    const source = world[side];
    if (source && "path" in source) {
      world[side] = { path: source.path, sha256: initialWorldHash(root, source.path) };
    }
  }
  return { ...s, world };
}

/**
 * Writes the files into `dir` (created if needed): new or identical files as they
 * are, a differing one only when `force` is set.
 */
export async function writeScaffold(
  dir: string,
  files: readonly ScaffoldFile[],
  options: { force?: boolean } = {},
): Promise<ScaffoldEntry[]> {
  try {
    await Deno.mkdir(dir, { recursive: true });
  } catch (e) {
    throw new InputError({
      option: "out",
      file: dir,
      message: `cannot use as an output folder: ${(e as Error).message}`,
    });
  }
  const entries: ScaffoldEntry[] = [];
  for (const f of files) {
    const file = join(dir, f.name);
    let current: string | undefined;
    try {
      current = await Deno.readTextFile(file);
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) throw e;
    }
    let status: ScaffoldStatus;
    if (current === f.text) status = "unchanged";
    else if (current !== undefined && !options.force) status = "kept";
    else {
      await Deno.writeTextFile(file, f.text);
      status = "written";
    }
    entries.push({ file, scenario: f.scenario, status });
  }
  return entries;
}

/**
 * The scenario as a reader edits it: fields in schema order, empty lists and maps
 * that the schema fills in by default left out.
 */
function _editable(s: Scenario): Record<string, unknown> {
  const out: Record<string, unknown> = { ...s };
  for (const k of ["tags", "initialization_actions"] as const) {
    if (s[k].length === 0) delete out[k];
  }
  if (Object.keys(s.world).length === 0) delete out.world;
  const user: Record<string, unknown> = { ...s.user };
  if (s.user.tools.length === 0) delete user.tools;
  if (Object.keys(s.user.known_info).length === 0) delete user.known_info;
  out.user = user;
  const expect: Record<string, unknown> = { ...s.expect };
  if (s.expect.db_state_assertions.length === 0) delete expect.db_state_assertions;
  if (s.expect.nl_assertions.length === 0) delete expect.nl_assertions;
  out.expect = expect;
  return out;
}

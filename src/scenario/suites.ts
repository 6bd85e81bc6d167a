/**
 * Every suite callbench knows, and scenario selection (by suite, by name, and
 * scenario files) shared by `list`, `gold` and `eval`.
 *
 * @module
 */
import { closest, InputError, type Problem } from "../problem/problem.ts";
import type { DataRoot } from "./data_root.ts";
import type { Scenario } from "./scenario.ts";
import type { Suite } from "./suite.ts";
import { checkRunnable } from "./check.ts";

/** The ids of the built-in suites, in listing order (loaded lazily by {@link allSuites}). */
export const BUILTIN_SUITE_IDS: readonly string[] = [
  "eva_airline",
  "tau2_airline",
  "tau2_retail",
  "tau2_telecom",
  "tau2_telecom_workflow",
  "eva_itsm",
  "eva_medical_hr",
  "tau2_banking_knowledge",
];

const registered = new Map<string, Suite>();

/**
 * Makes a suite of your own (a dataset) available beside the built-in ones, by its id:
 * `list`, `gold`, `eval` and {@link selectScenarios} find it like any other. A suite
 * of a built-in suite's id takes that suite's place.
 */
export function registerSuite(suite: Suite): void {
  registered.set(suite.id, suite);
}

/** Every suite's id: the built-in ones, then the registered ones, in listing order. */
export function suiteIds(): string[] {
  return [...new Set([...BUILTIN_SUITE_IDS, ...registered.keys()])];
}

let banking: Suite | undefined;

/** Suites in listing order: the built-in ones, then the registered ones. */
export async function allSuites(): Promise<Suite[]> {
  const [{ suite: eva }, { suites: tau2 }, release, { bankingSuite }] = await Promise.all([
    import("./eva/suite.ts"),
    import("./tau2/suites.ts"),
    import("./eva/release_suite.ts"),
    import("./tau2/banking_suite.ts"),
  ]);
  banking ??= bankingSuite();
  const builtIn = [eva, ...tau2, release.itsmSuite, release.medicalHrSuite, banking].map((s) =>
    registered.get(s.id) ?? s
  );
  const ids = new Set(builtIn.map((s) => s.id));
  return [...builtIn, ...[...registered.values()].filter((s) => !ids.has(s.id))];
}

/** Which scenarios `selectScenarios` picks: by suite, by name, from files. */
export interface Selection {
  /** Suite ids (`--domain`); none = every suite present in the data root. */
  domains?: string[];
  /** Exact scenario names (`--scenarios`); take precedence over domains. */
  scenarios?: string[];
  /** Scenario and flow files (YAML or JSON). */
  files?: string[];
  /** For `gold`: files may lack the expected hashes gold is asked to compute. */
  forGold?: boolean;
  /** The culture of suites that have several (EVA-Bench's release); default English. */
  language?: string;
}

/** What `selectScenarios` picked, and the problems it met. */
export interface Selected {
  /** The picked scenarios: the files' first (winning over a namesake), in asked order if named. */
  scenarios: Scenario[];
  /** Problems of data-root entries that did not load (the rest did): warnings. */
  problems: Problem[];
  /** Problems of the scenario files given: the user's own input, so errors. */
  fileProblems: Problem[];
  /** The suite each data-root scenario came from, by scenario name. */
  suites: Map<string, Suite>;
}

/** What {@link selectScenarios} computes besides the selection. */
export interface SelectOptions {
  /**
   * Fill the selected scenarios' expected hashes (default true: a run needs them).
   * `list` and `gold` pass false: one prints none, the other replays gold itself.
   */
  expected?: boolean;
}

/**
 * Loads and selects scenarios; unknown names or domains are input errors with hints.
 * Expected states are computed for the selected scenarios only.
 */
export async function selectScenarios(
  root: DataRoot,
  sel: Selection,
  options: SelectOptions = {},
): Promise<Selected> {
  const suites = await allSuites();
  const byId = new Map(suites.map((s) => [s.id, s]));
  const problems: Problem[] = [];
  const fileProblems: Problem[] = [];
  const fromSuites: Scenario[] = [];
  const owner = new Map<string, Suite>();

  const files = sel.files?.length ? await loadFiles(sel.files) : undefined;
  const fromFiles = files?.scenarios ?? [];
  if (files) {
    fileProblems.push(
      ...files.problems,
      ...await checkRunnable(fromFiles, root, { forGold: sel.forGold }),
    );
  }
  const names = sel.scenarios ?? [];
  const fileNames = new Set(fromFiles.map((s) => s.name));
  let wanted: Suite[];
  if (sel.domains?.length) {
    wanted = sel.domains.map((d) => {
      const s = byId.get(d);
      if (!s) {
        const hint = closest(d, byId.keys());
        throw new InputError({
          message: `unknown domain "${d}"`,
          hint: hint ? `did you mean "${hint}"?` : `known: ${[...byId.keys()].join(", ")}`,
        });
      }
      if (!s.present(root)) {
        throw new InputError({
          file: root.path,
          message: `domain "${d}" has no data in this data root`,
        });
      }
      return s;
    });
  } else if (files && names.every((n) => fileNames.has(n))) {
    wanted = []; // the files hold everything asked for
  } else if (names.length > 0 && names.every((n) => fileNames.has(n) || byId.has(_prefix(n)))) {
    // Names say their suite (`<suite>__<id>`): load only those suites.
    const ids = new Set(names.filter((n) => !fileNames.has(n)).map(_prefix));
    wanted = suites.filter((s) => ids.has(s.id) && s.present(root));
  } else {
    wanted = suites.filter((s) => s.present(root));
  }
  for (const s of wanted) {
    // One broken data file costs its own suite, not the others.
    let r;
    try {
      r = await s.load(root, { expected: false, language: sel.language });
    } catch (e) {
      if (!(e instanceof InputError)) throw e;
      problems.push(...e.problems.map((p) => ({ ...p, where: p.where ?? `suite ${s.id}` })));
      continue;
    }
    problems.push(...r.problems);
    for (const sc of r.scenarios) owner.set(sc.name, s);
    fromSuites.push(...r.scenarios);
  }
  // A scenario file wins over a data-root scenario of the same name.
  const scenarios = [...fromFiles, ...fromSuites.filter((s) => !fileNames.has(s.name))];
  if (names.length) {
    const index = new Map(scenarios.map((s) => [s.name, s]));
    const picked = names.map((name) => {
      // Another name of a scenario (eva's numbered names of its named seeds).
      const s = index.get(name) ??
        index.get(suites.find((x) => x.id === _prefix(name))?.canonicalName?.(name) ?? "");
      if (!s) {
        const hint = closest(name, index.keys());
        throw new InputError({
          message: `unknown scenario "${name}" in ${root.path}${
            sel.files?.length ? " and the given files" : ""
          }`,
          hint: hint ? `did you mean "${hint}"?` : undefined,
        });
      }
      return s;
    });
    if (options.expected ?? true) await _expect(root, picked, owner, fromFiles);
    return { scenarios: picked, problems, fileProblems, suites: owner };
  }
  if (options.expected ?? true) await _expect(root, scenarios, owner, fromFiles);
  return { scenarios, problems, fileProblems, suites: owner };
}

/** Fills the expected hashes of data-root scenarios, suite by suite. */
async function _expect(
  root: DataRoot,
  scenarios: readonly Scenario[],
  owner: ReadonlyMap<string, Suite>,
  fromFiles: readonly Scenario[],
): Promise<void> {
  const files = new Set(fromFiles);
  const bySuite = new Map<Suite, Scenario[]>();
  for (const s of scenarios) {
    const suite = owner.get(s.name);
    // A scenario file carries its own expectations, even under a data-root name.
    if (!suite || files.has(s)) continue;
    let list = bySuite.get(suite);
    if (!list) bySuite.set(suite, list = []);
    list.push(s);
  }
  for (const [suite, list] of bySuite) await suite.expect(root, list);
}

function _prefix(name: string): string {
  return name.split("__", 1)[0]!;
}

async function loadFiles(files: string[]): Promise<{ scenarios: Scenario[]; problems: Problem[] }> {
  const { loadScenarioFiles } = await import("./files.ts");
  return loadScenarioFiles(files);
}

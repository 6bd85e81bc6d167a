/**
 * Every suite callbench knows, and scenario selection (`--domain`, `--scenarios`,
 * scenario files) shared by `list`, `gold` and `eval`.
 *
 * @module
 */
import { closest, InputError, type Problem } from "../cli/problem.ts";
import type { DataRoot } from "./data_root.ts";
import type { Scenario } from "./scenario.ts";
import type { Suite } from "./suite.ts";

/** Suites in listing order. */
export async function allSuites(): Promise<Suite[]> {
  const [{ suite: eva }, { suites: tau2 }] = await Promise.all([
    import("./eva/suite.ts"),
    import("./tau2/suites.ts"),
  ]);
  return [eva, ...tau2];
}

export interface Selection {
  /** Suite ids (`--domain`); none = every suite present in the data root. */
  domains?: string[];
  /** Exact scenario names (`--scenarios`); take precedence over domains. */
  scenarios?: string[];
  /** Scenario and flow files (YAML or JSON). */
  files?: string[];
}

export interface Selected {
  scenarios: Scenario[];
  /** Problems of entries that did not load (the rest did). */
  problems: Problem[];
  suites: Map<string, Suite>;
}

/** Loads and selects scenarios; unknown names or domains are input errors with hints. */
export async function selectScenarios(root: DataRoot, sel: Selection): Promise<Selected> {
  const suites = await allSuites();
  const byId = new Map(suites.map((s) => [s.id, s]));
  const problems: Problem[] = [];
  const scenarios: Scenario[] = [];
  const owner = new Map<string, Suite>();

  const fileScenarios = sel.files?.length ? await loadFiles(sel.files) : undefined;
  if (fileScenarios) {
    problems.push(...fileScenarios.problems);
    scenarios.push(...fileScenarios.scenarios);
  }
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
  } else if (fileScenarios && !sel.scenarios?.length) {
    wanted = [];
  } else {
    wanted = suites.filter((s) => s.present(root));
  }
  for (const s of wanted) {
    const r = await s.load(root);
    problems.push(...r.problems);
    for (const sc of r.scenarios) owner.set(sc.name, s);
    scenarios.push(...r.scenarios);
  }
  if (sel.scenarios?.length) {
    const index = new Map(scenarios.map((s) => [s.name, s]));
    const picked = sel.scenarios.map((name) => {
      const s = index.get(name);
      if (!s) {
        const hint = closest(name, index.keys());
        throw new InputError({
          message: `unknown scenario "${name}"`,
          hint: hint ? `did you mean "${hint}"?` : undefined,
        });
      }
      return s;
    });
    return { scenarios: picked, problems, suites: owner };
  }
  return { scenarios, problems, suites: owner };
}

async function loadFiles(files: string[]): Promise<{ scenarios: Scenario[]; problems: Problem[] }> {
  const { loadScenarioFiles } = await import("./files.ts");
  return loadScenarioFiles(files);
}

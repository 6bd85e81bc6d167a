/**
 * A tau2 suite from a data root's `<domain>/` folder: one scenario per task of the
 * voice ∩ base set, with the benchmark's policy as the agent prompt, a caller
 * prompt and scripted-caller facts from the task's `user_scenario`, the reference
 * actions (side from `requestor`), the state assertions and initialisation actions
 * (`env_type` renamed to `side`, `assistant` to `agent`), and the expected hashes
 * of the gold replay.
 *
 * Expected hashes are computed only when asked for (`load` by default, `expect` for
 * chosen scenarios, `gold`), once per scenario and process, and kept across
 * processes in the {@link GoldCache}: `list` replays nothing.
 *
 * A task naming a tool, predicate or initialisation function the domain lacks is a
 * located problem (scenario and field); the other tasks still load.
 *
 * @module
 */
import { closest, fieldText, type Problem } from "../../problem/problem.ts";
import type { Domain, Side } from "../../domains/domain.ts";
import { getDomain } from "../../domains/registry.ts";
import type { DataRoot } from "../data_root.ts";
import { type Scenario, type ScenarioInput, ScenarioSchema, type Signal } from "../scenario.ts";
import type { Gold, LoadResult, Suite } from "../suite.ts";
import { GoldCache } from "../gold_cache.ts";
import { callerFacts, openingLine } from "./caller_facts.ts";
import { firstPersonSentences } from "../caller_needs.ts";
import { replayGold } from "./gold.ts";
import { compareIds, compareNumericIds } from "./names.ts";
import { userPrompt } from "./prompts.ts";
import { sideOf, type Tau2Task } from "./task.ts";
import { taskIndex, taskLine } from "./task_index.ts";

/** The reference's limit for a tau2 call, seconds. */
const MAX_DURATION_S = 900;

export interface Tau2SuiteConfig {
  /** Suite id and scenario-name prefix, e.g. `tau2_telecom_workflow`. */
  id: string;
  /** Tool-registry domain, which is also the data folder, e.g. `tau2_telecom`. */
  domain: string;
  /** The scenarios' "today" (tau2 tasks carry no date). */
  today: string;
  /** Worlds, relative to the data root. */
  world: { db: string; user_db?: string };
  /** Registration order: numeric ids (airline, retail) or alphabetical (telecom). */
  order: "numeric" | "alphabetical";
  /** Text files the agent prompt is made of, relative to the data root. */
  policyFiles: readonly string[];
  /** The scenario name of a task id; undefined when the id is malformed. */
  name(id: string): string | undefined;
  /** The agent's system prompt, from the policy files' texts (in `policyFiles` order). */
  agentPrompt(policies: readonly string[], domain: Domain): string;
  /** The signal that judges the end state: hash match, or state assertions (telecom). */
  stateSignal: "db_state_match" | "db_state_assertion";
  /** Whether the task's `nl_assertions` are scored (the reference does for retail). */
  nlAssertions: boolean;
  /** Dual control: the caller has phone tools and a four-step script (telecom). */
  callerHasTools: boolean;
}

/** What a tau2 suite computes gold with; tests inject their own. */
export interface Tau2SuiteDeps {
  /** The gold replay (default {@link replayGold}). */
  replay?: (root: DataRoot, scenario: Scenario) => Promise<Gold>;
  /** The on-disk cache (default: one shared by the tau2 suites, in the default folder). */
  cache?: GoldCache;
}

/** The tau2 suites' shared cache, keyed by the code reachable from the replay module. */
export const tau2GoldCache: GoldCache = new GoldCache(new URL("./gold.ts", import.meta.url));

const loads = new WeakMap<DataRoot, Map<string, Promise<LoadResult>>>();

export function tau2Suite(config: Tau2SuiteConfig, deps: Tau2SuiteDeps = {}): Suite {
  const replay = deps.replay ?? replayGold;
  const cache = deps.cache ?? tau2GoldCache;
  // Per suite object, so that suites with other deps never share a result.
  const golds = new WeakMap<Scenario, Promise<Gold>>();
  const load = (root: DataRoot): Promise<LoadResult> => {
    let bySuite = loads.get(root);
    if (!bySuite) loads.set(root, bySuite = new Map());
    let p = bySuite.get(config.id);
    if (!p) bySuite.set(config.id, p = _load(root, config));
    return p;
  };
  const gold = (root: DataRoot, scenario: Scenario): Promise<Gold> => {
    let p = golds.get(scenario);
    if (!p) {
      p = cache.get(root, scenario, () => replay(root, scenario));
      golds.set(scenario, p);
      p.catch(() => golds.delete(scenario));
    }
    return p;
  };
  const expect = async (root: DataRoot, scenarios: readonly Scenario[]) => {
    for (const scenario of scenarios) {
      const g = await gold(root, scenario);
      if (g.expected_db_sha256) scenario.expect.db_sha256 = g.expected_db_sha256;
      if (g.expected_user_db_sha256) scenario.expect.user_db_sha256 = g.expected_user_db_sha256;
    }
  };
  return {
    id: config.id,
    domain: config.domain,
    present: (root) =>
      root.exists(`${config.domain}/tasks.json`) &&
      root.exists(`${config.domain}/tasks_voice.json`),
    async load(root, options = {}) {
      const { scenarios, problems } = await load(root);
      if (options.expected ?? true) await expect(root, scenarios);
      return { scenarios: [...scenarios], problems: [...problems] };
    },
    expect,
    gold,
  };
}

/** Problems with the suite's worlds, as `check` finds them (each named by its file). */
function worldProblems(
  root: DataRoot,
  config: Tau2SuiteConfig,
  check: (world: string) => void,
): Problem[] {
  const problems: Problem[] = [];
  for (const world of [config.world.db, config.world.user_db]) {
    if (world === undefined) continue;
    try {
      check(world);
    } catch (e) {
      problems.push({ file: root.resolve(world), where: config.id, message: _text(e) });
    }
  }
  return problems;
}

async function _load(root: DataRoot, config: Tau2SuiteConfig): Promise<LoadResult> {
  const problems: Problem[] = [];
  const empty = (): LoadResult => ({ scenarios: [], problems });
  let domain: Domain;
  try {
    domain = await getDomain(config.domain);
  } catch (e) {
    problems.push({
      where: config.id,
      message: `domain "${config.domain}" is not available: ${_text(e)}`,
    });
    return empty();
  }
  const policies: string[] = [];
  for (const file of config.policyFiles) {
    try {
      policies.push(root.text(file));
    } catch (e) {
      problems.push({ file: root.resolve(file), where: config.id, message: _text(e) });
    }
  }
  // The worlds must be there; they are parsed only when something needs them (gold,
  // a trial: a world that does not parse is then an input error naming its file and
  // line), so `list` reads none of their megabytes.
  problems.push(...worldProblems(root, config, (w) => {
    const stem = w.replace(/\.json$/, "");
    if (!root.exists(`${stem}.json`) && !root.exists(stem)) throw new Error("no such world");
  }));
  if (problems.length > 0) return empty();

  const index = taskIndex(root, config.domain);
  problems.push(...index.problems);
  const agent = {
    prompt: config.agentPrompt(policies, domain),
    tools: domain.tools.filter((t) => t.side === "agent").map((t) => t.name),
  };
  const userTools = config.callerHasTools
    ? domain.tools.filter((t) => t.side === "user").map((t) => t.name)
    : [];
  const tasksFile = `${config.domain}/tasks.json`;

  const built: { id: string; scenario: Scenario }[] = [];
  const names = new Set<string>();
  for (const { task, persona } of index.tasks) {
    const name = config.name(task.id);
    const located = (field: string | undefined, message: string, hint?: string): Problem => ({
      file: root.resolve(tasksFile),
      line: taskLine(root, tasksFile, task.id),
      where: name ?? `task ${JSON.stringify(task.id)}`,
      ...(field ? { field } : {}),
      message,
      ...(hint ? { hint } : {}),
    });
    if (name === undefined) {
      problems.push(located("id", "task id is not of the form [category]issue|issue[PERSONA:p]"));
      continue;
    }
    if (names.has(name)) {
      problems.push(located("id", `another task already has the scenario name "${name}"`));
      continue;
    }
    const unknown = _unknownNames(task, domain);
    if (unknown.length > 0) {
      for (const u of unknown) problems.push(located(u.field, u.message, u.hint));
      continue;
    }
    const parsed = ScenarioSchema.safeParse(
      _scenarioInput(config, task, name, persona, agent, userTools),
    );
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        problems.push(located(fieldText(issue.path), issue.message));
      }
      continue;
    }
    names.add(name);
    built.push({ id: task.id, scenario: parsed.data });
  }
  const compare = config.order === "numeric" ? compareNumericIds : compareIds;
  built.sort((a, b) => compare(a.id, b.id));
  return { scenarios: built.map((b) => b.scenario), problems };
}

function _scenarioInput(
  config: Tau2SuiteConfig,
  task: Tau2Task,
  name: string,
  persona: string | undefined,
  agent: { prompt: string; tools: string[] },
  userTools: string[],
): ScenarioInput {
  const instructions = task.user_scenario?.instructions ?? {};
  const reason = instructions.reason_for_call ?? "";
  const criteria = task.evaluation_criteria ?? {};
  const nl = config.nlAssertions ? criteria.nl_assertions ?? [] : [];
  const signals: Signal[] = [config.stateSignal];
  if (nl.length > 0) signals.push("nl_assertion");
  signals.push("clean_exit");
  const purpose = task.description?.purpose?.trim();
  return {
    name,
    domain: config.domain,
    suite: config.id,
    description: purpose || openingLine(reason).replace(/^Hi\. /, ""),
    source: `tau2:${task.id}`,
    today: config.today,
    max_duration_s: MAX_DURATION_S,
    tags: persona ? [`persona:${persona}`] : [],
    world: {
      db: { path: config.world.db },
      ...(config.world.user_db ? { user_db: { path: config.world.user_db } } : {}),
    },
    initialization_actions: (task.initial_state?.initialization_actions ?? []).map((a) => ({
      side: sideOf(a.env_type),
      func_name: a.func_name,
      arguments: a.arguments ?? {},
    })),
    agent,
    user: {
      prompt: userPrompt(instructions, config.callerHasTools),
      tools: userTools,
      opening: openingLine(reason),
      known_info: callerFacts(instructions.known_info ?? "", reason),
      needs: {
        goal: firstPersonSentences(reason).join(" "),
        must_have: [],
        nice_to_have: [],
        unknown: firstPersonSentences(instructions.unknown_info ?? ""),
        limits: {},
        preferred: {},
      },
    },
    expect: {
      db_state_assertions: (criteria.env_assertions ?? []).map((a) => ({
        side: sideOf(a.env_type),
        func_name: a.func_name,
        arguments: a.arguments ?? {},
        assert_value: a.assert_value,
        ...(a.message !== undefined ? { message: a.message } : {}),
      })),
      reference_actions: (criteria.actions ?? []).map((a) => ({
        side: sideOf(a.requestor),
        name: a.name,
        arguments: a.arguments ?? {},
        ...(a.compare_args !== undefined ? { compare_args: a.compare_args } : {}),
      })),
      nl_assertions: nl,
    },
    success_signals: signals,
  };
}

interface Unknown {
  field: string;
  message: string;
  hint?: string;
}

/** Tools, predicates and initialisation functions a task names that the domain lacks. */
function _unknownNames(task: Tau2Task, domain: Domain): Unknown[] {
  const out: Unknown[] = [];
  const check = (
    field: string,
    kind: string,
    name: string,
    side: Side,
    known: readonly string[],
  ) => {
    if (known.includes(name)) return;
    const near = closest(name, known);
    out.push({
      field,
      message: `unknown ${side}-side ${kind} "${name}" in domain ${domain.id}`,
      ...(near ? { hint: `did you mean "${near}"?` } : {}),
    });
  };
  const toolNames = (side: Side) =>
    domain.tools.filter((t) => t.side === side).flatMap((t) => [t.name, ...(t.aliases ?? [])]);
  (task.evaluation_criteria?.actions ?? []).forEach((a, i) => {
    const side = sideOf(a.requestor);
    check(`evaluation_criteria.actions[${i}].name`, "tool", a.name, side, toolNames(side));
  });
  (task.evaluation_criteria?.env_assertions ?? []).forEach((a, i) => {
    const side = sideOf(a.env_type);
    const known = Object.keys(domain.predicates?.[side] ?? {});
    check(
      `evaluation_criteria.env_assertions[${i}].func_name`,
      "predicate",
      a.func_name,
      side,
      known,
    );
  });
  (task.initial_state?.initialization_actions ?? []).forEach((a, i) => {
    const side = sideOf(a.env_type);
    const known = Object.keys(domain.initFunctions?.[side] ?? {});
    check(
      `initial_state.initialization_actions[${i}].func_name`,
      "initialization function",
      a.func_name,
      side,
      known,
    );
  });
  return out;
}

function _text(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

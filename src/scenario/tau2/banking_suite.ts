/**
 * The τ-voice banking suite (`tau2_banking_knowledge`): one scenario per task of
 * `tasks_voice.json` found in `tasks.json` (97), in task-id order, over the bank's
 * database and its knowledge base. The agent's prompt is the policy template of
 * the retrieval variant in use (its components, and the whole knowledge base or
 * the task's required documents where the variant inlines them); its tools are
 * the bank's and the variant's searches. The caller's prompt is the task's
 * instructions, and the caller has the bank's customer tools.
 *
 * Each task's `initialization_data.agent_data` becomes an `update_db`
 * initialisation action, and the discoverable tools its gold calls become a
 * `log_reads_of` one (the reference logs calls of those read-only tools only);
 * the variant is a scenario tag, so every process that runs the scenario uses it.
 * A DB task succeeds on the gold replay's hash, an ACTION task on its actions.
 *
 * @module
 */
import { z } from "zod";
import { fieldText, type Problem } from "../../problem/problem.ts";
import type { Domain } from "../../domains/domain.ts";
import { getDomain } from "../../domains/registry.ts";
import {
  activeEmbeddingsUrl,
  activeVariant,
  DOCUMENTS_DIR,
  EMBEDDINGS_TAG,
  loadKnowledgeBase,
  VARIANT_TAG,
  variantTools,
} from "../../domains/tau2_banking_knowledge/mod.ts";
import type { KnowledgeBase } from "../../domains/tau2_banking_knowledge/knowledge_base.ts";
import type { RetrievalVariant } from "../../domains/tau2_banking_knowledge/variants.ts";
import type { DataRoot } from "../data_root.ts";
import { GoldCache } from "../gold_cache.ts";
import { type Scenario, type ScenarioInput, ScenarioSchema } from "../scenario.ts";
import type { Gold, LoadResult, Suite } from "../suite.ts";
import { replayGold } from "./gold.ts";
import { numberedName } from "./names.ts";
import { agentPrompt, SPELL_IDENTIFIERS, VOICE_STYLE } from "./prompts.ts";
import { sideOf, Tau2ActionSchema } from "./task.ts";
import { taskLine } from "./task_index.ts";

export const BANKING_SUITE = "tau2_banking_knowledge";
const DIR = BANKING_SUITE;
/** The reference's fixed date for every banking scenario (its tools print 11/14/2025). */
export const BANKING_TODAY = "2025-11-14";
const MAX_DURATION_S = 900;
const KNOWLEDGE_TOOLS = new Set(["KB_search", "grep"]);

const BankingTaskSchema = z.looseObject({
  id: z.string().min(1),
  description: z.looseObject({ purpose: z.string().nullish() }).nullish(),
  user_scenario: z.looseObject({ instructions: z.string() }),
  initial_state: z.looseObject({
    initialization_data: z.looseObject({
      agent_data: z.record(z.string(), z.unknown()).nullish(),
    }).nullish(),
  }).nullish(),
  evaluation_criteria: z.looseObject({
    actions: z.array(Tau2ActionSchema).nullish(),
    reward_basis: z.array(z.string()).nullish(),
  }),
  required_documents: z.array(z.string()).nullish(),
});
type BankingTask = z.infer<typeof BankingTaskSchema>;

const bankingGoldCache = new GoldCache(new URL("./banking_suite.ts", import.meta.url));
const loads = new WeakMap<DataRoot, Map<string, Promise<LoadResult>>>();

export function bankingSuite(): Suite {
  const golds = new WeakMap<Scenario, Promise<Gold>>();
  const gold = (root: DataRoot, scenario: Scenario): Promise<Gold> => {
    let p = golds.get(scenario);
    if (!p) {
      p = bankingGoldCache.get(root, scenario, () => replayGold(root, scenario));
      golds.set(scenario, p);
      p.catch(() => golds.delete(scenario));
    }
    return p;
  };
  const expect = async (root: DataRoot, scenarios: readonly Scenario[]) => {
    for (const s of scenarios) {
      const g = await gold(root, s);
      if (g.expected_db_sha256) s.expect.db_sha256 = g.expected_db_sha256;
    }
  };
  return {
    id: BANKING_SUITE,
    domain: BANKING_SUITE,
    present: (root) =>
      root.exists(`${DIR}/tasks.json`) && root.exists(`${DIR}/tasks_voice.json`) &&
      root.exists(`${DIR}/db.json`),
    async load(root, options = {}) {
      // Loaded once per data root and variant: the variant shapes every scenario.
      let byVariant = loads.get(root);
      if (!byVariant) loads.set(root, byVariant = new Map());
      const variant = activeVariant();
      const url = variant.dense ? activeEmbeddingsUrl() : undefined;
      const cacheKey = `${variant.name}\n${url ?? ""}`;
      let p = byVariant.get(cacheKey);
      if (!p) byVariant.set(cacheKey, p = loadBanking(root, variant, url));
      const { scenarios, problems } = await p;
      if (options.expected ?? true) await expect(root, scenarios);
      return { scenarios: [...scenarios], problems: [...problems] };
    },
    expect,
    gold,
  };
}

async function loadBanking(
  root: DataRoot,
  variant: RetrievalVariant,
  embeddingsUrl: string | undefined,
): Promise<LoadResult> {
  const problems: Problem[] = [];
  const tasksFile = `${DIR}/tasks.json`;
  const voiceFile = `${DIR}/tasks_voice.json`;
  const domain: Domain = await getDomain(BANKING_SUITE);
  let template: string;
  let kb: KnowledgeBase | undefined;
  try {
    template = policyTemplate(root, variant);
    if (variant.inline !== "none") kb = loadKnowledgeBase(root.resolve(DOCUMENTS_DIR));
  } catch (e) {
    problems.push({ file: root.resolve(DIR), where: BANKING_SUITE, message: text(e) });
    return { scenarios: [], problems };
  }
  const voice = root.jsonOnce<{ configs?: Record<string, unknown> }>(voiceFile);
  if (typeof voice?.configs !== "object" || voice.configs === null) {
    problems.push({
      file: root.resolve(voiceFile),
      field: "configs",
      message: "missing the task configs",
    });
    return { scenarios: [], problems };
  }
  const voiceIds = new Set(Object.keys(voice.configs));
  const raw = root.json<unknown>(tasksFile);
  if (!Array.isArray(raw)) {
    problems.push({ file: root.resolve(tasksFile), message: "expected a list of tasks" });
    return { scenarios: [], problems };
  }
  const agentTools = domain.tools.filter((t) =>
    t.side === "agent" && (!KNOWLEDGE_TOOLS.has(t.name) || variantTools(variant).includes(t.name))
  ).map((t) => t.name);
  const userTools = domain.tools.filter((t) => t.side === "user").map((t) => t.name);
  const fullKbPolicy = variant.inline === "full_kb" ? inlineFullKb(template, kb!) : undefined;
  const ints = intFields(root.text(tasksFile));

  const built: { id: string; scenario: Scenario }[] = [];
  const found = new Set<string>();
  raw.forEach((entry, i) => {
    const id = typeof entry?.id === "string" ? entry.id : undefined;
    if (id !== undefined && !voiceIds.has(id)) return;
    if (id !== undefined) found.add(id);
    const located = (field: string | undefined, message: string): Problem => ({
      file: root.resolve(tasksFile),
      line: taskLine(root, tasksFile, id),
      where: id !== undefined ? `task ${JSON.stringify(id)}` : `task #${i}`,
      ...(field ? { field } : {}),
      message,
    });
    const parsed = BankingTaskSchema.safeParse(entry);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        problems.push(located(fieldText(issue.path), issue.message));
      }
      return;
    }
    const task = parsed.data;
    const policy = variant.inline === "required_documents"
      ? inlineRequired(template, kb!, task.required_documents ?? [])
      : fullKbPolicy ?? template;
    const input = scenarioInput(
      task,
      variant,
      agentPrompt(policy),
      agentTools,
      userTools,
      ints.get(task.id) ?? [],
    );
    if (embeddingsUrl !== undefined) {
      input.tags = [...input.tags ?? [], `${EMBEDDINGS_TAG}${embeddingsUrl}`];
    }
    const unknown = (input.expect?.reference_actions ?? []).flatMap((a, k) =>
      domain.tools.some((t) => t.side === a.side && t.name === a.name) ? [] : [
        located(
          `evaluation_criteria.actions[${k}].name`,
          `unknown ${a.side}-side tool "${a.name}"`,
        ),
      ]
    );
    if (unknown.length > 0) {
      problems.push(...unknown);
      return;
    }
    const scenario = ScenarioSchema.safeParse(input);
    if (!scenario.success) {
      for (const issue of scenario.error.issues) {
        problems.push(located(fieldText(issue.path), issue.message));
      }
      return;
    }
    built.push({ id: task.id, scenario: scenario.data });
  });
  for (const id of voiceIds) {
    if (!found.has(id)) {
      problems.push({
        file: root.resolve(voiceFile),
        where: `task ${JSON.stringify(id)}`,
        message: "voice task not found in tasks.json",
      });
    }
  }
  built.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { scenarios: built.map((b) => b.scenario), problems };
}

function scenarioInput(
  task: BankingTask,
  variant: RetrievalVariant,
  prompt: string,
  agentTools: string[],
  userTools: string[],
  ints: readonly [string, string, string][],
): ScenarioInput {
  const actions = (task.evaluation_criteria.actions ?? []).map((a) => ({
    side: sideOf(a.requestor),
    name: a.name,
    arguments: a.arguments ?? {},
    ...(a.compare_args !== undefined && a.compare_args !== null
      ? { compare_args: a.compare_args }
      : {}),
  }));
  const init: ScenarioInput["initialization_actions"] = [];
  const agentData = task.initial_state?.initialization_data?.agent_data;
  if (agentData) {
    init.push({
      side: "agent",
      func_name: "update_db",
      arguments: { data: agentData, ...(ints.length > 0 ? { ints: ints.map((m) => [...m]) } : {}) },
    });
  }
  // The reference logs calls of read-only discoverable tools only when the gold calls them.
  const reads = [
    ...new Set(
      actions.filter((a) => a.name === "call_discoverable_agent_tool")
        .map((a) => a.arguments.agent_tool_name)
        .filter((n): n is string => typeof n === "string" && n !== ""),
    ),
  ];
  if (reads.length > 0) {
    init.push({ side: "agent", func_name: "log_reads_of", arguments: { tools: reads } });
  }
  const byActions = (task.evaluation_criteria.reward_basis ?? []).includes("ACTION");
  return {
    name: numberedName(BANKING_SUITE, task.id),
    domain: BANKING_SUITE,
    suite: BANKING_SUITE,
    description: task.description?.purpose?.trim() || task.id,
    source: `tau2:${task.id}`,
    today: BANKING_TODAY,
    max_duration_s: MAX_DURATION_S,
    tags: [`${VARIANT_TAG}${variant.name}`],
    world: { db: { path: `${DIR}/db.json` } },
    initialization_actions: init,
    agent: { prompt, tools: agentTools },
    user: {
      prompt: callerPrompt(task.user_scenario.instructions),
      tools: userTools,
      opening: "Hi, I'm calling about my account.",
      known_info: {},
    },
    expect: { db_state_assertions: [], reference_actions: actions, nl_assertions: [] },
    success_signals: [byActions ? "is_action_match" : "db_state_match", "clean_exit"],
  };
}

/** A number written as an integer literal in the source text. */
class IntLiteral {
  constructor(readonly value: number) {}
}

/**
 * By task id, the record fields its initial data writes as integer literals
 * (`[table, record id, field]`): JSON parsing loses the difference, the reference's
 * Python keeps it and prints `0` where a float prints `0.0`.
 */
function intFields(text: string): Map<string, [string, string, string][]> {
  const tasks = JSON.parse(
    text,
    (_k, v, context?: { source?: string }) =>
      typeof v === "number" && /^-?\d+$/.test(context?.source ?? "") ? new IntLiteral(v) : v,
  ) as unknown;
  const out = new Map<string, [string, string, string][]>();
  if (!Array.isArray(tasks)) return out;
  for (const task of tasks) {
    const data = task?.initial_state?.initialization_data?.agent_data;
    if (typeof task?.id !== "string" || typeof data !== "object" || data === null) continue;
    const marks: [string, string, string][] = [];
    for (const [table, value] of Object.entries(data as Record<string, unknown>)) {
      const records = (value as { data?: unknown } | null)?.data;
      if (typeof records !== "object" || records === null) continue;
      for (const [id, record] of Object.entries(records as Record<string, unknown>)) {
        if (typeof record !== "object" || record === null) continue;
        for (const [field, v] of Object.entries(record as Record<string, unknown>)) {
          if (v instanceof IntLiteral) marks.push([table, id, field]);
        }
      }
    }
    if (marks.length > 0) out.set(task.id, marks);
  }
  return out;
}

/** The caller's prompt: the task's instructions, then how to speak on the phone. */
function callerPrompt(instructions: string): string {
  return [
    "You are a human user calling customer support.",
    instructions.trim(),
    `Stay in this role for the whole call and never say you are an AI. ${VOICE_STYLE}`,
    `# Guidelines\n\n- ${SPELL_IDENTIFIERS}`,
  ].join("\n\n");
}

/** The variant's template with its `{{component:NAME}}` parts filled in. */
function policyTemplate(root: DataRoot, variant: RetrievalVariant): string {
  const template = root.text(`${DIR}/prompts/${variant.prompt}`);
  return template.replace(
    /\{\{component:(\w+)\}\}/g,
    (_m, name: string) => root.text(`${DIR}/prompts/components/${name}.md`),
  );
}

function docText(d: { title: string; content: string }): string {
  return `## ${d.title}\n\n${d.content}`;
}

function inlineFullKb(template: string, kb: KnowledgeBase): string {
  const all = kb.documents.map(docText).join("\n\n---\n\n");
  return template.replaceAll("{{full_knowledge_base}}", () => all);
}

/** `{{required_documents}}`: each named document (by title, else id), or a note when none. */
function inlineRequired(template: string, kb: KnowledgeBase, refs: readonly string[]): string {
  const byTitle = new Map(kb.documents.map((d) => [d.title, d]));
  const docs = refs.map((r) => byTitle.get(r) ?? kb.byId.get(r)).filter((d) => d !== undefined);
  const body = docs.length > 0 ? docs.map(docText).join("\n\n---\n\n") : "(No documents provided)";
  return template.replaceAll("{{required_documents}}", () => body);
}

function text(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

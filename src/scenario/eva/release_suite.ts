/**
 * A suite of EVA-Bench's later release (ServiceNow/eva commit 997ae97): one dataset
 * file of records, a world `<id>.json` per record, the agent's YAML, and alias tables
 * under `aliases/`. Each record is one scenario in the language asked (default
 * English): its world and expected end state resolved for that culture (names
 * filled, aliases injected) as the reference resolves them, the caller's opening
 * that language's starting utterance, and the reference actions the gold trace's
 * tool calls. A bad record or a missing world is a located problem; the others
 * still load.
 *
 * @module
 */
import { join } from "node:path";
import { parseDocument } from "yaml";
import { z } from "zod";
import type { Problem } from "../../problem/problem.ts";
import { dbHashOf, DEFAULT_HASH_VARIANT } from "../../canonical/hash_variant.ts";
import type { DataRoot } from "../data_root.ts";
import { type Scenario, ScenarioSchema } from "../scenario.ts";
import type { Gold, LoadOptions, LoadResult, Suite } from "../suite.ts";
import { openEnvironment, WORLD_SEED } from "../open_environment.ts";
import {
  type AliasTable,
  AliasTableSchema,
  type Culture,
  CultureError,
  cultureValues,
  fillCulture,
  fillLocations,
  resolveWorld,
} from "./culture.ts";
import { goldSteps, type ReleaseRecord, ReleaseRecordSchema } from "./release_record.ts";
import { replayRebinding } from "./gold_rebind.ts";
import { getDomain } from "../../domains/registry.ts";
import { type Domain, findTool } from "../../domains/domain.ts";
import { Environment } from "../../env/environment.ts";
import { deepFreeze } from "../../env/deep_freeze.ts";
import { releaseAgentPrompt, releaseUserPrompt } from "./release_prompts.ts";

/** Where a release suite's data lives under the data root. */
export interface ReleaseSpec {
  /** Suite and domain id (`eva_itsm`). */
  id: string;
  /** Folder under the data root (`eva_itsm`). */
  folder: string;
  /** The dataset file in that folder. */
  dataset: string;
  /** The agent configuration in that folder. */
  agent: string;
}

/** The reference's limit for an eva call. */
const MAX_DURATION_S = 900;

/** The language of a load that names none. */
export const DEFAULT_LANGUAGE = "en";

const AgentConfigSchema = z.looseObject({
  role: z.string(),
  instructions: z.string(),
  tools: z.array(z.looseObject({ id: z.string() })).default([]),
});

interface Loaded {
  scenarios: Scenario[];
  problems: Problem[];
}

/** A release suite over its data. */
export function releaseSuite(spec: ReleaseSpec): Suite {
  const loads = new WeakMap<DataRoot, Map<string, Promise<Loaded>>>();
  const load = (root: DataRoot, language: string): Promise<Loaded> => {
    let byLanguage = loads.get(root);
    if (!byLanguage) loads.set(root, byLanguage = new Map());
    let p = byLanguage.get(language);
    if (!p) {
      p = Promise.resolve().then(() => loadRelease(root, spec, language));
      byLanguage.set(language, p);
    }
    return p;
  };
  return {
    id: spec.id,
    domain: spec.id,
    present: (root) => root.exists(join(spec.folder, spec.dataset)),
    async load(root, options: LoadOptions = {}): Promise<LoadResult> {
      const { scenarios, problems } = await load(root, options.language ?? DEFAULT_LANGUAGE);
      return { scenarios: [...scenarios], problems: [...problems] };
    },
    // Loading computes the expected hashes: one per world, a few ms each.
    expect: () => Promise.resolve(),
    /** The expected hash, and what replaying the gold trace's calls met. */
    async gold(root, scenario): Promise<Gold> {
      const actions = scenario.expect.reference_actions ?? [];
      const { env } = await openEnvironment(root, scenario, "gold");
      const errors: NonNullable<Gold["errors"]> = [];
      actions.forEach((a, index) => {
        const call = env.call(a.side, a.name, a.arguments);
        if (!call.ok) errors.push({ index, name: a.name, result: call.result });
      });
      return {
        name: scenario.name,
        domain: scenario.domain,
        expected_db_sha256: scenario.expect.db_sha256 ?? null,
        reference_actions: actions,
        ...(errors.length > 0 ? { errors } : {}),
      };
    },
  };
}

/** The alias tables of a release folder, by canonical name (none when it has no `aliases/`). */
export function aliasIndex(
  root: DataRoot,
  folder: string,
  problems: Problem[] = [],
): Map<string, AliasTable> {
  const index = new Map<string, AliasTable>();
  const dir = join(folder, "aliases");
  if (!root.exists(dir)) return index;
  const names = [...Deno.readDirSync(root.resolve(dir))]
    .filter((e) => e.isFile && e.name.endsWith(".json")).map((e) => e.name).sort();
  for (const name of names) {
    const rel = join(dir, name);
    try {
      const parsed = AliasTableSchema.safeParse(root.jsonOnce(rel));
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        problems.push({
          file: root.resolve(rel),
          field: issue.path.join("."),
          message: issue.message,
        });
        continue;
      }
      index.set(parsed.data.name, parsed.data);
    } catch (e) {
      problems.push({ file: root.resolve(rel), message: (e as Error).message });
    }
  }
  return index;
}

/** The reference's order of record ids: numeric parts by value (`2` before `10`, `D1.2` before `D10.1`). */
export function compareReleaseIds(a: string, b: string): number {
  return a.localeCompare(b, "en", { numeric: true });
}

async function loadRelease(root: DataRoot, spec: ReleaseSpec, language: string): Promise<Loaded> {
  const problems: Problem[] = [];
  const scenarios: Scenario[] = [];
  const datasetRel = join(spec.folder, spec.dataset);
  const datasetFile = root.resolve(datasetRel);
  const agent = agentConfig(root, join(spec.folder, spec.agent), problems);
  const aliases = aliasIndex(root, spec.folder, problems);
  let data: unknown;
  try {
    data = root.jsonOnce(datasetRel);
  } catch (e) {
    problems.push({ file: datasetFile, message: (e as Error).message });
    return { scenarios, problems };
  }
  if (!Array.isArray(data)) {
    problems.push({ file: datasetFile, message: "expected an array of records" });
    return { scenarios, problems };
  }
  const records: ReleaseRecord[] = [];
  const seen = new Set<string>();
  data.forEach((item, i) => {
    const parsed = ReleaseRecordSchema.safeParse(item);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        problems.push({
          file: datasetFile,
          field: [i, ...issue.path].join("."),
          message: issue.message,
        });
      }
      return;
    }
    if (seen.has(parsed.data.id)) {
      problems.push({
        file: datasetFile,
        field: `${i}.id`,
        message: `duplicate id ${parsed.data.id}`,
      });
      return;
    }
    seen.add(parsed.data.id);
    records.push(parsed.data);
  });
  records.sort((a, b) => compareReleaseIds(a.id, b.id));
  if (!agent) return { scenarios, problems };
  const domain = await getDomain(spec.id);
  for (const record of records) {
    const scenario = releaseScenario(
      root,
      spec,
      domain,
      record,
      agent,
      aliases,
      language,
      problems,
    );
    if (scenario) scenarios.push(scenario);
  }
  return { scenarios, problems };
}

function releaseScenario(
  root: DataRoot,
  spec: ReleaseSpec,
  domain: Domain,
  record: ReleaseRecord,
  agent: z.infer<typeof AgentConfigSchema>,
  aliases: ReadonlyMap<string, AliasTable>,
  language: string,
  problems: Problem[],
): Scenario | undefined {
  const name = `${spec.id}__${record.id.replaceAll(".", "_")}`;
  const worldRel = join(spec.folder, `${record.id}.json`);
  const where = { file: root.resolve(join(spec.folder, spec.dataset)), where: name };
  if (!root.exists(worldRel)) {
    problems.push({ file: root.resolve(worldRel), where: name, message: "world file not found" });
    return undefined;
  }
  let world: Record<string, unknown>;
  let expected: Record<string, unknown>;
  let values;
  const opening = record.starting_utterances[language];
  if (opening === undefined) {
    problems.push({
      ...where,
      field: "starting_utterances",
      message: `no starting utterance in language "${language}"`,
    });
    return undefined;
  }
  try {
    values = cultureValues(record as Culture, language);
    world = resolveWorld(root.json(worldRel), record, language, aliases);
    expected = resolveWorld(record.ground_truth.expected_scenario_db, record, language, aliases);
  } catch (e) {
    if (!(e instanceof CultureError) && !(e instanceof Error)) throw e;
    problems.push({ ...where, message: (e as Error).message });
    return undefined;
  }
  const today = typeof world._current_date === "string"
    ? world._current_date
    : (record.current_date_time ?? "").split(" ")[0]!;
  const fill = <T>(v: T): T => fillCulture(v, values) as T;
  const goal = fill(record.user_goal);
  const knownInfo: Record<string, string> = { name: fill(record.user_config.name) };
  for (const [k, v] of Object.entries(goal.information_required)) {
    if (v === null || v === undefined) continue;
    knownInfo[k.replaceAll("_", " ")] = typeof v === "string" ? v : JSON.stringify(v);
  }
  const spoken = fillLocations(fill(opening), aliases, language);
  const parsed = ScenarioSchema.safeParse({
    name,
    domain: spec.id,
    description: firstSentence(goal.high_level_user_goal),
    source: `eva:${spec.id}:${record.id}`,
    today,
    max_duration_s: MAX_DURATION_S,
    world: { db: { inline: world } },
    agent: {
      prompt: releaseAgentPrompt(agent.role, agent.instructions, today, language),
      tools: [...agent.tools.map((t) => t.id), "end_conversation"],
    },
    user: {
      prompt: releaseUserPrompt({
        name: knownInfo.name!,
        persona: fill(record.user_config.user_persona),
        goal: fillLocations(goal.high_level_user_goal, aliases, language),
        opening: spoken,
        tree: goal.decision_tree,
        knownInfo,
        language,
      }),
      opening: spoken,
      known_info: knownInfo,
      language,
    },
    expect: {
      db_sha256: dbHashOf(domain.hashVariant ?? DEFAULT_HASH_VARIANT, expected),
      reference_actions: referenceActions(
        domain,
        world,
        today,
        record,
        fill,
        (t) => fillLocations(t, aliases, language),
      ).map((c) => ({ side: "agent", ...c })),
    },
    success_signals: ["db_state_match", "clean_exit"],
  });
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      problems.push({ ...where, field: issue.path.join("."), message: issue.message });
    }
    return undefined;
  }
  return parsed.data;
}

/**
 * The gold trace's calls as today's tools take them: placeholders and locations
 * filled, ids rebound to what a replay on this world mints (gold_rebind.ts).
 */
function referenceActions(
  domain: Domain,
  world: Record<string, unknown>,
  today: string,
  record: ReleaseRecord,
  fill: <T>(v: T) => T,
  place: (text: string) => string,
): { name: string; arguments: Record<string, unknown> }[] {
  const steps = goldSteps(record).map((s) => ({
    name: s.name,
    arguments: mapStrings(fill(s.arguments), place) as Record<string, unknown>,
    recorded: fill(s.recorded),
  }));
  const env = new Environment(domain, { db: deepFreeze(structuredClone(world)) }, {
    today,
    seed: WORLD_SEED,
  });
  // A call whose arguments today's tools reject (one trace quotes a request id in the
  // counter form the tools no longer accept) cannot change the world: left out, so
  // the reference actions are calls a scenario file validates.
  return replayRebinding(env, steps).filter((c) =>
    findTool(domain, "agent", c.name)?.args.safeParse(c.arguments).success ?? true
  );
}

function mapStrings(v: unknown, f: (s: string) => string): unknown {
  if (typeof v === "string") return f(v);
  if (Array.isArray(v)) return v.map((x) => mapStrings(x, f));
  if (typeof v === "object" && v !== null) {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, mapStrings(x, f)]));
  }
  return v;
}

function firstSentence(text: string): string {
  const t = text.trim();
  const m = /^(.+?[.!?])(\s|$)/.exec(t);
  return m ? m[1]! : t;
}

function agentConfig(
  root: DataRoot,
  rel: string,
  problems: Problem[],
): z.infer<typeof AgentConfigSchema> | undefined {
  const file = root.resolve(rel);
  let text: string;
  try {
    text = root.text(rel);
  } catch {
    problems.push({ file, message: "cannot read the agent configuration" });
    return undefined;
  }
  const doc = parseDocument(text);
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!;
    problems.push({ file, line: e.linePos?.[0]?.line, message: `invalid YAML: ${e.message}` });
    return undefined;
  }
  const parsed = AgentConfigSchema.safeParse(doc.toJS());
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      problems.push({ file, field: issue.path.join("."), message: issue.message });
    }
    return undefined;
  }
  return parsed.data;
}

export const itsmSuite: Suite = releaseSuite({
  id: "eva_itsm",
  folder: "eva_itsm",
  dataset: "itsm_dataset.json",
  agent: "itsm_agent.yaml",
});

export const medicalHrSuite: Suite = releaseSuite({
  id: "eva_medical_hr",
  folder: "eva_medical_hr",
  dataset: "medical_hr_dataset.json",
  agent: "medical_hr_agent.yaml",
});

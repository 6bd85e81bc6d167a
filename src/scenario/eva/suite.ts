/**
 * The eva_airline suite: 50 scenarios from a data root's `eva_airline/` folder
 * (reference-harness §5.1, §9). Each dataset line is one scenario; its world is
 * `eva_airline/<id>.json`, its expected end state the line's
 * `ground_truth.expected_scenario_db`, and its reference actions the tool calls of
 * the gold trace (`eva_airline_traces/`) or, in our fixtures, the line's
 * `gold_calls`. A bad line or a missing world is a located problem; the other
 * scenarios still load.
 *
 * Order: the reference's registration order, the five hand-authored seeds first,
 * then the rest by numeric id.
 *
 * @module
 */
import { parseDocument } from "yaml";
import { z } from "zod";
import type { Problem } from "../../problem/problem.ts";
import { dbHash } from "../../canonical/hash.ts";
import type { DataRoot } from "../data_root.ts";
import { type ReferenceAction, type Scenario, ScenarioSchema } from "../scenario.ts";
import type { Gold, LoadResult, Suite } from "../suite.ts";
import { EVA_TOOLS } from "../../domains/eva_airline/mod.ts";
import { openEnvironment } from "../open_environment.ts";
import {
  compareRegistrationOrder,
  type EvaRecord,
  EvaRecordSchema,
  evaScenarioName,
  evaSeedAlias,
} from "./record.ts";
import { goldSteps, TRACE_FILE, TraceRecordSchema } from "./gold_trace.ts";
import {
  evaAgentPrompt,
  evaCallerNeeds,
  evaDescription,
  evaKnownInfo,
  evaUserPrompt,
} from "./prompts.ts";

export const DATASET_FILE = "eva_airline/eva_airline_dataset.jsonl";
export const AGENT_FILE = "eva_airline/airline_agent.yaml";

/** The reference's limit for an eva call. */
const MAX_DURATION_S = 900;

/** The tool names an eva agent is given. */
export const EVA_AGENT_TOOLS: readonly string[] = EVA_TOOLS.map((t) => t.name);

const AgentConfigSchema = z.looseObject({ role: z.string(), instructions: z.string() });

interface Loaded {
  scenarios: Scenario[];
  problems: Problem[];
  /** The dataset record behind each scenario, by scenario name. */
  records: Map<string, EvaRecord>;
}

const loaded = new WeakMap<DataRoot, Promise<Loaded>>();

/** Loads (once per data root) every eva scenario and the problems met. */
export function loadEva(root: DataRoot): Promise<Loaded> {
  let p = loaded.get(root);
  if (!p) {
    p = Promise.resolve().then(() => _load(root));
    loaded.set(root, p);
  }
  return p;
}

export const suite: Suite = {
  id: "eva_airline",
  domain: "eva_airline",
  present: (root) => root.exists(DATASET_FILE),
  canonicalName: evaSeedAlias,
  async load(root, options = {}): Promise<LoadResult> {
    const { scenarios, problems } = await loadEva(root);
    if (options.expected ?? true) await _expect(root, scenarios);
    return { scenarios: [...scenarios], problems: [...problems] };
  },
  expect: _expect,
  /**
   * The dataset's expected hash, and what replaying the reference actions records
   * (write-action records; calls that fail on the data itself, which some gold
   * traces contain, e.g. a disruption lookup that finds none).
   */
  async gold(root, scenario): Promise<Gold> {
    await _expect(root, [scenario]);
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
      reference_records: [...env.actions],
      ...(errors.length > 0 ? { errors } : {}),
    };
  },
};

/**
 * Sets each scenario's expected hash: the canonical hash of its dataset line's
 * `ground_truth.expected_scenario_db`, computed on demand (a few ms per scenario,
 * which `list` does not need).
 */
function _expect(_root: DataRoot, scenarios: readonly Scenario[]): Promise<void> {
  for (const scenario of scenarios) {
    const record = recordOf.get(scenario); // not a scenario file's of the same name
    if (record && scenario.expect.db_sha256 === undefined) {
      // First, where parsing would have put it: scenario files written from it keep their order.
      const db_sha256 = dbHash(record.ground_truth.expected_scenario_db);
      scenario.expect = { db_sha256, ...scenario.expect };
    }
  }
  return Promise.resolve();
}

/** The dataset record behind each loaded scenario object. */
const recordOf = new WeakMap<Scenario, EvaRecord>();

function _load(root: DataRoot): Loaded {
  const problems: Problem[] = [];
  const records = new Map<string, EvaRecord>();
  const agent = _agentConfig(root, problems);
  const lines = _records(root, problems);
  const trace = _traceCalls(root, problems);
  const scenarios: Scenario[] = [];
  lines.sort((a, b) => compareRegistrationOrder(a.record.id, b.record.id));
  for (const { record, line } of lines) {
    const name = evaScenarioName(record.id);
    const world = `eva_airline/${record.id}.json`;
    const today = _worldDate(root, world, name, problems);
    if (!agent || !today) continue;
    const calls = trace.get(record.id) ?? record.gold_calls;
    const knownInfo = evaKnownInfo(record);
    const parsed = ScenarioSchema.safeParse({
      name,
      domain: "eva_airline",
      description: evaDescription(record),
      source: `eva:${record.id}`,
      today,
      max_duration_s: MAX_DURATION_S,
      world: { db: { path: world } },
      agent: {
        prompt: evaAgentPrompt(agent.role, agent.instructions, today),
        tools: [...EVA_AGENT_TOOLS],
      },
      user: {
        prompt: evaUserPrompt(record, knownInfo),
        opening: record.user_goal.starting_utterance,
        known_info: knownInfo,
        needs: evaCallerNeeds(record),
      },
      expect: {
        ...(calls ? { reference_actions: calls.map(_referenceAction) } : {}),
      },
      success_signals: ["db_state_match", "clean_exit"],
    });
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        problems.push({
          file: root.resolve(DATASET_FILE),
          line,
          where: name,
          field: issue.path.join("."),
          message: issue.message,
        });
      }
      continue;
    }
    scenarios.push(parsed.data);
    records.set(name, record);
    recordOf.set(parsed.data, record);
  }
  return { scenarios, problems, records };
}

function _referenceAction(
  c: { name: string; arguments: Record<string, unknown> },
): ReferenceAction {
  return { side: "agent", name: c.name, arguments: c.arguments };
}

function _agentConfig(
  root: DataRoot,
  problems: Problem[],
): z.infer<typeof AgentConfigSchema> | undefined {
  const file = root.resolve(AGENT_FILE);
  let text: string;
  try {
    text = root.text(AGENT_FILE);
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

function _records(root: DataRoot, problems: Problem[]): { record: EvaRecord; line: number }[] {
  const file = root.resolve(DATASET_FILE);
  const out: { record: EvaRecord; line: number }[] = [];
  const seen = new Map<string, number>();
  let text: string;
  try {
    text = root.text(DATASET_FILE);
  } catch (e) {
    problems.push({ file, message: `cannot read: ${(e as Error).message}` });
    return out;
  }
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = i + 1;
    const raw = lines[i]!.trim();
    if (raw === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (e) {
      problems.push({ file, line, message: `invalid JSON: ${(e as Error).message}` });
      continue;
    }
    const parsed = EvaRecordSchema.safeParse(value);
    if (!parsed.success) {
      const id = (value as { id?: unknown })?.id;
      for (const issue of parsed.error.issues) {
        problems.push({
          file,
          line,
          where: typeof id === "string" ? `eva ${id}` : undefined,
          field: issue.path.join("."),
          message: issue.message,
        });
      }
      continue;
    }
    const first = seen.get(parsed.data.id);
    if (first !== undefined) {
      problems.push({
        file,
        line,
        where: `eva ${parsed.data.id}`,
        field: "id",
        message: `duplicate id (first on line ${first})`,
      });
      continue;
    }
    seen.set(parsed.data.id, line);
    out.push({ record: parsed.data, line });
  }
  return out;
}

/** Gold tool calls by eva id, from the trace release when the data root has it. */
function _traceCalls(
  root: DataRoot,
  problems: Problem[],
): Map<string, { name: string; arguments: Record<string, unknown> }[]> {
  const out = new Map<string, { name: string; arguments: Record<string, unknown> }[]>();
  if (!root.exists(TRACE_FILE)) return out;
  let data: unknown;
  try {
    data = root.json(TRACE_FILE);
  } catch (e) {
    problems.push({ file: root.resolve(TRACE_FILE), message: (e as Error).message });
    return out;
  }
  if (!Array.isArray(data)) {
    problems.push({ file: root.resolve(TRACE_FILE), message: "expected an array of records" });
    return out;
  }
  data.forEach((item, i) => {
    const parsed = TraceRecordSchema.safeParse(item);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      problems.push({
        file: root.resolve(TRACE_FILE),
        field: [i, ...issue.path].join("."),
        message: issue.message,
      });
      return;
    }
    out.set(
      parsed.data.id,
      goldSteps(parsed.data).map((s) => ({ name: s.name, arguments: s.arguments })),
    );
  });
  return out;
}

function _worldDate(
  root: DataRoot,
  world: string,
  name: string,
  problems: Problem[],
): string | undefined {
  if (!root.exists(world)) {
    problems.push({ file: root.resolve(world), where: name, message: "world file not found" });
    return undefined;
  }
  let db: unknown;
  try {
    db = root.json(world);
  } catch (e) {
    problems.push({ file: root.resolve(world), where: name, message: (e as Error).message });
    return undefined;
  }
  const date = (db as { _current_date?: unknown })?._current_date;
  if (typeof date !== "string" || !/^\d{4}-\d{2}-\d{2}$/.test(date)) {
    problems.push({
      file: root.resolve(world),
      where: name,
      field: "_current_date",
      message: "expected the world's date as YYYY-MM-DD",
    });
    return undefined;
  }
  return date;
}

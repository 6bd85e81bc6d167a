/**
 * Loads a `scenarios.yaml` flow group into scenarios (flows.md). The YAML is read
 * node by node so every problem names its line, and the format's traps are caught:
 * duplicate keys are errors, an unquoted `#` or `*` in a `match` gets a message to
 * quote it, and a number written where text belongs (`match: 012`, `keys: 0042`)
 * keeps its source text.
 *
 * Scenario names are `flow__<group>__<label>`, where the group is the file's `name`
 * (slugged) or, failing that, the file's stem (its folder's name when the file is
 * `scenarios.yaml`).
 *
 * Which signals gate a flow scenario's success: `flow_expectation` when it has
 * `expect`, and `nl_assertion` (the judge's verdict on `agent_expectations`, not
 * applicable without a judge) when it has `agent_expectations`. Never `clean_exit`:
 * a far end that hangs up once the agent's business is done is not the agent's
 * failure.
 *
 * @module
 */
import {
  type Document,
  isAlias,
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  type Node as YamlNode,
  parseDocument,
} from "yaml";
import { fieldText, type Problem } from "../problem/problem.ts";
import { type Scenario, ScenarioSchema, type Signal } from "./scenario.ts";
import { type FlowNodes, isBuiltIn, sayIn } from "../flow/schema.ts";
import {
  type FlowGroupScenario,
  validateFlowGroup,
  type ValidFlowGroup,
  type ValuePath,
} from "../flow/validate.ts";

/** What `loadFlowFile` read: the flow's scenarios, and the problems met. */
export interface FlowFileLoad {
  /** The scenarios the flow file defines (none when it has problems). */
  scenarios: Scenario[];
  /** Problems that keep the flow from loading. */
  problems: Problem[];
  /** Problems worth knowing that do not stop a run. */
  warnings: Problem[];
}

/** Flows have no duration setting: the 30 s silence rule ends them. This is a safety net. */
export const FLOW_MAX_DURATION_S = 3600;

/**
 * What the agent under test is told about a flow call. Only what a real caller would
 * know: nothing of the nodes, the start or the expectations.
 */
export const FLOW_AGENT_PROMPT =
  "You are placing an outbound phone call. The details of the call are in your userdata. " +
  "Whoever answers may be an automated menu (press keys with send_dtmf), a hold, a call " +
  "screener, a voicemail box or a person: get through to the right place, do what the call " +
  "is for, and end the call when you are done.";

/** Whether a parsed document is a flow group rather than a plain scenario file. */
export function isFlowDocument(value: unknown): boolean {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  if ("nodes" in v) return true;
  return Array.isArray(v.scenarios) &&
    v.scenarios.some((s) => typeof s === "object" && s !== null && "label" in s);
}

/** Parses, validates and converts one flow file. Never throws on bad input. */
export function loadFlowFile(file: string, text: string): FlowFileLoad {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: false, prettyErrors: false });
  const line = (offset: number | undefined) =>
    offset === undefined ? undefined : lineCounter.linePos(offset).line;
  if (doc.errors.length > 0) {
    return { scenarios: [], problems: _syntaxProblems(file, text, doc, line), warnings: [] };
  }
  const reader = new _Reader(file, doc, line);
  const value = reader.value(doc.contents, []);
  const v = validateFlowGroup(value, file, (p) => reader.locate(p));
  const problems = [...reader.problems, ...v.problems];
  const warnings = [
    ...doc.warnings.map((w) => ({ file, line: line(w.pos[0]), message: _firstLine(w.message) })),
    ...v.warnings,
  ];
  if (problems.length > 0 || !v.group) return { scenarios: [], problems, warnings };
  return { scenarios: flowScenarios(v.group, file), problems: [], warnings };
}

/** The scenarios of a valid group. */
export function flowScenarios(group: ValidFlowGroup, file: string): Scenario[] {
  const slug = _slug(group.name ?? _stem(file));
  return group.scenarios.map((s) => _scenario(group, s, file, slug));
}

function _scenario(
  group: ValidFlowGroup,
  s: FlowGroupScenario,
  file: string,
  slug: string,
): Scenario {
  const signals: Signal[] = [];
  if (s.expect) signals.push("flow_expectation");
  if (s.agent_expectations !== undefined) signals.push("nl_assertion");
  // Neither: validation warned; the verdict is "N/A" rather than a made-up pass.
  if (signals.length === 0) signals.push("flow_expectation");
  const flow = s.start !== undefined
    ? inLanguage(reachableNodes(group.nodes, s.start), s.language)
    : undefined;
  return ScenarioSchema.parse({
    name: `flow__${slug}__${s.label}`,
    domain: "flow",
    ...(group.name !== undefined ? { description: group.name } : {}),
    source: `file:${file}`,
    max_duration_s: FLOW_MAX_DURATION_S,
    tags: s.tags,
    agent: {
      prompt: FLOW_AGENT_PROMPT,
      tools: [],
      ...(s.userdata ? { userdata: s.userdata } : {}),
    },
    user: {
      ...(s.language !== undefined ? { language: s.language } : {}),
      ...(s.voice !== undefined ? { voice: s.voice } : {}),
      ...(s.start !== undefined ? { start: s.start } : {}),
      ...(s.instructions !== undefined ? { instructions: s.instructions } : {}),
    },
    expect: {
      ...(s.agent_expectations !== undefined ? { agent_expectations: s.agent_expectations } : {}),
      ...(s.expect ? { flow: s.expect } : {}),
    },
    ...(flow ? { flow } : {}),
    success_signals: signals,
  });
}

/** The nodes a call from `start` can reach: all a scenario needs to carry. */
/** The nodes as a call in `language` hears them: each per-language `say` resolved (validated). */
function inLanguage(nodes: FlowNodes, language: string | undefined): FlowNodes {
  return Object.fromEntries(
    Object.entries(nodes).map(([name, node]) => {
      if (!node.say_languages) return [name, node];
      const { say_languages, ...rest } = node;
      return [name, { ...rest, say: sayIn(say_languages, language) ?? rest.say }];
    }),
  );
}

export function reachableNodes(nodes: FlowNodes, start: string): FlowNodes {
  const out: FlowNodes = {};
  const queue = [start];
  while (queue.length > 0) {
    const name = queue.pop()!;
    const n = nodes[name];
    if (isBuiltIn(name) || !n || name in out) continue;
    out[name] = n;
    for (const r of n.routes ?? []) queue.push(r.to);
    if (n.then !== undefined) queue.push(n.then);
    if (n.timeout) queue.push(n.timeout.to);
  }
  // Keep the file's order, for readable records.
  return Object.fromEntries(Object.keys(nodes).filter((k) => k in out).map((k) => [k, out[k]!]));
}

// --- YAML with locations ---------------------------------------------------

/** Paths whose values are text even when YAML reads them as numbers or booleans. */
const TEXT_FIELDS: readonly (readonly string[])[] = [
  ["name"],
  ["nodes", "*", "say"],
  ["nodes", "*", "instructions"],
  ["nodes", "*", "speaker"],
  ["nodes", "*", "then"],
  ["nodes", "*", "routes", "#", "match"],
  ["nodes", "*", "routes", "#", "to"],
  ["nodes", "*", "timeout", "to"],
  ["scenarios", "#", "label"],
  ["scenarios", "#", "start"],
  ["scenarios", "#", "instructions"],
  ["scenarios", "#", "agent_expectations"],
  ["scenarios", "#", "tags", "#"],
  ["scenarios", "#", "expect", "path", "#"],
  ["scenarios", "#", "expect", "keys"],
  ["scenarios", "#", "expect", "end"],
  ["scenarios", "#", "expect", "message"],
];

function _isTextField(path: ValuePath): boolean {
  return TEXT_FIELDS.some((f) =>
    f.length === path.length &&
    f.every((k, i) =>
      k === "*"
        ? typeof path[i] === "string"
        : k === "#"
        ? typeof path[i] === "number"
        : k === path[i]
    )
  );
}

/** Turns the YAML tree into plain values, remembering each path's line. */
class _Reader {
  readonly problems: Problem[] = [];
  readonly #lines = new Map<string, number>();
  readonly #resolving = new Set<YamlNode>();

  constructor(
    readonly file: string,
    readonly doc: Document,
    readonly line: (offset: number | undefined) => number | undefined,
  ) {}

  /** The line of `path`, or of its nearest located ancestor. */
  locate(path: ValuePath): number | undefined {
    for (let i = path.length; i >= 0; i--) {
      const l = this.#lines.get(JSON.stringify(path.slice(0, i)));
      if (l !== undefined) return l;
    }
    return undefined;
  }

  value(node: unknown, path: ValuePath): unknown {
    if (node === null || node === undefined) return null;
    if (isAlias(node)) {
      const target = node.resolve(this.doc);
      if (!target || this.#resolving.has(target)) {
        this.problems.push(this.#problem(path, `alias *${node.source} cannot be resolved here`));
        return null;
      }
      this.#resolving.add(target);
      const v = this.value(target, path);
      this.#resolving.delete(target);
      return v;
    }
    if (isScalar(node)) return this.#scalar(node.value, node.source ?? String(node.value), path);
    if (isSeq(node)) {
      return node.items.map((item, i) => {
        const p = [...path, i];
        this.#remember(p, (item as YamlNode | null)?.range?.[0]);
        return this.value(item, p);
      });
    }
    if (isMap(node)) {
      const obj: Record<string, unknown> = {};
      for (const pair of node.items) {
        const k = pair.key as YamlNode | null;
        if (!isScalar(k)) {
          this.problems.push(this.#problem(path, "mapping keys must be plain names"));
          continue;
        }
        const name = k.source ?? String(k.value ?? "");
        const p = [...path, name];
        const at = this.line(k.range?.[0]);
        if (Object.hasOwn(obj, name)) {
          const first = this.#lines.get(JSON.stringify(p));
          const what = path.length === 1 && path[0] === "nodes" ? "node name" : "key";
          this.problems.push({
            ...this.#problem(
              p,
              `duplicate ${what} "${name}"${first ? ` (first at line ${first})` : ""}`,
            ),
            ...(at !== undefined ? { line: at } : {}),
          });
          continue;
        }
        if (at !== undefined) this.#lines.set(JSON.stringify(p), at);
        // defineProperty: a key named `__proto__` is data, not a prototype.
        Object.defineProperty(obj, name, {
          value: this.value(pair.value, p),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return obj;
    }
    return null;
  }

  #scalar(value: unknown, source: string, path: ValuePath): unknown {
    if (value === null || typeof value === "string") return value;
    if (_isTextField(path)) return source;
    // userdata: digits with a leading zero, or too many for a number, are codes.
    if (
      typeof value === "number" && path[0] === "scenarios" && path[2] === "userdata" &&
      (/^[-+]?0\d/.test(source) || (Number.isInteger(value) && !Number.isSafeInteger(value)))
    ) {
      return source;
    }
    return value;
  }

  #remember(path: ValuePath, offset: number | undefined): void {
    const l = this.line(offset);
    if (l !== undefined) this.#lines.set(JSON.stringify(path), l);
  }

  #problem(path: ValuePath, message: string): Problem {
    const line = this.locate(path);
    const where = path[0] === "nodes" && typeof path[1] === "string"
      ? `node "${path[1]}"`
      : path[0] === "scenarios" && typeof path[1] === "number"
      ? this.#scenarioWhere(path[1])
      : undefined;
    const field = fieldText(path.slice(where ? 2 : 0));
    return {
      file: this.file,
      ...(line !== undefined ? { line } : {}),
      ...(where ? { where } : {}),
      ...(field ? { field } : {}),
      message,
    };
  }

  #scenarioWhere(i: number): string {
    const label = this.doc.getIn(["scenarios", i, "label"]);
    return typeof label === "string" ? `scenario "${label}"` : `scenarios[${i}]`;
  }
}

const MATCH_TRAP = /\bmatch\s*:\s*([#*])/;

/** YAML syntax errors, with the `#`/`*` trap explained where it caused them. */
function _syntaxProblems(
  file: string,
  text: string,
  doc: Document,
  line: (offset: number | undefined) => number | undefined,
): Problem[] {
  const lines = text.split(/\r?\n/);
  const traps = lines.flatMap((l, i) => MATCH_TRAP.test(l) ? [i + 1] : []);
  const problems: Problem[] = traps.map((l) => ({
    file,
    line: l,
    field: "match",
    message: `unquoted ${MATCH_TRAP.exec(lines[l - 1]!)![1]} in "match"`,
    hint:
      'an unquoted # starts a YAML comment and an unquoted * an alias: quote them as "#" and "*"',
  }));
  for (const e of doc.errors) {
    const l = line(e.pos[0]);
    // A trap breaks the line it is on and often the next one.
    if (l !== undefined && traps.some((t) => l >= t && l <= t + 2)) continue;
    problems.push({
      file,
      ...(l !== undefined ? { line: l } : {}),
      message: `invalid YAML: ${_firstLine(e.message)}`,
    });
  }
  return problems;
}

function _firstLine(message: string): string {
  return message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
}

function _stem(file: string): string {
  const parts = file.split(/[\\/]/).filter((p) => p !== "");
  const base = (parts.at(-1) ?? "flow").replace(/\.(ya?ml|json)$/i, "");
  return base === "scenarios" && parts.length > 1 ? parts.at(-2)! : base;
}

function _slug(s: string): string {
  const slug = s.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "");
  return slug || "flow";
}

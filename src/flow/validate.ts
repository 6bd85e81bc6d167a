/**
 * Flow validation (flows.md "Validation"): every rule that rejects a group, each
 * problem naming the node or scenario and the field, and warnings for nodes no
 * scenario reaches. Works on the plain value of a parsed file plus a function that
 * locates a path in it, so all problems of a file are found in one pass.
 *
 * A schema problem in a node or scenario does not stop its other checks. An unknown
 * field is reported with the closest known name, and read as that field for the
 * other checks (when it is not given too), so one pass reports what a second would
 * after taking the hint; malformed parts are dropped. A dropped field is
 * *uncertain*: the checks that would read its absence (a node without `say`, a
 * scenario without `start`, an announcement loop) are skipped rather than reported
 * on a guess.
 *
 * @module
 */
import type { z } from "zod";
import { closest, type Problem } from "../problem/problem.ts";
import {
  issuePath,
  knownKeys,
  type SchemaProblemOptions,
  suggestName,
  unknownFieldProblem,
  valueAt,
  zodProblems,
} from "../schema/zod_problems.ts";
import type { FlowExpect } from "./schema.ts";
import type { UserVoice } from "../speech/user_voice.ts";
import { DTMF_KEYS, DTMF_KEYS_TEXT } from "../dtmf/keys.ts";
import { keyPatternProblem } from "./key_pattern.ts";
import {
  BUILT_INS,
  durationMs,
  type FlowFileNode,
  FlowFileNodeSchema,
  type FlowFileScenario,
  FlowFileScenarioSchema,
  type FlowNode,
  type FlowNodes,
  isBuiltIn,
  MAX_TIMEOUT_MS,
  NAME_PATTERN,
  sayIn,
} from "./schema.ts";

/** A path into the file's value: keys and list indices. */
export type ValuePath = readonly (string | number)[];

/** The 1-based line of a path in the file (or of its nearest located ancestor). */
export type Locate = (path: ValuePath) => number | undefined;

/** A scenario of a valid group, before it becomes a `Scenario`. */
export interface FlowGroupScenario {
  label: string;
  start?: string;
  instructions?: string;
  userdata?: Record<string, unknown>;
  tags: string[];
  agent_expectations?: string;
  expect?: FlowExpect;
  /** The call's language (BCP 47). */
  language?: string;
  /** The caller's voice. */
  voice?: UserVoice;
}

/** A valid group: compiled nodes and its scenarios. */
export interface ValidFlowGroup {
  name?: string;
  nodes: FlowNodes;
  scenarios: FlowGroupScenario[];
}

export interface FlowValidation {
  /** Set when there is no problem. */
  group?: ValidFlowGroup;
  problems: Problem[];
  warnings: Problem[];
}

/** Flow files' wording: messages name their field; unknown ones list the known names. */
const WORDING: SchemaProblemOptions = { namedFields: true, listKnown: true };

const TOP_FIELDS = ["name", "nodes", "scenarios"];
const EMPTY_MATCH =
  `empty "match" (an unquoted # starts a YAML comment and an unquoted * an alias: quote them as "#" and "*")`;

/** What of a node or scenario can still be checked once its schema problems are out. */
interface Salvaged<T> {
  data: T;
  /** Top-level fields dropped as malformed (see the module doc). */
  uncertain: Set<string>;
  /** Whether the schema took it as it was. */
  clean: boolean;
}

/** Validates a flow group's value; `file` and `locate` place each problem. */
export function validateFlowGroup(
  value: unknown,
  file: string,
  locate: Locate = () => undefined,
): FlowValidation {
  return new _Validation(file, locate).run(value);
}

class _Validation {
  readonly problems: Problem[] = [];
  readonly warnings: Problem[] = [];
  constructor(readonly file: string, readonly locate: Locate) {}

  run(value: unknown): FlowValidation {
    if (!_isObject(value)) {
      this.problem(
        [],
        undefined,
        undefined,
        'a flow file is a mapping with "nodes" and "scenarios"',
      );
      return this.result();
    }
    for (const key of Object.keys(value)) {
      if (!TOP_FIELDS.includes(key)) this.unknownField([key], undefined, key, TOP_FIELDS);
    }
    if (value.name !== undefined && typeof value.name !== "string") {
      this.problem(["name"], undefined, "name", "must be a string");
    }
    let rawNodes: Record<string, unknown> = {};
    if (value.nodes !== undefined && value.nodes !== null) {
      if (_isObject(value.nodes)) rawNodes = value.nodes;
      else this.problem(["nodes"], undefined, "nodes", "must be a mapping of node name to node");
    }
    let rawScenarios: unknown[] = [];
    if (value.scenarios === undefined || value.scenarios === null) {
      this.problem([], undefined, "scenarios", 'missing field "scenarios"');
    } else if (Array.isArray(value.scenarios)) {
      rawScenarios = value.scenarios;
      if (rawScenarios.length === 0) {
        this.warn(["scenarios"], undefined, "scenarios", "no scenarios: nothing will run");
      }
    } else {
      this.problem(["scenarios"], undefined, "scenarios", "must be a list of scenarios");
    }

    const targets = new Set<string>([...Object.keys(rawNodes), ...BUILT_INS]);
    const parsed = new Map<string, Salvaged<FlowFileNode>>();
    const nodes: FlowNodes = {};
    for (const [name, raw] of Object.entries(rawNodes)) {
      this.checkName(name);
      const r = this.salvage<FlowFileNode>(
        FlowFileNodeSchema,
        raw,
        ["nodes", name],
        `node "${name}"`,
      );
      if (!r) continue;
      parsed.set(name, r);
      const node = this.checkNode(name, r.data, r.uncertain, targets);
      if (node && r.clean) nodes[name] = node;
    }
    this.checkAnnouncementLoops(parsed);

    const scenarios = rawScenarios.map((raw, i) => this.checkScenario(raw, i, targets));
    for (const s of scenarios) if (s) this.checkLanguages(s, nodes);
    const starts = rawScenarios.flatMap((s) =>
      _isObject(s) && typeof s.start === "string" ? [s.start] : []
    );
    // With a start that names no node, or a way out that could not be read,
    // "unreachable" would be noise: fix those first.
    const unreadableWayOut = [...parsed.values()].some((n) =>
      ["routes", "then", "timeout"].some((f) => n.uncertain.has(f))
    );
    if (
      starts.every((s) => targets.has(s)) && !unreadableWayOut &&
      parsed.size === Object.keys(rawNodes).length
    ) {
      this.warnUnreachable(parsed, rawNodes, starts);
    }
    return this.result(
      typeof value.name === "string" ? value.name : undefined,
      nodes,
      scenarios.filter((s): s is FlowGroupScenario => s !== undefined),
    );
  }

  result(name?: string, nodes?: FlowNodes, scenarios?: FlowGroupScenario[]): FlowValidation {
    const group = this.problems.length === 0 && nodes && scenarios
      ? { ...(name !== undefined ? { name } : {}), nodes, scenarios }
      : undefined;
    return {
      ...(group ? { group } : {}),
      problems: _byLine(this.problems),
      warnings: _byLine(this.warnings),
    };
  }

  // --- nodes ---------------------------------------------------------------

  checkName(name: string): void {
    const where = `node "${name}"`;
    if (name.startsWith("livekit/")) {
      this.problem(
        ["nodes", name],
        where,
        undefined,
        `reserved name "${name}" (livekit/ names are the built-ins)`,
      );
    } else if (!NAME_PATTERN.test(name)) {
      this.problem(
        ["nodes", name],
        where,
        undefined,
        `malformed name "${name}" (lowercase letters, digits, - and _, starting with a letter or digit)`,
      );
    }
  }

  /**
   * The node's rules; returns the compiled node when it has no problem. Rules that
   * read a field's absence skip `uncertain` fields.
   */
  checkNode(
    name: string,
    n: FlowFileNode,
    uncertain: ReadonlySet<string>,
    targets: Set<string>,
  ): FlowNode | undefined {
    const before = this.problems.length;
    const where = `node "${name}"`;
    const at = (...rest: (string | number)[]) => ["nodes", name, ...rest];
    const absent = (f: keyof FlowFileNode) => n[f] === undefined && !uncertain.has(f);
    if (absent("say") && absent("instructions")) {
      this.problem(at(), where, "say", 'a node needs "say" or "instructions"');
    }
    if (n.routes && n.then !== undefined) {
      this.problem(
        at("then"),
        where,
        "then",
        'a node with "routes" cannot have "then" (its routes decide where it goes)',
      );
    }
    if (
      n.say !== undefined && absent("instructions") && absent("then") && absent("routes") &&
      absent("timeout")
    ) {
      this.problem(
        at(),
        where,
        "say",
        'a "say"-only node needs a way out: "then", "routes" or "timeout"',
      );
    }
    n.routes?.forEach((route, i) => {
      const field = `routes[${i}].match`;
      if (route.match === null || route.match === "") {
        this.problem(at("routes", i, "match"), where, field, EMPTY_MATCH);
      } else {
        const why = keyPatternProblem(route.match);
        if (why) {
          this.problem(
            at("routes", i, "match"),
            where,
            field,
            `match ${JSON.stringify(route.match)} ${why}`,
          );
        }
      }
      this.checkTarget(route.to, at("routes", i, "to"), where, `routes[${i}].to`, targets);
    });
    if (n.routes && n.routes.length === 0) {
      this.problem(
        at("routes"),
        where,
        "routes",
        '"routes" is empty (give at least one route, or drop it)',
      );
    }
    if (n.then !== undefined) this.checkTarget(n.then, at("then"), where, "then", targets);
    let afterMs: number | undefined;
    if (n.timeout) {
      afterMs = durationMs(n.timeout.after);
      const f = "timeout.after";
      if (afterMs === undefined) {
        this.problem(
          at("timeout", "after"),
          where,
          f,
          `"after" must look like 8s, 1500ms or a number of seconds, got ${
            JSON.stringify(n.timeout.after)
          }`,
        );
      } else if (afterMs <= 0) {
        this.problem(
          at("timeout", "after"),
          where,
          f,
          `"after" must be more than 0, got ${JSON.stringify(n.timeout.after)}`,
        );
      } else if (afterMs > MAX_TIMEOUT_MS) {
        this.problem(
          at("timeout", "after"),
          where,
          f,
          `"after" must be at most 20 s, got ${JSON.stringify(n.timeout.after)}`,
        );
      }
      this.checkTarget(n.timeout.to, at("timeout", "to"), where, "timeout.to", targets);
    }
    let speaker: "MACHINE" | "VOICE" = "VOICE";
    if (n.speaker !== undefined) {
      const up = n.speaker.toUpperCase();
      if (up === "MACHINE" || up === "VOICE") speaker = up;
      else {
        const hint = closest(n.speaker, ["MACHINE", "VOICE"]);
        this.problem(
          at("speaker"),
          where,
          "speaker",
          `unknown speaker "${n.speaker}" (MACHINE or VOICE)`,
          hint && `did you mean "${hint}"?`,
        );
      }
    }
    if (this.problems.length > before) return undefined;
    const say = n.say;
    if (typeof say === "object" && Object.keys(say).length === 0) {
      this.problem(at("say"), where, "say", 'an empty "say": give a text, or one per language');
      return undefined;
    }
    return {
      ...(typeof say === "string" ? { say } : {}),
      ...(typeof say === "object" ? { say: sayIn(say, undefined)!, say_languages: say } : {}),
      ...(n.instructions !== undefined ? { instructions: n.instructions } : {}),
      speaker,
      ...(n.routes ? { routes: n.routes.map((r) => ({ match: r.match!, to: r.to })) } : {}),
      ...(n.then !== undefined ? { then: n.then } : {}),
      ...(n.timeout ? { timeout: { after_ms: afterMs!, to: n.timeout.to } } : {}),
    };
  }

  checkTarget(
    target: string,
    path: ValuePath,
    where: string,
    field: string,
    targets: Set<string>,
  ): void {
    if (targets.has(target)) return;
    const hint = closest(target, targets);
    this.problem(
      path,
      where,
      field,
      `unknown node "${target}"`,
      hint ? `did you mean "${hint}"?` : `known: ${[...targets].join(", ")}`,
    );
  }

  /** Announcements (`say` + `then`) that lead back to themselves never wait for the agent. */
  checkAnnouncementLoops(parsed: Map<string, Salvaged<FlowFileNode>>): void {
    const isAnnouncement = (name: string) => {
      const p = parsed.get(name);
      if (!p) return false;
      const { data: n, uncertain } = p;
      return n.say !== undefined && n.then !== undefined &&
        n.instructions === undefined && n.routes === undefined &&
        !uncertain.has("instructions") && !uncertain.has("routes");
    };
    const reported = new Set<string>();
    for (const name of parsed.keys()) {
      if (!isAnnouncement(name) || reported.has(name)) continue;
      const chain: string[] = [];
      let cur: string | undefined = name;
      while (cur !== undefined && isAnnouncement(cur) && !chain.includes(cur)) {
        chain.push(cur);
        cur = parsed.get(cur)!.data.then;
      }
      if (cur === undefined || !chain.includes(cur) || reported.has(cur)) continue;
      const cycle = chain.slice(chain.indexOf(cur));
      for (const c of cycle) reported.add(c);
      this.problem(
        ["nodes", cur, "then"],
        `node "${cur}"`,
        "then",
        `announcements loop without ever waiting for the agent: ${[...cycle, cur].join(" -> ")}`,
        'give one of them "routes" or "timeout" instead of "then"',
      );
    }
  }

  warnUnreachable(
    parsed: Map<string, Salvaged<FlowFileNode>>,
    rawNodes: Record<string, unknown>,
    starts: string[],
  ): void {
    const reached = new Set<string>();
    const queue = [...starts];
    while (queue.length > 0) {
      const name = queue.pop()!;
      if (reached.has(name)) continue;
      reached.add(name);
      const n = parsed.get(name)?.data;
      if (!n) continue;
      for (const r of n.routes ?? []) queue.push(r.to);
      if (n.then !== undefined) queue.push(n.then);
      if (n.timeout) queue.push(n.timeout.to);
    }
    for (const name of Object.keys(rawNodes)) {
      if (!reached.has(name)) {
        this.warn(
          ["nodes", name],
          `node "${name}"`,
          undefined,
          "no scenario's start reaches this node",
        );
      }
    }
  }

  // --- scenarios -----------------------------------------------------------

  #labels = new Map<string, number | undefined>();

  checkScenario(raw: unknown, i: number, targets: Set<string>): FlowGroupScenario | undefined {
    const base = ["scenarios", i];
    const label = _isObject(raw) && typeof raw.label === "string" ? raw.label : undefined;
    const where = label !== undefined ? `scenario "${label}"` : `scenarios[${i}]`;
    const before = this.problems.length;
    const r = this.salvage<Partial<FlowFileScenario>>(FlowFileScenarioSchema, raw, base, where);
    if (label !== undefined) this.checkLabel(label, base, where);
    if (!r) return undefined;
    const { data: s, uncertain } = r;
    const absent = (f: keyof FlowFileScenario) => s[f] === undefined && !uncertain.has(f);
    // Which kind of call it is must be settled before its expectations can be read.
    let kindKnown = !uncertain.has("start") && !uncertain.has("instructions");
    if (s.start !== undefined && s.instructions !== undefined) {
      kindKnown = false;
      this.problem(
        [...base, "instructions"],
        where,
        "instructions",
        'set "start" or "instructions", not both',
      );
    } else if (absent("start") && absent("instructions")) {
      kindKnown = false;
      this.problem(base, where, "start", 'set "start" (a node) or "instructions" (a persona call)');
    }
    if (s.start !== undefined) {
      this.checkTarget(s.start, [...base, "start"], where, "start", targets);
    }
    if (s.expect && kindKnown) {
      this.checkExpect(s.expect, s.start !== undefined, [...base, "expect"], where, targets);
    }
    if (absent("expect") && absent("agent_expectations")) {
      this.warn(
        base,
        where,
        undefined,
        'nothing scores this scenario: give it "expect" or "agent_expectations"',
      );
    }
    if (this.problems.length > before || s.label === undefined) return undefined;
    return {
      label: s.label,
      ...(s.start !== undefined ? { start: s.start } : {}),
      ...(s.instructions !== undefined ? { instructions: s.instructions } : {}),
      ...(s.userdata ? { userdata: s.userdata } : {}),
      tags: s.tags ?? [],
      ...(s.agent_expectations !== undefined ? { agent_expectations: s.agent_expectations } : {}),
      ...(s.expect ? { expect: s.expect } : {}),
      ...(s.language !== undefined ? { language: s.language } : {}),
      ...(s.voice !== undefined ? { voice: s.voice } : {}),
    };
  }

  /** Every per-language `say` of the group speaks the scenario's language. */
  checkLanguages(s: FlowGroupScenario, nodes: FlowNodes): void {
    if (s.language === undefined) return;
    for (const [name, node] of Object.entries(nodes)) {
      if (!node.say_languages || sayIn(node.say_languages, s.language) !== undefined) continue;
      this.problem(
        ["nodes", name, "say"],
        `scenario "${s.label}"`,
        "language",
        `node "${name}" has no "say" in ${s.language} (it has ${
          Object.keys(node.say_languages).join(", ")
        }): add one, or set the scenario's language to one of those`,
      );
    }
  }

  checkLabel(label: string, base: ValuePath, where: string): void {
    const line = this.locate([...base, "label"]);
    if (!NAME_PATTERN.test(label)) {
      this.problem(
        [...base, "label"],
        where,
        "label",
        `malformed label "${label}" (lowercase letters, digits, - and _, starting with a letter or digit)`,
      );
    }
    if (this.#labels.has(label)) {
      const first = this.#labels.get(label);
      this.problem(
        [...base, "label"],
        where,
        "label",
        `duplicate label "${label}"${first ? ` (first at line ${first})` : ""}`,
      );
    } else this.#labels.set(label, line);
  }

  checkExpect(
    e: FlowExpect,
    hasStart: boolean,
    base: ValuePath,
    where: string,
    targets: Set<string>,
  ): void {
    if (!hasStart) {
      for (const f of ["path", "end", "message"] as const) {
        if (e[f] !== undefined) {
          this.problem(
            [...base, f],
            where,
            `expect.${f}`,
            `a persona call has no nodes: only "keys" can be expected`,
          );
        }
      }
      return;
    }
    e.path?.forEach((name, i) => {
      const p = [...base, "path", i];
      if (isBuiltIn(name)) {
        this.problem(
          p,
          where,
          `expect.path[${i}]`,
          `"${name}" is a built-in: built-ins end a call, so expect them with "end"`,
        );
      } else this.checkTarget(name, p, where, `expect.path[${i}]`, targets);
    });
    if (e.end !== undefined) {
      this.checkTarget(e.end, [...base, "end"], where, "expect.end", targets);
    }
    if (e.keys !== undefined && e.keys !== "" && !DTMF_KEYS.test(e.keys)) {
      this.problem(
        [...base, "keys"],
        where,
        "expect.keys",
        `"${e.keys}" is not a string of keys (${DTMF_KEYS_TEXT})`,
      );
    }
  }

  // --- problems ------------------------------------------------------------

  /**
   * Parses a node or scenario, reporting every schema problem, and returns what can
   * still be checked: an unknown field is read as the field it probably misspells
   * (the hint it is reported with) when that one is not given, else set aside; a
   * malformed part is dropped (a route with no `to` drops the routes). `undefined`
   * when nothing can be checked (not a mapping).
   */
  salvage<T>(
    schema: z.ZodObject,
    raw: unknown,
    base: ValuePath,
    where: string,
  ): Salvaged<T> | undefined {
    const r = schema.safeParse(raw);
    if (r.success) return { data: r.data as T, uncertain: new Set(), clean: true };
    this.zodIssues(r.error, raw, base, where, schema);
    if (!_isObject(raw)) return undefined;
    const value = structuredClone(raw);
    for (const issue of r.error.issues) {
      if (issue.code !== "unrecognized_keys") continue;
      const path = issuePath(issue);
      const parent = valueAt(value, path);
      if (!_isObject(parent)) continue;
      for (const key of issue.keys) {
        const meant = suggestName(key, knownKeys(schema, path));
        if (meant !== undefined && !(meant in parent)) parent[meant] = parent[key];
        delete parent[key];
      }
    }
    const lenient = schema.partial();
    const uncertain = new Set<string>();
    for (let round = 0; round < 4; round++) {
      const again = lenient.safeParse(value);
      if (again.success) return { data: again.data as T, uncertain, clean: false };
      for (const issue of again.error.issues) {
        const path = issuePath(issue);
        if (path.length === 0) return undefined;
        uncertain.add(String(path[0]));
        // Drop the bad value where it is; a part that cannot go (a required field,
        // a list item) takes its whole top-level field with it.
        const parent = valueAt(value, path.slice(0, -1));
        const last = path.at(-1)!;
        if (path.length > 1 && _isObject(parent) && parent[last] !== undefined) {
          delete parent[last];
        } else delete value[String(path[0])];
      }
    }
    return undefined;
  }

  /** zod's issues as located problems (src/schema/zod_problems.ts). */
  zodIssues(
    error: z.ZodError,
    raw: unknown,
    base: ValuePath,
    where: string,
    schema: z.ZodType,
  ): void {
    for (const p of zodProblems(error, raw, schema, WORDING)) {
      this.problems.push(
        this.located([...base, ...p.path], where, p.field || undefined, p.message, p.hint),
      );
    }
  }

  unknownField(path: ValuePath, where: string | undefined, field: string, known: string[]): void {
    const p = unknownFieldProblem(path, known, WORDING);
    this.problem(path, where, field, p.message, p.hint);
  }

  problem(
    path: ValuePath,
    where: string | undefined,
    field: string | undefined,
    message: string,
    hint?: string,
  ): void {
    this.problems.push(this.located(path, where, field, message, hint));
  }

  warn(
    path: ValuePath,
    where: string | undefined,
    field: string | undefined,
    message: string,
  ): void {
    this.warnings.push(this.located(path, where, field, message));
  }

  located(
    path: ValuePath,
    where: string | undefined,
    field: string | undefined,
    message: string,
    hint?: string,
  ): Problem {
    const line = this.locate(path);
    return {
      file: this.file,
      ...(line !== undefined ? { line } : {}),
      ...(where !== undefined ? { where } : {}),
      ...(field ? { field } : {}),
      message,
      ...(hint ? { hint } : {}),
    };
  }
}

/** In file order (a stable sort: problems on one line keep their order). */
function _byLine(problems: Problem[]): Problem[] {
  return [...problems].sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
}

function _isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

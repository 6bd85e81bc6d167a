/**
 * Scenario files: YAML or JSON documents, each one scenario (the `ScenarioSchema`
 * shape), a `{scenarios: [...]}` list of them, or a flow group (`nodes`, or
 * `scenarios` with `label`s; see flows.md) handed to the flow loader. A path may be
 * a folder: its `*.yaml`, `*.yml` and `*.json` files, in name order.
 *
 * Nothing throws on bad input: every problem names the file, the line, the scenario
 * and the field, and an unknown field gets the closest known name as a hint. A file
 * over `MAX_SCENARIO_FILE_BYTES` (8 MB) is refused before it is read or parsed.
 *
 * @module
 */
import { join } from "node:path";
import { type Document, isMap, isPair, isScalar, isSeq, LineCounter, parseDocument } from "yaml";
import { loadFlowFile } from "./flow_file.ts";
import { fieldText, type Problem } from "../problem/problem.ts";
import { zodProblems } from "../schema/zod_problems.ts";
import { type Scenario, ScenarioSchema } from "./scenario.ts";
import { jsonErrorOffset } from "../problem/json_error.ts";
import { copyLines, lineOf, rememberLines } from "./lines.ts";

/** What `loadScenarioFiles` read: the scenarios, and the problems met. */
export interface ScenarioFilesLoad {
  /** The scenarios of the files that loaded. */
  scenarios: Scenario[];
  /** Problems that keep a file's scenarios from loading. */
  problems: Problem[];
  /** Problems worth knowing that do not stop a run. */
  warnings: Problem[];
}

const EXTENSIONS = /\.(ya?ml|json)$/i;

/**
 * The largest scenario, flow or script file read (8 MB). The biggest benchmark
 * scenario is tens of KB; YAML parsing costs far more memory than the text, so a
 * larger file is refused before it is read.
 */
export const MAX_SCENARIO_FILE_BYTES = 8 * 1024 * 1024;

/**
 * Reads an input file (scenario, flow or script), refusing one over
 * `MAX_SCENARIO_FILE_BYTES` before reading it. Returns the text or a problem.
 */
export async function readInputFile(
  file: string,
  kind = "scenario file",
): Promise<{ text: string } | { problem: Problem }> {
  try {
    const info = await Deno.stat(file);
    if (info.size > MAX_SCENARIO_FILE_BYTES) return { problem: _tooLarge(file, info.size, kind) };
    const text = await Deno.readTextFile(file);
    // The file may have grown between the two calls.
    if (text.length > MAX_SCENARIO_FILE_BYTES) {
      return { problem: _tooLarge(file, text.length, kind) };
    }
    return { text };
  } catch (e) {
    return { problem: { file, message: `cannot read: ${(e as Error).message}` } };
  }
}

function _tooLarge(file: string, size: number, kind: string): Problem {
  return {
    file,
    message: `${kind} too large: ${(size / 1024 / 1024).toFixed(1)} MB, the limit is ${
      MAX_SCENARIO_FILE_BYTES / 1024 / 1024
    } MB`,
    hint: "split it into several files",
  };
}

/** Loads every scenario of the given files and folders, in order. */
export async function loadScenarioFiles(paths: string[]): Promise<ScenarioFilesLoad> {
  const out: ScenarioFilesLoad = { scenarios: [], problems: [], warnings: [] };
  const names = new Map<string, string>();
  for (const file of await _expand(paths, out)) {
    const read = await readInputFile(file);
    if ("problem" in read) {
      out.problems.push(read.problem);
      continue;
    }
    const loaded = loadScenarioText(file, read.text);
    out.problems.push(...loaded.problems);
    out.warnings.push(...loaded.warnings);
    for (const s of loaded.scenarios) {
      const first = names.get(s.name);
      if (first !== undefined) {
        const line = lineOf(s, ["name"]);
        out.problems.push({
          file,
          ...(line !== undefined ? { line } : {}),
          where: s.name,
          field: "name",
          message: `duplicate scenario name (first in ${first})`,
        });
        continue;
      }
      names.set(s.name, file);
      // Where it was loaded from, so `list | eval` runs this file and not a data-root
      // scenario of the same name (a scaffolded file's `source` names its dataset).
      const copy = { ...s, source: `file:${file}` };
      copyLines(s, copy);
      out.scenarios.push(copy);
    }
  }
  return out;
}

/** Files to read: each file as given, each folder's scenario files sorted by name. */
async function _expand(paths: string[], out: ScenarioFilesLoad): Promise<string[]> {
  const files: string[] = [];
  for (const path of paths) {
    let info: Deno.FileInfo;
    try {
      info = await Deno.stat(path);
    } catch {
      out.problems.push({ file: path, message: "no such file or folder" });
      continue;
    }
    if (!info.isDirectory) {
      files.push(path);
      continue;
    }
    const inFolder: string[] = [];
    for await (const e of Deno.readDir(path)) {
      if (e.isFile && EXTENSIONS.test(e.name)) inFolder.push(e.name);
    }
    inFolder.sort();
    if (inFolder.length === 0) {
      out.warnings.push({ file: path, message: "no .yaml, .yml or .json scenario files here" });
    }
    files.push(...inFolder.map((n) => join(path, n)));
  }
  return files;
}

/** Whether a text is a flow group, judged without converting it (conversion can throw). */
function _looksLikeFlowGroup(text: string): boolean {
  const doc = parseDocument(text, { uniqueKeys: false });
  const root = doc.contents;
  if (!isMap(root)) return false;
  if (root.has("nodes")) return true;
  const scenarios = root.get("scenarios");
  return isSeq(scenarios) && scenarios.items.some((s) => isMap(s) && s.has("label"));
}

/** The scenarios of one file's text (flow groups go to the flow loader). */
export function loadScenarioText(file: string, text: string): ScenarioFilesLoad {
  const out: ScenarioFilesLoad = { scenarios: [], problems: [], warnings: [] };
  if (text.length > MAX_SCENARIO_FILE_BYTES) {
    out.problems.push(_tooLarge(file, text.length, "scenario file"));
    return out;
  }
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false });
  // A flow group goes to the flow loader, YAML traps (duplicate keys, an unquoted `#`
  // or `*`) included: it explains them by node name.
  if (_looksLikeFlowGroup(text)) return loadFlowFile(file, text);
  if (doc.errors.length > 0) {
    for (const e of doc.errors) {
      out.problems.push({
        file,
        line: lineCounter.linePos(e.pos[0]).line,
        message: `invalid ${file.toLowerCase().endsWith(".json") ? "JSON" : "YAML"}: ${
          e.message.split("\n")[0]
        }`,
      });
    }
    return out;
  }
  if (/\.json$/i.test(file)) {
    // YAML reads JSON leniently (`"a": ,` is a null there): hold JSON files to JSON.
    const error = jsonErrorOffset(text);
    if (error !== undefined) {
      out.problems.push({
        file,
        line: lineCounter.linePos(error.offset).line,
        message: `invalid JSON: ${error.message}`,
      });
      return out;
    }
  }
  let value: unknown;
  try {
    value = doc.toJS();
  } catch (e) {
    // e.g. an unresolved alias (`*name`): the parser accepts it, conversion does not.
    out.problems.push({ file, line: 1, message: `invalid YAML: ${(e as Error).message}` });
    return out;
  }
  const located = new _Locator(file, doc, lineCounter);
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    out.problems.push({
      file,
      line: 1,
      message: "expected a scenario (a mapping with name, domain, ...) or {scenarios: [...]}",
    });
    return out;
  }
  const v = value as Record<string, unknown>;
  if ("scenarios" in v) {
    const extra = Object.keys(v).filter((k) => k !== "scenarios");
    for (const k of extra) {
      out.problems.push({
        ...located.problem([k], true),
        field: k,
        message: `unknown field "${k}" beside "scenarios"`,
      });
    }
    if (!Array.isArray(v.scenarios)) {
      out.problems.push({
        ...located.problem(["scenarios"]),
        field: "scenarios",
        message: "expected a list of scenarios",
      });
      return out;
    }
    if (extra.length > 0) return out;
    v.scenarios.forEach((item, i) => _validate(item, ["scenarios", i], located, out));
  } else {
    _validate(v, [], located, out);
  }
  return out;
}

function _validate(
  item: unknown,
  base: (string | number)[],
  located: _Locator,
  out: ScenarioFilesLoad,
): void {
  const parsed = ScenarioSchema.safeParse(item);
  const name = (item as { name?: unknown })?.name;
  const where = typeof name === "string" && name !== "" ? name : fieldText(base) || undefined;
  if (parsed.success) {
    const s = parsed.data;
    const scenario = s.source === undefined ? { ...s, source: `file:${located.file}` } : s;
    rememberLines(scenario, (path) => located.problem([...base, ...path]).line);
    out.scenarios.push(scenario);
    return;
  }
  for (const p of zodProblems(parsed.error, item, ScenarioSchema)) {
    out.problems.push({
      ...located.problem([...base, ...p.path], p.key),
      where,
      field: p.field || undefined,
      message: p.message,
      ...(p.hint ? { hint: p.hint } : {}),
    });
  }
}

/** Finds the line of a value (or of its key) in the document. */
class _Locator {
  constructor(
    readonly file: string,
    readonly doc: Document,
    readonly lines: LineCounter,
  ) {}

  /** `{file, line}` of the node at `path`, or of its nearest existing ancestor. */
  problem(path: (string | number)[], key = false): { file: string; line?: number } {
    let node: unknown = this.doc.contents;
    let at: unknown = node;
    for (let i = 0; i < path.length; i++) {
      const k = path[i]!;
      const last = i === path.length - 1;
      if (isMap(node)) {
        const pair = node.items.find((p) =>
          isPair(p) && isScalar(p.key) && String(p.key.value) === String(k)
        );
        if (!pair) break;
        at = key && last ? pair.key : pair.value ?? pair.key;
        node = pair.value;
      } else if (isSeq(node) && typeof k === "number" && node.items[k] !== undefined) {
        node = node.items[k];
        at = node;
      } else {
        break;
      }
    }
    const range = (at as { range?: [number, number, number] } | undefined)?.range;
    return range
      ? { file: this.file, line: this.lines.linePos(range[0]).line }
      : { file: this.file };
  }
}

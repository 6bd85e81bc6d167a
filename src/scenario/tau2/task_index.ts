/**
 * A tau2 data folder's scenario set, as the reference builds it: the task ids in
 * both `tasks_voice.json` (`configs` keys) and `split_tasks.json["base"]` (when the
 * split file exists), joined with `tasks.json`. Parsed once per data root.
 *
 * @module
 */
import { fieldText, type Problem } from "../../problem/problem.ts";
import type { DataRoot } from "../data_root.ts";
import { type Tau2Task, Tau2TaskSchema } from "./task.ts";

export interface IndexedTask {
  task: Tau2Task;
  /** `configs.control.persona_name` of the voice config: a label for slicing results. */
  persona?: string;
}

export interface TaskIndex {
  tasks: IndexedTask[];
  problems: Problem[];
}

const SPLIT = "base";

const cache = new WeakMap<DataRoot, Map<string, TaskIndex>>();

/** The voice ∩ base tasks of `dir` (e.g. `tau2_retail`), in `tasks.json` order. */
export function taskIndex(root: DataRoot, dir: string): TaskIndex {
  let byDir = cache.get(root);
  if (!byDir) cache.set(root, byDir = new Map());
  let index = byDir.get(dir);
  if (!index) byDir.set(dir, index = _build(root, dir));
  return index;
}

function _build(root: DataRoot, dir: string): TaskIndex {
  const problems: Problem[] = [];
  const tasksFile = `${dir}/tasks.json`;
  const voiceFile = `${dir}/tasks_voice.json`;
  const splitFile = `${dir}/split_tasks.json`;

  const voice = root.jsonOnce<
    { configs?: Record<string, { configs?: { control?: { persona_name?: unknown } } }> }
  >(
    voiceFile,
  );
  if (typeof voice?.configs !== "object" || voice.configs === null) {
    return {
      tasks: [],
      problems: [{
        file: root.resolve(voiceFile),
        field: "configs",
        message: "missing the task configs",
      }],
    };
  }
  const ids = new Set(Object.keys(voice.configs));
  if (root.exists(splitFile)) {
    const splits = root.jsonOnce<Record<string, unknown>>(splitFile);
    const base = splits?.[SPLIT];
    if (!Array.isArray(base)) {
      return {
        tasks: [],
        problems: [{ file: root.resolve(splitFile), field: SPLIT, message: `no "${SPLIT}" split` }],
      };
    }
    const inBase = new Set(base.map(String));
    for (const id of [...ids]) if (!inBase.has(id)) ids.delete(id);
  }

  const raw = root.json<unknown>(tasksFile);
  if (!Array.isArray(raw)) {
    return {
      tasks: [],
      problems: [{ file: root.resolve(tasksFile), message: "expected a list of tasks" }],
    };
  }
  const tasks: IndexedTask[] = [];
  const found = new Set<string>();
  raw.forEach((entry, i) => {
    const id = typeof entry?.id === "string" ? entry.id : undefined;
    if (id !== undefined && !ids.has(id)) return;
    const parsed = Tau2TaskSchema.safeParse(entry);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        problems.push({
          file: root.resolve(tasksFile),
          line: taskLine(root, tasksFile, id),
          where: id !== undefined ? `task ${JSON.stringify(id)}` : `task #${i}`,
          field: fieldText(issue.path),
          message: issue.message,
        });
      }
      if (id !== undefined) found.add(id);
      return;
    }
    found.add(parsed.data.id);
    const persona = voice.configs![parsed.data.id]?.configs?.control?.persona_name;
    tasks.push({ task: parsed.data, ...(typeof persona === "string" ? { persona } : {}) });
  });
  for (const id of ids) {
    if (!found.has(id)) {
      problems.push({
        file: root.resolve(voiceFile),
        where: `task ${JSON.stringify(id)}`,
        message: "voice task not found in tasks.json",
      });
    }
  }
  return { tasks, problems };
}

/**
 * The line of a task's `"id"` in its file, for a problem's location. Read only
 * when a problem is reported: the parsed file keeps no text.
 */
export function taskLine(root: DataRoot, file: string, id: string | undefined): number | undefined {
  if (id === undefined) return undefined;
  let text: string;
  try {
    text = root.text(file);
  } catch {
    return undefined;
  }
  const m = new RegExp(`"id"\\s*:\\s*${_escape(JSON.stringify(id))}`).exec(text);
  return m ? text.slice(0, m.index).split("\n").length : undefined;
}

function _escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

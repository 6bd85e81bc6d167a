/**
 * Data roots for the tau2 suite tests: a root held in memory (a map of relative
 * path to text), and the bundled retail fixture copied into one so a test can alter
 * a file without touching the disk.
 *
 * @module
 */
import { BUNDLED_DATA_ROOT, DataRoot } from "../data_root.ts";
import { InputError } from "../../problem/problem.ts";

/** A data root whose files are strings in memory. */
export class MemoryDataRoot extends DataRoot {
  readonly files: Map<string, string>;

  constructor(files: Record<string, string>) {
    super("/memory");
    this.files = new Map(Object.entries(files));
  }

  override exists(rel: string): boolean {
    return this.files.has(rel) || [...this.files.keys()].some((k) => k.startsWith(`${rel}/`));
  }

  override text(rel: string): string {
    const text = this.files.get(rel);
    if (text === undefined) {
      throw new InputError({ file: this.resolve(rel), message: "cannot read: not found" });
    }
    return text;
  }
}

const RETAIL_FILES = ["db.json", "tasks.json", "tasks_voice.json", "split_tasks.json", "policy.md"];

/** The bundled `tau2_retail` fixture in memory, with `edit` applied to its tasks. */
export function retailFixture(edit?: (tasks: Record<string, unknown>[]) => void): MemoryDataRoot {
  const files: Record<string, string> = {};
  for (const name of RETAIL_FILES) {
    files[`tau2_retail/${name}`] = Deno.readTextFileSync(`${BUNDLED_DATA_ROOT}tau2_retail/${name}`);
  }
  if (edit) {
    const tasks = JSON.parse(files["tau2_retail/tasks.json"]!);
    edit(tasks);
    files["tau2_retail/tasks.json"] = JSON.stringify(tasks, null, 2);
  }
  return new MemoryDataRoot(files);
}

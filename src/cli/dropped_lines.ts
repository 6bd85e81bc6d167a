/**
 * What `eval` says of the lines of an output folder's `trials.jsonl` that are not
 * whole, valid trial records: each is left out and its trial runs again.
 *
 * @module
 */
import type { DroppedLine } from "../runner/runner.ts";

/** Lines for stderr: one per line said, then how many more. */
export function droppedLinesText(file: string, dropped: DroppedLine[], total: number): string {
  const lines = dropped.map((d) =>
    `eval: ${file}:${d.line}: ${d.reason}; left out, its trial runs again`
  );
  if (total > dropped.length) {
    lines.push(`eval: ${file}: ${total - dropped.length} more line(s) left out the same way`);
  }
  return lines.join("\n");
}

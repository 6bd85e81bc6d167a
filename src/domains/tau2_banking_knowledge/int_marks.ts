/**
 * Which numbers of the bank's records are Python ints where JSON cannot say: a
 * task's initial data may write `0` where the bank's data elsewhere holds floats,
 * and the reference prints the two differently (`0` / `0.0`). The suite names such
 * fields in the `update_db` initialisation (`ints`), the call keeps them as
 * per-trial counters, and a tool's listing asks here while the tool runs.
 *
 * @module
 */
import type { ToolContext } from "../domain.ts";

let current: ToolContext | undefined;

/** The counter that marks a record field as holding an int. */
export function intCounter(table: string, id: string, field: string): string {
  return `banking:int:${table}\n${id}\n${field}`;
}

/** Runs a tool with its call's marks readable (tools run synchronously, one at a time). */
export function withIntMarks<T>(ctx: ToolContext, run: () => T): T {
  const previous = current;
  current = ctx;
  try {
    return run();
  } finally {
    current = previous;
  }
}

/** Whether the running call marked this record field as an int. */
export function markedInt(table: string, id: string, field: string): boolean {
  return (current?.count(intCounter(table, id, field)) ?? 0) > 0;
}

/**
 * How a banking task's initial state reaches the world, as initialisation
 * actions: `update_db` merges the task's `initialization_data.agent_data` into the
 * bank's database (nested objects merged key by key, as the reference's `update_db`
 * does; `ints` names the record fields it writes as ints), and `log_reads_of` names the read-only discoverable tools whose calls the
 * bank logs (the reference derives them from the task's gold calls).
 *
 * @module
 */
import type { Db, InitFunction, ToolContext } from "../domain.ts";
import { readLogCounter } from "./base_tools.ts";
import { intCounter } from "./int_marks.ts";

function merge(target: Record<string, unknown>, update: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(update)) {
    const current = Object.hasOwn(target, key) ? target[key] : undefined;
    const bothObjects = typeof value === "object" && value !== null && !Array.isArray(value) &&
      typeof current === "object" && current !== null && !Array.isArray(current);
    if (bothObjects) merge(current as Record<string, unknown>, value as Record<string, unknown>);
    else target[key] = structuredClone(value);
  }
}

export const initFunctions: Record<"agent" | "user", Record<string, InitFunction>> = {
  agent: {
    update_db(db: Db, args: Record<string, unknown>, ctx: ToolContext) {
      const data = args.data;
      if (typeof data !== "object" || data === null || Array.isArray(data)) {
        throw new Error("update_db takes {data: {table: {data: {...}}}}");
      }
      for (const [table, value] of Object.entries(data as Record<string, unknown>)) {
        if (typeof value === "object" && value !== null && !Array.isArray(value)) {
          const current = Object.hasOwn(db, table) ? db[table] : undefined;
          if (typeof current !== "object" || current === null) db[table] = { data: {}, notes: "" };
        }
      }
      merge(db, data as Record<string, unknown>);
      // Fields the task's data writes as ints: [table, record id, field].
      for (const mark of Array.isArray(args.ints) ? args.ints : []) {
        if (Array.isArray(mark) && mark.length === 3 && mark.every((m) => typeof m === "string")) {
          const [table, id, field] = mark as [string, string, string];
          if (ctx.count(intCounter(table, id, field)) === 0) ctx.next(intCounter(table, id, field));
        }
      }
    },
    log_reads_of(_db: Db, args: Record<string, unknown>, ctx: ToolContext) {
      const tools = args.tools;
      if (!Array.isArray(tools)) throw new Error("log_reads_of takes {tools: [names]}");
      for (const name of tools) {
        if (ctx.count(readLogCounter(String(name))) === 0) ctx.next(readLogCounter(String(name)));
      }
    },
  },
  user: {},
};

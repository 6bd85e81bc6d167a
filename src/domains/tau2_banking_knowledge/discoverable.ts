/**
 * Discoverable tools: tools the agent (or, handed over by the agent, the caller)
 * may use only once the knowledge base has named them. The agent unlocks one by
 * name and calls it through `call_discoverable_agent_tool` with JSON arguments;
 * the caller calls the ones given to them through `call_discoverable_user_tool`.
 * Arguments bind as Python binds keyword arguments (unknown and missing names are
 * the reference's `TypeError` texts), and every JSON number arrives as a float.
 *
 * @module
 */
import type { Db, ToolContext } from "../domain.ts";

/** One parameter, as the tool's description lists it to the agent. */
export interface DiscoverableParam {
  name: string;
  /** The type word shown (`string`, `number`, `integer`, `boolean`). */
  type: string;
  /** Shown as `(required)` or `(optional)`; an optional one takes `fallback`. */
  required: boolean;
  description: string;
  fallback?: unknown;
}

export interface DiscoverableTool {
  name: string;
  /** Whether a call changes the world (the reference logs such calls in the database). */
  mutates: boolean;
  description: string;
  params: readonly DiscoverableParam[];
  /** Runs on bound arguments; the answer is text, errors included (as the reference's). */
  run(args: Record<string, unknown>, db: Db, ctx: ToolContext): string;
}

/** The tool's description as the agent is shown it on unlocking. */
export function describeForAgent(tool: DiscoverableTool): string {
  const params = tool.params.map((p) =>
    `  - ${p.name}: ${p.type} (${p.required ? "required" : "optional"}) - ${p.description}`
  );
  return `Tool: ${tool.name}\nDescription: ${tool.description}\nParameters:\n${
    params.length > 0 ? params.join("\n") : "  (no parameters)"
  }`;
}

/**
 * Binds keyword arguments as Python does for `method(**args)`: the bound values,
 * or the `TypeError` text (`owner` is the class the reference's message names).
 */
export function bindArguments(
  tool: DiscoverableTool,
  args: unknown,
  owner: string,
): { ok: true; args: Record<string, unknown> } | { ok: false; error: string } {
  const where = `${owner}.${tool.name}()`;
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    return {
      ok: false,
      error: `${where} argument after ** must be a mapping, not ${pyTypeName(args)}`,
    };
  }
  const given = args as Record<string, unknown>;
  const names = new Set(tool.params.map((p) => p.name));
  for (const key of Object.keys(given)) {
    if (!names.has(key)) {
      return { ok: false, error: `${where} got an unexpected keyword argument '${key}'` };
    }
  }
  const missing = tool.params.filter((p) => p.required && !Object.hasOwn(given, p.name));
  if (missing.length > 0) {
    const quoted = missing.map((p) => `'${p.name}'`);
    const list = quoted.length === 1
      ? quoted[0]
      : quoted.length === 2
      ? `${quoted[0]} and ${quoted[1]}`
      : `${quoted.slice(0, -1).join(", ")}, and ${quoted.at(-1)}`;
    return {
      ok: false,
      error: `${where} missing ${missing.length} required positional argument${
        missing.length === 1 ? "" : "s"
      }: ${list}`,
    };
  }
  const bound: Record<string, unknown> = {};
  for (const p of tool.params) {
    bound[p.name] = Object.hasOwn(given, p.name) ? given[p.name] : p.fallback ?? null;
  }
  return { ok: true, args: bound };
}

/** Python's type name of a JSON value, as its error messages print it. */
export function pyTypeName(value: unknown): string {
  if (value === null || value === undefined) return "NoneType";
  if (Array.isArray(value)) return "list";
  if (typeof value === "string") return "str";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "number") return "float";
  return "dict";
}

/** A parameter's entry, briefly: `p("user_id", "string", "The customer's id")`. */
export function p(
  name: string,
  type: string,
  description: string,
  optional?: { fallback: unknown },
): DiscoverableParam {
  return optional
    ? { name, type, required: false, description, fallback: optional.fallback }
    : { name, type, required: true, description };
}

/** The reference's fixed "today" of every banking scenario, as its tools print it. */
export const TODAY = "11/14/2025";
/** Its fixed "now", 2025-11-14 03:40:00, as days since the epoch (for account ages). */
export const NOW_MS = Date.UTC(2025, 10, 14, 3, 40, 0);

/**
 * Days from `MM/DD/YYYY` to the fixed now (`(now - date).days`), or undefined where
 * `strptime` fails; `fromMidnight` counts to the start of that day instead.
 */
export function ageDays(date: unknown, fromMidnight = false): number | undefined {
  if (typeof date !== "string") return undefined;
  const m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(date);
  if (!m) return undefined;
  const [month, day, year] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const t = Date.UTC(year, month - 1, day);
  const d = new Date(t);
  if (d.getUTCMonth() !== month - 1 || d.getUTCDate() !== day) return undefined;
  const now = fromMidnight ? Date.UTC(2025, 10, 14) : NOW_MS;
  return Math.floor((now - t) / 86_400_000);
}

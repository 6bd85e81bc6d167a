/**
 * How a tau2 tool is declared: the upstream snake_case name (what replay and the LLM
 * use), the reference's class name as an alias, a zod argument shape whose top level
 * rejects unknown keys, and a run function over the draft database. Write tools
 * append the tau2 record `{action_type, name, arguments, result}` with the validated
 * arguments; every error is a result, never an exception.
 *
 * @module
 */
import { z } from "zod";
import type {
  ActionRecord,
  Db,
  ToolContext,
  ToolDef,
  ToolEffect,
  ToolErrorResult,
  ToolOutcome,
} from "../domain.ts";
import { readView } from "../domain.ts";

export interface Tau2ToolSpec<S extends z.ZodRawShape> {
  name: string;
  /** The reference's class name (what its LLM sees). */
  alias: string;
  kind: "read" | "write";
  /** What the tool does to the call (the transfer ends it). */
  effect?: ToolEffect;
  description: string;
  args: S;
  /**
   * Whether the tool answers an empty database with `db_not_initialized` (the
   * reference's `if not db` guard); the database-free tools do not.
   */
  usesDb?: boolean;
  run(args: z.output<z.ZodObject<S>>, ctx: ToolContext): ToolOutcome;
}

export type Tau2Args<S extends z.ZodRawShape> = z.output<z.ZodObject<S>>;

export function tau2Tool<S extends z.ZodRawShape>(spec: Tau2ToolSpec<S>): ToolDef<Tau2Args<S>> {
  const usesDb = spec.usesDb ?? true;
  return {
    name: spec.name,
    aliases: [spec.alias],
    side: "agent",
    kind: spec.kind,
    ...(spec.effect ? { effect: spec.effect } : {}),
    description: spec.description,
    args: z.object(spec.args).strict() as unknown as z.ZodType<Tau2Args<S>>,
    run(args, ctx) {
      if (usesDb && Object.keys(ctx.db).length === 0) return DB_NOT_INITIALIZED;
      return spec.run(args, ctx);
    },
  };
}

const DB_NOT_INITIALIZED: ToolOutcome = {
  ok: false,
  result: {
    status: "error",
    error_type: "db_not_initialized",
    message: "The scenario database is not loaded, so this tool cannot run.",
  },
};

/** A failed call with the reference's error shape. */
export function failure(errorType: string, message: string): ToolOutcome {
  return { ok: false, result: toolError(errorType, message) };
}

export function toolError(errorType: string, message: string): ToolErrorResult {
  return { status: "error", error_type: errorType, message };
}

/** A successful read. */
export function answer(result: unknown): ToolOutcome {
  return { ok: true, result };
}

/**
 * A successful write: the caller sees `result`; the action log gets the tau2
 * record, whose `result` is the short summary the reference records.
 */
export function written(
  name: string,
  args: unknown,
  recorded: Record<string, unknown>,
  result: unknown,
  exit?: string,
): ToolOutcome {
  const record: ActionRecord = { action_type: name, name, arguments: args, result: recorded };
  return exit ? { ok: true, result, record, exit } : { ok: true, result, record };
}

/**
 * The database as loaded, for tools that only read: walking the frozen original
 * skips the proxies a draft would create for every record visited (a search over
 * every flight or user).
 */
export function readOnly(db: Db): Db {
  return readView(db);
}

/** `dict.get(key)`: own properties only, so ids like "constructor" find nothing. */
export function own<T = Record<string, unknown>>(container: unknown, key: unknown): T | undefined {
  if (typeof container !== "object" || container === null || typeof key !== "string") {
    return undefined;
  }
  return Object.hasOwn(container, key) ? (container as Record<string, T>)[key] : undefined;
}

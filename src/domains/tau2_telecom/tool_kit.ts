/**
 * How a telecom tool is built: the reference's conventions in one place. A tool on
 * an empty database answers `db_not_initialized`; a not-found or state error it
 * raises (`ToolError`) becomes a `tool_error` result; a write that succeeds returns
 * a tau2 action record `{action_type, name, arguments, result}`.
 *
 * @module
 */
import type { z } from "zod";
import type {
  ActionRecord,
  Db,
  Side,
  ToolContext,
  ToolDef,
  ToolEffect,
  ToolErrorResult,
  ToolOutcome,
} from "../domain.ts";

/** A not-found or state error, reported to the caller as `tool_error`. */
export class ToolError extends Error {
  override name = "ToolError";
}

export interface TelecomToolSpec<A, D> {
  name: string;
  side: Side;
  kind: "read" | "write" | "system";
  /** What the tool does to the call (the transfer ends it). */
  effect?: ToolEffect;
  description: string;
  args: z.ZodType<A>;
  /** False for tools that never touch the database (the transfer). */
  needsDb?: boolean;
  run(args: A, db: D, ctx: ToolContext): ToolOutcome;
}

export function telecomTool<A, D>(spec: TelecomToolSpec<A, D>): ToolDef<A> {
  const { run, needsDb = true, ...def } = spec;
  return {
    ...def,
    run(args, ctx) {
      if (needsDb && _isEmpty(ctx.db)) return { ok: false, result: dbNotInitialized(spec.side) };
      try {
        return run(args, ctx.db as D, ctx);
      } catch (e) {
        if (e instanceof ToolError) return { ok: false, result: toolError(e.message) };
        throw e;
      }
    },
  };
}

/** A successful outcome, with the action record when the call changed the world. */
export function done(result: unknown, record?: ActionRecord): ToolOutcome {
  return record ? { ok: true, result, record } : { ok: true, result };
}

/** The tau2 action record of a write. */
export function actionRecord(
  name: string,
  args: Record<string, unknown>,
  result: unknown,
): ActionRecord {
  return { action_type: name, name, arguments: args, result };
}

export function toolError(message: string): ToolErrorResult {
  return { status: "error", error_type: "tool_error", message };
}

export function dbNotInitialized(side: Side): ToolErrorResult {
  return {
    status: "error",
    error_type: "db_not_initialized",
    message: `Scenario ${side}-side database not loaded. This indicates a fixture-loading bug.`,
  };
}

function _isEmpty(db: Db | undefined): boolean {
  return !db || Object.keys(db).length === 0;
}

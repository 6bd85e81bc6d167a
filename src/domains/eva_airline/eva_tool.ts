/**
 * How an eva_airline tool is declared: upstream snake_case name, the reference's
 * class name as an alias, a zod argument shape (extra keys ignored, as pydantic
 * does), and a run function over the draft world. Every tool answers an empty
 * world with the reference's `db_not_initialized` error.
 *
 * @module
 */
import { z } from "zod";
import type {
  ActionRecord,
  ToolContext,
  ToolDef,
  ToolEffect,
  ToolErrorResult,
  ToolOutcome,
} from "../domain.ts";
import { toolError } from "./world.ts";

export interface EvaToolSpec<S extends z.ZodRawShape> {
  name: string;
  /** The reference's class name (what its LLM sees). */
  alias: string;
  kind: "read" | "write";
  /** What the tool does to the call (the transfer ends it). */
  effect?: ToolEffect;
  description: string;
  args: S;
  run(args: z.output<z.ZodObject<S>>, ctx: ToolContext): ToolOutcome;
}

export function evaTool<S extends z.ZodRawShape>(
  spec: EvaToolSpec<S>,
): ToolDef<z.output<z.ZodObject<S>>> {
  return {
    name: spec.name,
    aliases: [spec.alias],
    side: "agent",
    kind: spec.kind,
    ...(spec.effect ? { effect: spec.effect } : {}),
    description: spec.description,
    args: z.object(spec.args) as unknown as z.ZodType<z.output<z.ZodObject<S>>>,
    run(args, ctx) {
      if (Object.keys(ctx.db).length === 0) return failed(DB_NOT_INITIALIZED);
      return spec.run(args, ctx);
    },
  };
}

const DB_NOT_INITIALIZED = toolError(
  "db_not_initialized",
  "The scenario database is not loaded, so this tool cannot run.",
);

/** A successful call; write tools pass the action record they append. */
export function succeeded(result: unknown, record?: ActionRecord): ToolOutcome {
  return record ? { ok: true, result, record } : { ok: true, result };
}

export function failed(result: ToolErrorResult): ToolOutcome {
  return { ok: false, result };
}

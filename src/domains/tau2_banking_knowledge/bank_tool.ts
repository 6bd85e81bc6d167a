/**
 * How a banking tool is declared: its name, side, whether it writes, a zod
 * argument shape (unknown keys rejected), and a run function that answers text,
 * as the reference's tools do, errors included. Every tool acts on the bank's one
 * database, the caller's as well; a write is logged as the tau2 record
 * `{action_type, name, arguments, result}`.
 *
 * @module
 */
import { z } from "zod";
import type { Db, Side, ToolContext, ToolDef, ToolEffect, ToolOutcome } from "../domain.ts";
import { withIntMarks } from "./int_marks.ts";

export interface BankToolSpec<S extends z.ZodRawShape> {
  name: string;
  side: Side;
  kind: "read" | "write";
  effect?: ToolEffect;
  description: string;
  args: S;
  run(args: z.output<z.ZodObject<S>>, db: Db, ctx: ToolContext): string;
  /** The call ends once this answer is delivered (a transfer that went through). */
  exits?(text: string): string | undefined;
}

export function bankTool<S extends z.ZodRawShape>(
  spec: BankToolSpec<S>,
): ToolDef<z.output<z.ZodObject<S>>> {
  return {
    name: spec.name,
    side: spec.side,
    ...(spec.side === "user" ? { world: "agent" as const } : {}),
    kind: spec.kind,
    ...(spec.effect ? { effect: spec.effect } : {}),
    description: spec.description,
    args: z.object(spec.args).strict() as unknown as z.ZodType<z.output<z.ZodObject<S>>>,
    run(args, ctx): ToolOutcome {
      const text = withIntMarks(ctx, () => spec.run(args, ctx.db, ctx));
      if (spec.kind === "read") return { ok: true, result: text };
      const exit = spec.exits?.(text);
      return {
        ok: true,
        result: text,
        record: { action_type: spec.name, name: spec.name, arguments: args, result: text },
        ...(exit ? { exit } : {}),
      };
    },
  };
}

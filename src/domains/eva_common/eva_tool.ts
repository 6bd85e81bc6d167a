/**
 * How an EVA-Bench tool of the later release (IT service desk, medical HR) is
 * declared: the upstream snake_case name, a pydantic-like argument shape, an
 * optional model check (pydantic's `model_validator`), and a run over the draft
 * world that returns the reference's result dict. A result whose status is "error"
 * fails the call (the draft rolls back) unless the tool keeps what it wrote on that
 * error, as the reference's MFA-reset refusal does; an exception is the reference's
 * `execution_error`.
 *
 * @module
 */
import type { z } from "zod";
import type {
  Db,
  ToolContext,
  ToolDef,
  ToolEffect,
  ToolErrorResult,
  ToolOutcome,
} from "../domain.ts";
import { type ErrorTables, validationErrorResponse } from "./validation_error.ts";
import { model } from "./pydantic.ts";

// A reference tool reads its world as Python reads dicts: any field, any depth.
// deno-lint-ignore no-explicit-any
export type Rec = Record<string, any>;

export interface PyToolSpec<S extends z.ZodRawShape> {
  name: string;
  kind: "read" | "write" | "system";
  effect?: ToolEffect;
  description: string;
  args: S;
  /**
   * pydantic's after-validator: returns the `ValueError` text when the arguments are
   * inconsistent (and may drop inapplicable fields, as the reference does).
   */
  check?(args: z.output<z.ZodObject<S>>): string | undefined;
  /** Runs on the raw arguments before validation (the reference drops some). */
  prepare?(raw: unknown): unknown;
  /** The call keeps its writes although the result is an error. */
  keepsWritesOnError?: boolean;
  run(args: z.output<z.ZodObject<S>>, db: Rec, callIndex: number): Rec;
}

/** Builds a domain's tools over its error tables. */
export function pyToolFactory(tables: ErrorTables) {
  return function pyTool<S extends z.ZodRawShape>(
    spec: PyToolSpec<S>,
  ): ToolDef<z.output<z.ZodObject<S>>> {
    const args = model(spec.args as unknown as Record<string, z.ZodType>, spec.prepare);
    return {
      name: spec.name,
      side: "agent",
      kind: spec.kind,
      ...(spec.effect ? { effect: spec.effect } : {}),
      description: spec.description,
      args: args as unknown as z.ZodType<z.output<z.ZodObject<S>>>,
      run(p, ctx: ToolContext): ToolOutcome {
        const callIndex = ctx.next(`calls:${spec.name}`);
        const problem = spec.check?.(p);
        if (problem !== undefined) {
          const shape = spec.args as unknown as Record<string, z.ZodType>;
          return {
            ok: false,
            result: validationErrorResponse(tables, shape, [{
              loc: [],
              input: p,
              msg: `Value error, ${problem}`,
            }]),
          };
        }
        let result: Rec;
        try {
          result = spec.run(p, ctx.db as Db as Rec, callIndex);
        } catch (e) {
          return {
            ok: false,
            result: {
              status: "error",
              error_type: "execution_error",
              message: `Tool execution failed: ${e instanceof Error ? e.message : String(e)}`,
            },
          };
        }
        if (result.status === "error" && !spec.keepsWritesOnError) {
          return { ok: false, result: result as ToolErrorResult };
        }
        return { ok: true, result };
      },
    };
  };
}

/** Python truthiness of a JSON value: None, False, 0, "", [] and {} are false. */
export function truthy(v: unknown): boolean {
  if (v === null || v === undefined || v === false || v === 0 || v === "") return false;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === "object") return Object.keys(v).length > 0;
  return true;
}

/** `d.get(k, {})` of a dict that may lack the key (or not be a dict). */
export function dict(d: unknown, k: string): Rec {
  const v = typeof d === "object" && d !== null ? (d as Rec)[k] : undefined;
  return typeof v === "object" && v !== null ? v : {};
}

/** `d.setdefault(k, fallback)`. */
// deno-lint-ignore no-explicit-any
export function setDefault(d: Rec, k: string, fallback: unknown): any {
  if (!Object.hasOwn(d, k)) d[k] = fallback;
  return d[k];
}

/** `copy.deepcopy` of a JSON value (works through a transaction's proxies). */
export function clone<T>(v: T): T {
  return v === undefined ? v : JSON.parse(JSON.stringify(v));
}

/** `str(n).zfill(width)` of a non-negative integer. */
export function zfill(n: number, width: number): string {
  return String(n).padStart(width, "0");
}

/** `d.get(k)`: an own entry only, so an id from a caller never reaches a prototype. */
export function at(d: unknown, k: string): Rec | undefined {
  if (typeof d !== "object" || d === null || !Object.hasOwn(d, k)) return undefined;
  return (d as Rec)[k];
}

/** `d.get(k, fallback)`: the fallback only when the key is absent (a `null` stays). */
// deno-lint-ignore no-explicit-any
export function get(d: unknown, k: string, fallback: unknown = null): any {
  if (typeof d !== "object" || d === null || !Object.hasOwn(d, k)) return fallback;
  return (d as Rec)[k];
}

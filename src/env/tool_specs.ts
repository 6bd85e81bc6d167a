/**
 * A domain's tools as an LLM sees them: name, description and JSON Schema of the
 * arguments (generated from the zod schemas). Used by the trial runner to set up each
 * side and by the bot server to answer the reference's `{toolName: ctorKwargs}` form.
 *
 * @module
 */
import type { ToolSpec } from "../bridge/call.ts";
import type { Domain, Side, ToolDef } from "../domains/domain.ts";
import { argumentsJsonSchema } from "../schema/json_schema.ts";

/** The tools of one side as an LLM sees them (JSON Schema from the zod schemas). */
export function toolSpecs(domain: Domain, side: Side, names: readonly string[]): ToolSpec[] {
  const tools = domain.tools.filter((t) => t.side === side);
  const picked = names.length > 0
    ? names.map((n) => tools.find((t) => t.name === n || t.aliases?.includes(n))).filter((t) =>
      t !== undefined
    )
    : tools;
  return picked.map(toolSpec);
}

/** One tool as an LLM sees it (JSON Schema from its zod schema, computed once). */
export function toolSpec(t: ToolDef): ToolSpec {
  return { name: t.name, description: t.description, parameters: argumentsJsonSchema(t.args) };
}

/**
 * The tools a participant is offered, as an LLM sees them: JSON Schema from each
 * tool's zod schema (src/schema/json_schema.ts).
 *
 * @module
 */
import type { ToolSpec } from "./call.ts";
import { type Domain, findTool, type Side, type ToolDef } from "../domains/domain.ts";
import { sendDtmfTool } from "../domains/common.ts";
import { argumentsJsonSchema } from "../schema/json_schema.ts";

/** The send_dtmf tool every agent may use to press keys (carried out by the bridge). */
export const SEND_DTMF_TOOL: ToolSpec = toolSpec(sendDtmfTool);

/** The tools of one side as an LLM sees them (JSON Schema from the zod schemas). */
export function toolSpecs(domain: Domain, side: Side, names: readonly string[]): ToolSpec[] {
  const picked = names.length > 0
    ? names.map((n) => findTool(domain, side, n)).filter((t) => t !== undefined)
    : domain.tools.filter((t) => t.side === side);
  return picked.map(toolSpec);
}

/** One tool as an LLM sees it (JSON Schema from its zod schema, computed once). */
function toolSpec(t: ToolDef): ToolSpec {
  return { name: t.name, description: t.description, parameters: argumentsJsonSchema(t.args) };
}

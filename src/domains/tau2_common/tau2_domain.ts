/**
 * A single-side tau2 domain (airline, retail): its agent tools plus
 * `end_conversation`, and validation errors worded as pydantic words them.
 *
 * @module
 */
import type { z } from "zod";
import { endConversationTool } from "../common.ts";
import type { Domain, ToolDef } from "../domain.ts";
import { validationError } from "./validation_error.ts";

/**
 * `models` names the nested pydantic model behind each list argument (`passengers`
 * -> `Passenger`); the argument object itself is `<Class>Params`.
 */
export function tau2Domain(
  id: string,
  tools: readonly ToolDef[],
  models: Readonly<Record<string, string>> = {},
): Domain {
  return {
    id,
    tools: [...tools, endConversationTool],
    validationError(tool: ToolDef, error: z.ZodError, args: unknown) {
      // Airline and retail declare integers, and name the model a wrong object is for.
      return validationError(error, args, {
        number: "int",
        object: (path) => ({
          error: `Input should be a valid dictionary or instance of ${
            path.length > 1 ? models[String(path[0])] ?? "Params" : paramsModelName(tool)
          }`,
          type: "model_type",
        }),
      });
    },
  };
}

/** `BookReservationTool` -> `BookReservationParams`, the reference's argument model. */
export function paramsModelName(tool: ToolDef): string {
  const alias = tool.aliases?.find((a) => a.endsWith("Tool"));
  return alias ? `${alias.slice(0, -"Tool".length)}Params` : "Params";
}

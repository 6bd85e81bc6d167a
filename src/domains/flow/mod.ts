/**
 * The flow domain: calls through IVR menus, holds, screeners and voicemail
 * (flows.md). There is no world: what is tested is how the agent gets through, so
 * the only tool is `end_conversation` (keys travel through the bridge's `send_dtmf`).
 *
 * @example
 * ```ts
 * import { domain } from "./mod.ts";
 * import { Environment } from "../../env/environment.ts";
 *
 * const env = new Environment(domain, { db: {} }, { today: "2024-05-15", seed: "0" });
 * console.log(env.call("agent", "end_conversation", {}).ok); // true
 * ```
 *
 * @module
 */
import type { Domain } from "../domain.ts";
import { endConversationTool } from "../common.ts";

export const domain: Domain = {
  id: "flow",
  tools: [endConversationTool],
  validationError: (tool, error) => ({
    status: "error",
    error_type: "validation_error",
    message: `Invalid arguments for ${tool.name}: ${
      error.issues.map((i) => `${i.path.join(".") || "arguments"}: ${i.message}`).join("; ")
    }`,
  }),
};

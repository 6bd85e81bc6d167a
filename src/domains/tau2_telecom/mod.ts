/**
 * The tau2 telecom domain (dual control): a carrier's records on the agent's side
 * (13 tools) and the caller's phone on the user's side (30 tools), kept in line by
 * a cross-side sync; six state predicates and twenty initialisation functions set
 * up and judge each task.
 *
 * @example
 * ```ts
 * import { Environment } from "../../env/environment.ts";
 * import { domain, TELECOM_TODAY } from "./mod.ts";
 * import { TelecomUserDbSchema } from "./data_model.ts";
 *
 * const env = new Environment(domain, {
 *   db: { plans: [], customers: [], lines: [], bills: [], devices: [] },
 *   user_db: TelecomUserDbSchema.parse({}),
 * }, { today: TELECOM_TODAY, seed: "demo" });
 * const { result } = env.call("user", "toggle_airplane_mode", {});
 * console.log(result); // "Airplane Mode is now ON.\nStatus Bar: ✈️ Airplane Mode | 🔋 80%"
 * ```
 *
 * @module
 */
import type { Domain } from "../domain.ts";
import { endConversationTool } from "../common.ts";
import { agentTools } from "./agent_tools.ts";
import { initFunctions } from "./init_functions.ts";
import { predicates } from "./predicates.ts";
import { applyTelecomDelta, syncTelecomState } from "./sync.ts";
import { userTools } from "./user_tools.ts";
import { tau2ValidationError } from "./validation_error.ts";

/**
 * The benchmark's fixed "now" (its policy says 2025-02-25 12:08 EST): the date a
 * telecom scenario should carry as `today`.
 */
export const TELECOM_TODAY = "2025-02-25";

export const domain: Domain = {
  id: "tau2_telecom",
  tools: [...agentTools, ...userTools, endConversationTool],
  validationError: (_tool, error, args) => tau2ValidationError(error, args),
  predicates,
  initFunctions,
  sync: syncTelecomState,
  applyDelta: applyTelecomDelta,
};

export { agentTools } from "./agent_tools.ts";
export { userTools } from "./user_tools.ts";
export { predicates } from "./predicates.ts";
export { initFunctions } from "./init_functions.ts";
export { applyTelecomDelta, syncTelecomState } from "./sync.ts";
export { TelecomDbSchema, TelecomUserDbSchema } from "./data_model.ts";
export type { TelecomDb, TelecomUserDb } from "./data_model.ts";

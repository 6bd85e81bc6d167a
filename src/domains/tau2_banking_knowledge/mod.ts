/**
 * The tau2 banking domain with a knowledge base (τ-voice `banking_knowledge`): one
 * bank database both sides act on, the agent's lookups and discoverable internal
 * tools (unlocked by name, called with JSON arguments), the caller's own tools and
 * the ones the agent hands over, and the knowledge-base searches of the retrieval
 * variant in use. Every answer is the reference's text.
 *
 * ```ts
 * import { Environment } from "../../env/environment.ts";
 * import { domain } from "./mod.ts";
 *
 * const env = new Environment(domain, { db: { users: { data: {}, notes: "" } } }, {
 *   today: "2025-11-14",
 *   seed: "demo",
 * });
 * env.call("agent", "get_current_time", {}).result; // "The current time is 2025-11-14 03:40:00 EST."
 * ```
 *
 * @module
 */
import { endConversationTool } from "../common.ts";
import type { DiscoverableInfo, Domain, Side } from "../domain.ts";
import type { DiscoverableTool } from "./discoverable.ts";
import { validationError } from "../tau2_common/validation_error.ts";
import { AGENT_DISCOVERABLE, agentTools, USER_DISCOVERABLE, userTools } from "./base_tools.ts";
import { initFunctions } from "./init_functions.ts";
import { prepareKnowledge } from "./knowledge.ts";
import { retrievalTools } from "./retrieval_tools.ts";

export const domain: Domain = {
  id: "tau2_banking_knowledge",
  tools: [...agentTools, ...retrievalTools, ...userTools, endConversationTool],
  validationError: (_tool, error, args) =>
    validationError(error, args, {
      number: "float",
      object: () => ({ error: "Input should be a valid dictionary", type: "dict_type" }),
    }),
  initFunctions,
  prepare: prepareKnowledge,
  discoverable: [
    ...[...AGENT_DISCOVERABLE.values()].map((t) => info(t, "agent")),
    ...[...USER_DISCOVERABLE.values()].map((t) => info(t, "user")),
  ],
};

function info(t: DiscoverableTool, side: Side): DiscoverableInfo {
  return {
    name: t.name,
    side,
    via: side === "agent" ? "call_discoverable_agent_tool" : "call_discoverable_user_tool",
    kind: t.mutates ? "write" : "read",
    description: t.description,
    params: t.params.map(({ name, type, required }) => ({ name, type, required })),
  };
}

export { AGENT_DISCOVERABLE, USER_DISCOVERABLE } from "./base_tools.ts";
export { loadKnowledgeBase } from "./knowledge_base.ts";
export {
  activeEmbeddingsUrl,
  activeVariant,
  DOCUMENTS_DIR,
  EMBEDDINGS_TAG,
  useEmbeddingsUrl,
  useKnowledgeBase,
  useRetrievalVariant,
  VARIANT_TAG,
} from "./knowledge.ts";
export { DEFAULT_VARIANT, resolveVariant, VARIANT_NAMES, variantTools } from "./variants.ts";

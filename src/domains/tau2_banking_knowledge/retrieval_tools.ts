/**
 * The agent's knowledge-base tools: `KB_search` (BM25) and `grep`, over the
 * knowledge base in use, with the active variant's result counts.
 *
 * @module
 */
import { z } from "zod";
import type { ToolDef } from "../domain.ts";
import { bankTool } from "./bank_tool.ts";
import { activeRetrieval, activeVariant } from "./knowledge.ts";

const NO_KB = "Error: the knowledge base is not loaded.";

export const retrievalTools: ToolDef[] = [
  bankTool({
    name: "KB_search",
    side: "agent",
    kind: "read",
    description: "Search the knowledge base for documents relevant to a query.",
    args: { query: z.string().describe("What to look for.") },
    run({ query }) {
      const r = activeRetrieval();
      return r ? r.kbSearchText(query, activeVariant().kbSearchTopK ?? 10) : NO_KB;
    },
  }),
  bankTool({
    name: "grep",
    side: "agent",
    kind: "read",
    description: "Find the knowledge-base documents matching a regular expression, " +
      "most matches first, with their full text.",
    args: { pattern: z.string().describe("The pattern, e.g. 'credit.*card' or 'fee|charge'.") },
    run({ pattern }) {
      const r = activeRetrieval();
      return r ? r.grepText(pattern, activeVariant().grepTopK ?? 10) : NO_KB;
    },
  }),
];

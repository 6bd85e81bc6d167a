/**
 * The agent's knowledge-base tools: `KB_search` (BM25, or dense embeddings under a
 * dense variant) and `grep`, over the knowledge base in use, with the active
 * variant's result counts. A dense search's network work is its `warm` step,
 * awaited before the call runs.
 *
 * @module
 */
import { z } from "zod";
import type { ToolDef } from "../domain.ts";
import { bankTool } from "./bank_tool.ts";
import { rank, warm } from "./dense.ts";
import { activeEmbeddings, activeRetrieval, activeVariant } from "./knowledge.ts";
import { pyFixed } from "./python_format.ts";

const NO_KB = "Error: the knowledge base is not loaded.";

const kbSearch = bankTool({
  name: "KB_search",
  side: "agent",
  kind: "read",
  description: "Search the knowledge base for documents relevant to a query.",
  args: { query: z.string().describe("What to look for.") },
  run({ query }) {
    const r = activeRetrieval();
    if (!r) return NO_KB;
    const variant = activeVariant();
    const topK = variant.kbSearchTopK ?? 10;
    if (!variant.dense) return r.kbSearchText(query, topK);
    const endpoint = activeEmbeddings();
    if (!endpoint) return "Error: no embeddings endpoint is configured for dense retrieval.";
    const start = performance.now();
    const ranked = query.trim() === ""
      ? { results: [], embedMs: 0 }
      : rank(endpoint, r.kb, query, topK);
    if (!ranked) return "Error: the query could not be embedded.";
    const ms = performance.now() - start;
    const timing = `\n\n[Timing: retrieval=${pyFixed(ms, 0)}ms, total=${
      pyFixed(ms + ranked.embedMs, 0)
    }ms]`;
    return ranked.results.length === 0
      ? `No relevant documents found.${timing}`
      : r.resultsText(ranked.results) + timing;
  },
});

export const retrievalTools: ToolDef[] = [
  {
    ...kbSearch,
    // Dense variants: embed the documents (once) and the query before the call runs.
    async warm(args: unknown) {
      const r = activeRetrieval();
      const endpoint = activeEmbeddings();
      const query = (args as { query?: unknown } | null)?.query;
      if (!r || !endpoint || typeof query !== "string") return;
      await warm(endpoint, r.kb, query);
    },
  },
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

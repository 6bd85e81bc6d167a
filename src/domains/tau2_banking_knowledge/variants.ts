/**
 * The reference's retrieval variants: which knowledge tools the
 * agent gets (`KB_search` over BM25, `grep`, neither), which prompt template, and
 * what the template inlines (the whole knowledge base, or the task's required
 * documents). Names are the reference's; its prompt files' names are accepted too.
 * The dense-embedding, reranker and shell variants are not among them.
 *
 * @module
 */
import { QWEN_QUERY_INSTRUCTION } from "./dense.ts";

export interface RetrievalVariant {
  name: string;
  /** The template under `prompts/`. */
  prompt: string;
  /** What the template inlines besides its components. */
  inline: "none" | "full_kb" | "required_documents";
  /** `KB_search` over BM25, with this many results. */
  kbSearchTopK?: number;
  /** `grep`, with this many results. */
  grepTopK?: number;
  /** `KB_search` over dense embeddings of this model instead of BM25. */
  dense?: DenseSpec;
}

/** The embedding model of a dense variant, and where its key is read from. */
export interface DenseSpec {
  model: string;
  keyEnv: string;
  queryInstruction?: string;
}

const OPENAI: DenseSpec = { model: "text-embedding-3-large", keyEnv: "OPENAI_API_KEY" };
const QWEN: DenseSpec = {
  model: "qwen/qwen3-embedding-8b",
  keyEnv: "OPENROUTER_API_KEY",
  queryInstruction: QWEN_QUERY_INSTRUCTION,
};

export const VARIANTS: readonly RetrievalVariant[] = [
  { name: "no_knowledge", prompt: "no_knowledge.md", inline: "none" },
  { name: "full_kb", prompt: "full_kb.md", inline: "full_kb" },
  { name: "golden_retrieval", prompt: "required_docs.md", inline: "required_documents" },
  { name: "bm25", prompt: "classic_rag_bm25_no_grep.md", inline: "none", kbSearchTopK: 10 },
  {
    name: "bm25_grep",
    prompt: "classic_rag_bm25.md",
    inline: "none",
    kbSearchTopK: 10,
    grepTopK: 10,
  },
  { name: "grep_only", prompt: "grep_only.md", inline: "none", grepTopK: 10 },
  dense("openai_embeddings", "classic_rag_openai_no_grep.md", OPENAI, false),
  dense("openai_embeddings_grep", "classic_rag_openai.md", OPENAI, true),
  dense("qwen_embeddings", "classic_rag_qwen_no_grep.md", QWEN, false),
  dense("qwen_embeddings_grep", "classic_rag_qwen.md", QWEN, true),
];

function dense(name: string, prompt: string, spec: DenseSpec, grep: boolean): RetrievalVariant {
  return {
    name,
    prompt,
    inline: "none",
    kbSearchTopK: 10,
    ...(grep ? { grepTopK: 10 } : {}),
    dense: spec,
  };
}

/** The prompt files' names for the same variants. */
const ALIASES: Readonly<Record<string, string>> = {
  classic_rag_bm25: "bm25_grep",
  classic_rag_bm25_no_grep: "bm25",
  required_docs: "golden_retrieval",
};

/** The variant when none is named: BM25 search and grep, the reference's offline classic RAG. */
export const DEFAULT_VARIANT = "bm25_grep";

export const VARIANT_NAMES: readonly string[] = [
  ...VARIANTS.map((v) => v.name),
  ...Object.keys(ALIASES),
];

export function resolveVariant(name: string): RetrievalVariant {
  const canonical = Object.hasOwn(ALIASES, name) ? ALIASES[name]! : name;
  const found = VARIANTS.find((v) => v.name === canonical);
  if (!found) {
    throw new Error(
      `unknown retrieval variant "${name}"; known: ${VARIANT_NAMES.join(", ")}`,
    );
  }
  return found;
}

/** The knowledge tools the agent has under a variant. */
export function variantTools(v: RetrievalVariant): string[] {
  return [
    ...(v.kbSearchTopK !== undefined ? ["KB_search"] : []),
    ...(v.grepTopK !== undefined ? ["grep"] : []),
  ];
}

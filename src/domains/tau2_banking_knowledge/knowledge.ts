/**
 * The knowledge base and retrieval variant the banking tools use in this process.
 * The suite loads the documents from the data root (`useKnowledgeBase`); the run
 * names the variant (`useRetrievalVariant`) before the scenarios load, since the
 * variant decides the agent's tools and prompt.
 *
 * @module
 */
import type { DomainFiles } from "../domain.ts";
import { type KnowledgeBase, loadKnowledgeBase } from "./knowledge_base.ts";
import { Retrieval } from "./retrieval.ts";
import { DEFAULT_VARIANT, resolveVariant, type RetrievalVariant } from "./variants.ts";
import type { EmbeddingsEndpoint } from "./dense.ts";

let retrieval: Retrieval | undefined;
let embeddingsUrl: string | undefined;
let variant: RetrievalVariant = resolveVariant(DEFAULT_VARIANT);

/** Makes `kb` the knowledge base the searches run over (once per data root). */
export function useKnowledgeBase(kb: KnowledgeBase): void {
  if (retrieval?.kb !== kb) retrieval = new Retrieval(kb);
}

/** The searches over the knowledge base in use, or undefined when none is loaded. */
export function activeRetrieval(): Retrieval | undefined {
  return retrieval;
}

/** Selects the retrieval variant by name (an unknown name throws, naming the known ones). */
export function useRetrievalVariant(name: string): RetrievalVariant {
  variant = resolveVariant(name);
  return variant;
}

/** The retrieval variant in use. */
export function activeVariant(): RetrievalVariant {
  return variant;
}

/** Names the OpenAI-compatible endpoint (`http://host/v1`) the dense variants embed with. */
export function useEmbeddingsUrl(url: string | undefined): void {
  embeddingsUrl = url;
}

/** The endpoint in use, if one was named. */
export function activeEmbeddingsUrl(): string | undefined {
  return embeddingsUrl;
}

/** Where the active dense variant embeds, or undefined (not dense, or no endpoint named). */
export function activeEmbeddings(): EmbeddingsEndpoint | undefined {
  const dense = variant.dense;
  if (!dense || embeddingsUrl === undefined) return undefined;
  return { url: embeddingsUrl, ...dense };
}

/** Where the knowledge base's documents are, under a data root. */
export const DOCUMENTS_DIR = "tau2_banking_knowledge/documents";

/** The tag that names a scenario's retrieval variant. */
export const VARIANT_TAG = "retrieval:";
/** The tag that names the embeddings endpoint of a dense variant's scenario. */
export const EMBEDDINGS_TAG = "embeddings:";

const loaded = new Map<string, KnowledgeBase>();

/**
 * Before a scenario opens: the data root's knowledge base (read once per folder)
 * and the variant its `retrieval:<name>` tag names.
 */
export function prepareKnowledge(
  files: DomainFiles,
  scenario: { readonly tags: readonly string[] },
): void {
  const dir = files.resolve(DOCUMENTS_DIR);
  let kb = loaded.get(dir);
  if (!kb) {
    try {
      kb = loadKnowledgeBase(dir);
    } catch {
      return; // no knowledge base here: the search tools say so when called
    }
    loaded.set(dir, kb);
  }
  useKnowledgeBase(kb);
  const tag = scenario.tags.find((t) => t.startsWith(VARIANT_TAG));
  if (tag) useRetrievalVariant(tag.slice(VARIANT_TAG.length));
  const url = scenario.tags.find((t) => t.startsWith(EMBEDDINGS_TAG));
  if (url) useEmbeddingsUrl(url.slice(EMBEDDINGS_TAG.length));
}

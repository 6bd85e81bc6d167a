/**
 * Dense retrieval, as the reference's embedding variants do it: every document's
 * content and the query embedded by an OpenAI-compatible `/embeddings` endpoint,
 * documents ranked by cosine similarity. Qwen models get the reference's query
 * instruction (`Instruct: ...\nQuery:...`); documents are embedded as they are.
 *
 * Tools run synchronously, so the network work happens before the call: `warm`
 * embeds the documents once per endpoint, model and knowledge base, and each new
 * query once; `search` then ranks from what is cached, and answers an error text
 * for a query nobody warmed.
 *
 * @module
 */
import type { KnowledgeBase } from "./knowledge_base.ts";
import type { Ranked } from "./retrieval.ts";

/** Where embeddings come from: the endpoint (`.../v1`), the model, and the key's variable. */
export interface EmbeddingsEndpoint {
  url: string;
  model: string;
  /** The environment variable holding the API key (never recorded). */
  keyEnv: string;
  /** Prefix queries with the instruction Qwen's embedding models expect. */
  queryInstruction?: string;
}

/** The reference's instruction for Qwen3 embedding queries. */
export const QWEN_QUERY_INSTRUCTION =
  "Given a web search query, retrieve relevant passages that answer the query";

/** Documents per request. */
const BATCH = 64;

type Vector = Float64Array;

interface Index {
  ids: string[];
  vectors: Vector[];
}

const indexes = new Map<string, Promise<Index>>();
const ready = new Map<string, Index>();
const queries = new Map<string, Vector>();
const queryMs = new Map<string, number>();

const key = (e: EmbeddingsEndpoint) => `${e.url}\n${e.model}`;

/** What a query is embedded as. */
export function queryText(e: EmbeddingsEndpoint, query: string): string {
  return e.queryInstruction ? `Instruct: ${e.queryInstruction}\nQuery:${query}` : query;
}

/** The key's variable, or undefined when unset or not readable under the run's permissions. */
function readKey(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    return undefined;
  }
}

/** Embeds `texts` in one request; an HTTP or shape error throws, saying which. */
export async function embed(e: EmbeddingsEndpoint, texts: string[]): Promise<Vector[]> {
  const apiKey = readKey(e.keyEnv);
  const response = await fetch(`${e.url.replace(/\/+$/, "")}/embeddings`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
    },
    body: JSON.stringify({ model: e.model, input: texts }),
  });
  const text = await response.text();
  if (!response.ok) {
    throw new Error(`embeddings endpoint answered ${response.status}: ${text.slice(0, 200)}`);
  }
  const body = JSON.parse(text) as { data?: { index?: number; embedding?: unknown }[] };
  const data = [...(body.data ?? [])].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
  if (
    data.length !== texts.length ||
    !data.every((d) => Array.isArray(d.embedding) && d.embedding.every(Number.isFinite))
  ) {
    throw new Error(`embeddings endpoint gave ${data.length} embeddings for ${texts.length} texts`);
  }
  return data.map((d) => Float64Array.from(d.embedding as number[]));
}

/** Embeds the knowledge base (once) and the query (once each), for `search`. */
export async function warm(e: EmbeddingsEndpoint, kb: KnowledgeBase, query: string) {
  const k = `${key(e)}\n${kb.documents.length}`;
  let index = indexes.get(k);
  if (!index) {
    index = (async () => {
      const docs = kb.documents;
      const vectors: Vector[] = [];
      for (let i = 0; i < docs.length; i += BATCH) {
        vectors.push(...await embed(e, docs.slice(i, i + BATCH).map((d) => d.content)));
      }
      const built = { ids: docs.map((d) => d.id), vectors };
      ready.set(k, built);
      return built;
    })();
    indexes.set(k, index);
    index.catch(() => indexes.delete(k));
  }
  await index;
  const q = `${key(e)}\n${queryText(e, query)}`;
  if (!queries.has(q) && query.trim() !== "") {
    const start = performance.now();
    const [vector] = await embed(e, [queryText(e, query)]);
    queries.set(q, vector!);
    queryMs.set(q, performance.now() - start);
  }
}

/**
 * The best `topK` by cosine similarity (a zero vector scores 0), or undefined when
 * the documents or the query were not warmed; `embedMs` is the query's embedding
 * time (the reference's input preprocessing).
 */
export function rank(
  e: EmbeddingsEndpoint,
  kb: KnowledgeBase,
  query: string,
  topK: number,
): { results: Ranked[]; embedMs: number } | undefined {
  const index = ready.get(`${key(e)}\n${kb.documents.length}`);
  const q = `${key(e)}\n${queryText(e, query)}`;
  const vector = queries.get(q);
  if (!index || !vector) return undefined;
  const unit = normalised(vector);
  const scores = index.vectors.map((d) => dot(normalised(d), unit));
  // Descending; equal scores latest first, as the reference's reversed argsort leaves them.
  const order = scores.map((_, i) => i).sort((a, b) => scores[b]! - scores[a]! || b - a);
  return {
    results: order.slice(0, Math.min(topK, order.length)).map((i) => ({
      id: index.ids[i]!,
      score: scores[i]!,
    })),
    embedMs: queryMs.get(q) ?? 0,
  };
}

function normalised(v: Vector): Vector {
  let sum = 0;
  for (const x of v) sum += x * x;
  const norm = Math.sqrt(sum);
  if (norm === 0) return new Float64Array(v.length);
  return v.map((x) => x / norm);
}

function dot(a: Vector, b: Vector): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/**
 * The knowledge-base searches of the reference's retrieval variants, over one
 * knowledge base: BM25 (`KB_search`, `KB_search_bm25`) and grep, with the text the
 * reference's tools answer (numbered documents with id, score and full content; a
 * BM25 answer ends with its timing line, measured here as there).
 *
 * @module
 */
import { Bm25Okapi, tokenize } from "./bm25.ts";
import { grepRank } from "./grep.ts";
import type { KbDocument, KnowledgeBase } from "./knowledge_base.ts";
import { pyFixed } from "./python_format.ts";

/** A ranked document and its score. */
export interface Ranked {
  id: string;
  score: number;
}

/** The searches over one knowledge base (the BM25 index built once, on first use). */
export class Retrieval {
  readonly kb: KnowledgeBase;
  #bm25?: Bm25Okapi;

  constructor(kb: KnowledgeBase) {
    this.kb = kb;
  }

  /** BM25's best `topK` (every document scores, zero included; ties in document order). */
  bm25(query: string, topK: number): Ranked[] {
    if (query.trim() === "") return [];
    this.#bm25 ??= new Bm25Okapi(this.kb.documents.map((d) => tokenize(d.content)));
    const scores = this.#bm25.scores(tokenize(query));
    const order = Array.from(scores.keys()).sort((a, b) => scores[b]! - scores[a]!);
    return order.slice(0, Math.min(topK, order.length)).map((i) => ({
      id: this.kb.documents[i]!.id,
      score: scores[i]!,
    }));
  }

  /** grep's best `topK`, by match count. */
  grep(pattern: string, topK: number, caseSensitive = false): Ranked[] {
    const contents = this.kb.documents.map((d) => d.content);
    return grepRank(contents, pattern, topK, caseSensitive).map((h) => ({
      id: this.kb.documents[h.index]!.id,
      score: h.count,
    }));
  }

  /** The `KB_search` answer: the documents, then the timing line. */
  kbSearchText(query: string, topK: number, now: () => number = () => performance.now()): string {
    const start = now();
    const results = this.bm25(query, topK);
    const ms = now() - start;
    const timing = `\n\n[Timing: retrieval=${pyFixed(ms, 0)}ms, total=${pyFixed(ms, 0)}ms]`;
    if (results.length === 0) return `No relevant documents found.${timing}`;
    return this.resultsText(results) + timing;
  }

  /** The `grep` answer. */
  grepText(pattern: string, topK: number, caseSensitive = false): string {
    const results = this.grep(pattern, topK, caseSensitive);
    if (results.length === 0) return `No matches found for pattern: ${pattern}`;
    return this.resultsText(results);
  }

  /** Numbered documents with id, score and content, as the reference's tools list them. */
  resultsText(results: readonly Ranked[]): string {
    return results.map((r, i) => {
      const doc: KbDocument | undefined = this.kb.byId.get(r.id);
      return `${i + 1}. ${doc?.title || "Untitled"}\n   ID: ${r.id}\n   Score: ${
        pyFixed(r.score, 4)
      }\n   Content: ${doc?.content ?? ""}\n`;
    }).join("\n");
  }
}

/**
 * Okapi BM25 as the reference's retriever computes it (the `rank_bm25` package's
 * `BM25Okapi`: k1 1.5, b 0.75, idf floored at 0.25 × the mean idf for terms in more
 * than half the documents), over lower-cased, whitespace-split text. The arithmetic
 * is done in the same order as there, so scores agree to the last bit.
 *
 * @module
 */

const K1 = 1.5;
const B = 0.75;
const EPSILON = 0.25;

// Python's str.split() separators (str.isspace), which JavaScript's \s does not all match.
const WHITESPACE =
  // deno-lint-ignore no-control-regex
  /[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/;

/** `text.lower().split()`. */
export function tokenize(text: string): string[] {
  return text.toLowerCase().split(WHITESPACE).filter((t) => t.length > 0);
}

export class Bm25Okapi {
  readonly #docFreqs: Map<string, number>[] = [];
  readonly #docLen: number[] = [];
  readonly #idf = new Map<string, number>();
  readonly #avgdl: number;

  constructor(corpus: readonly (readonly string[])[]) {
    const nd = new Map<string, number>();
    let total = 0;
    for (const doc of corpus) {
      this.#docLen.push(doc.length);
      total += doc.length;
      const freqs = new Map<string, number>();
      for (const word of doc) freqs.set(word, (freqs.get(word) ?? 0) + 1);
      this.#docFreqs.push(freqs);
      for (const word of freqs.keys()) nd.set(word, (nd.get(word) ?? 0) + 1);
    }
    const n = corpus.length;
    this.#avgdl = total / n;
    // Summed in first-seen order, as the reference's dict iterates.
    let idfSum = 0;
    const negative: string[] = [];
    for (const [word, freq] of nd) {
      const idf = Math.log(n - freq + 0.5) - Math.log(freq + 0.5);
      this.#idf.set(word, idf);
      idfSum += idf;
      if (idf < 0) negative.push(word);
    }
    const eps = EPSILON * (idfSum / this.#idf.size);
    for (const word of negative) this.#idf.set(word, eps);
  }

  /** One score per document, in corpus order. */
  scores(query: readonly string[]): Float64Array {
    const score = new Float64Array(this.#docLen.length);
    for (const q of query) {
      const idf = this.#idf.get(q) ?? 0;
      for (let i = 0; i < score.length; i++) {
        const f = this.#docFreqs[i]!.get(q) ?? 0;
        score[i]! += idf * (f * (K1 + 1) / (f + K1 * (1 - B + B * this.#docLen[i]! / this.#avgdl)));
      }
    }
    return score;
  }
}

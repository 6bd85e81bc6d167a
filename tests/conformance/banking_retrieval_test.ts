/**
 * The banking knowledge base's BM25 and grep searches return the reference's
 * documents in the reference's order, with the same scores and the same answer
 * text, for the queries of `testdata/banking_retrieval_expected.json` (how it was
 * made: the `.md` beside it). Reads the data root from `EVAL_DATA_ROOT`, else
 * `../shared/datasets`; skips without it.
 *
 *   deno test --allow-read --allow-env tests/conformance/banking_retrieval_test.ts
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { loadKnowledgeBase } from "../../src/domains/tau2_banking_knowledge/knowledge_base.ts";
import { pyFixed } from "../../src/domains/tau2_banking_knowledge/python_format.ts";
import { Retrieval } from "../../src/domains/tau2_banking_knowledge/retrieval.ts";
import { DATA_ROOT } from "./_data_root.ts";

const DOCS = `${DATA_ROOT}/tau2_banking_knowledge/documents`;
const present = existsSync(DOCS);

interface Expected {
  query: string;
  results: [string, string][];
  text_sha256: string;
}
const expected = JSON.parse(
  Deno.readTextFileSync(new URL("./testdata/banking_retrieval_expected.json", import.meta.url)),
) as { bm25: Expected[]; grep: Expected[] };

const sha = (t: string) => createHash("sha256").update(t, "utf8").digest("hex");
const retrieval = present ? new Retrieval(loadKnowledgeBase(DOCS)) : undefined;

Deno.test({
  name: "the knowledge base holds 698 documents",
  ignore: !present,
  fn() {
    assert.equal(retrieval!.kb.documents.length, 698);
  },
});

Deno.test({
  name: "BM25 ranks as the reference does, for 22 queries from the banking tasks",
  ignore: !present,
  fn() {
    assert.ok(expected.bm25.length >= 20);
    for (const e of expected.bm25) {
      const got = retrieval!.bm25(e.query, 10).map((r) => [r.id, pyFixed(r.score, 4)]);
      assert.deepEqual(got, e.results, e.query);
      const text = retrieval!.kbSearchText(e.query, 10);
      const body = text.slice(0, text.lastIndexOf("\n\n[Timing: "));
      if (e.results.length > 0) assert.equal(sha(body), e.text_sha256, e.query);
      else assert.match(text, /^No relevant documents found\.\n\n\[Timing: retrieval=\d+ms/);
    }
  },
});

Deno.test({
  name: "grep ranks and answers as the reference does, for 22 patterns",
  ignore: !present,
  fn() {
    assert.ok(expected.grep.length >= 20);
    for (const e of expected.grep) {
      const got = retrieval!.grep(e.query, 10).map((r) => [r.id, pyFixed(r.score, 4)]);
      assert.deepEqual(got, e.results, e.query);
      const text = retrieval!.grepText(e.query, 10);
      if (e.results.length > 0) assert.equal(sha(text), e.text_sha256, e.query);
      else assert.equal(text, `No matches found for pattern: ${e.query}`);
    }
  },
});

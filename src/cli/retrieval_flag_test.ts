import assert from "node:assert/strict";
import { retrievalFromFlag } from "./retrieval_flag.ts";
import { activeVariant, useRetrievalVariant } from "../domains/tau2_banking_knowledge/mod.ts";
import { InputError } from "./problem.ts";

Deno.test("--retrieval puts the variant in use; the default and no flag are one configuration", () => {
  try {
    assert.equal(retrievalFromFlag(undefined), undefined);
    assert.equal(retrievalFromFlag("grep_only"), "grep_only");
    assert.equal(activeVariant().name, "grep_only");
    // The reference's prompt-file names are the same variants.
    assert.equal(retrievalFromFlag("classic_rag_bm25_no_grep"), "bm25");
    assert.equal(retrievalFromFlag("required_docs"), "golden_retrieval");
    assert.equal(retrievalFromFlag("classic_rag_bm25"), undefined);
    assert.equal(activeVariant().name, "bm25_grep");
  } finally {
    useRetrievalVariant("bm25_grep");
  }
});

Deno.test("--retrieval with an unknown variant is an input error naming the known ones", () => {
  assert.throws(() => retrievalFromFlag("openai_embeddings_grep"), (e: unknown) => {
    assert.ok(e instanceof InputError);
    const text = JSON.stringify(e.problems);
    assert.match(text, /unknown retrieval variant \\"openai_embeddings_grep\\"/);
    assert.match(text, /grep_only/);
    return true;
  });
  assert.equal(activeVariant().name, "bm25_grep");
});

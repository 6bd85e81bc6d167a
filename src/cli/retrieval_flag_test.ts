import assert from "node:assert/strict";
import { retrievalFromFlags } from "./retrieval_flag.ts";
import {
  activeEmbeddingsUrl,
  activeVariant,
  useEmbeddingsUrl,
  useRetrievalVariant,
} from "../domains/tau2_banking_knowledge/mod.ts";
import { InputError } from "./problem.ts";

const reset = () => {
  useRetrievalVariant("bm25_grep");
  useEmbeddingsUrl(undefined);
};

Deno.test("--retrieval puts the variant in use; the default and no flag are one configuration", () => {
  try {
    assert.equal(retrievalFromFlags({}), undefined);
    assert.deepEqual(retrievalFromFlags({ retrieval: "grep_only" }), { variant: "grep_only" });
    assert.equal(activeVariant().name, "grep_only");
    // The reference's prompt-file names are the same variants.
    assert.deepEqual(retrievalFromFlags({ retrieval: "classic_rag_bm25_no_grep" }), {
      variant: "bm25",
    });
    assert.deepEqual(retrievalFromFlags({ retrieval: "required_docs" }), {
      variant: "golden_retrieval",
    });
    assert.equal(retrievalFromFlags({ retrieval: "classic_rag_bm25" }), undefined);
    assert.equal(activeVariant().name, "bm25_grep");
  } finally {
    reset();
  }
});

Deno.test("--embeddings-url goes with a dense variant, and both are in the config hash", () => {
  try {
    assert.deepEqual(
      retrievalFromFlags({
        retrieval: "openai_embeddings",
        "embeddings-url": "http://127.0.0.1:9/v1",
      }),
      { variant: "openai_embeddings", embeddings_url: "http://127.0.0.1:9/v1" },
    );
    assert.equal(activeEmbeddingsUrl(), "http://127.0.0.1:9/v1");
  } finally {
    reset();
  }
  const problem = (values: Record<string, string>) => {
    try {
      retrievalFromFlags(values);
    } catch (e) {
      assert.ok(e instanceof InputError);
      return JSON.stringify(e.problems);
    }
    assert.fail("accepted");
  };
  assert.match(problem({ retrieval: "qwen_embeddings" }), /--embeddings-url URL/);
  assert.match(problem({ "embeddings-url": "http://x/v1" }), /needs a dense --retrieval variant/);
  assert.match(
    problem({ retrieval: "bm25", "embeddings-url": "http://x/v1" }),
    /bm25 embeds nothing/,
  );
  assert.match(
    problem({ retrieval: "openai_embeddings", "embeddings-url": "ftp://x" }),
    /expected an http\(s\) URL/,
  );
  assert.match(problem({ retrieval: "alltools" }), /unknown retrieval variant \\"alltools\\"/);
  assert.equal(activeVariant().name, "bm25_grep");
});

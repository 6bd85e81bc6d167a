/**
 * The dense retrieval variants against a fake OpenAI-compatible embeddings server on
 * 127.0.0.1: a trial's `KB_search` (called by the oracle, through the bridge) embeds
 * the documents once and each query once, with the variant's model and key, and
 * answers the documents by cosine similarity in the reference's text.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { participantFactory } from "../src/participants/registry.ts";
import { runTrials } from "../src/runner/runner.ts";
import type { TrialRecord } from "../src/runner/trial_record.ts";
import { DataRoot } from "../src/scenario/data_root.ts";
import { ScenarioSchema } from "../src/scenario/scenario.ts";
import { queryText, QWEN_QUERY_INSTRUCTION } from "../src/domains/tau2_banking_knowledge/dense.ts";

/** Embeds a text as its counts of a, b, ..., z: cosine then ranks by shared letters. */
function letters(text: string): number[] {
  const v = new Array(26).fill(0);
  for (const ch of text.toLowerCase()) {
    const i = ch.charCodeAt(0) - 97;
    if (i >= 0 && i < 26) v[i]++;
  }
  return v;
}

interface Seen {
  model: string;
  input: string[];
  authorization: string | null;
}

function fakeEmbeddings() {
  const seen: Seen[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const body = await req.json();
    seen.push({
      model: body.model,
      input: body.input,
      authorization: req.headers.get("authorization"),
    });
    if (new URL(req.url).pathname !== "/v1/embeddings") return new Response("no", { status: 404 });
    const data = (body.input as string[]).map((t, index) => ({
      object: "embedding",
      index,
      embedding: letters(t),
    }))
      .reverse(); // out of order: the client sorts by index
    return Response.json({ object: "list", data, model: body.model });
  });
  return { url: `http://127.0.0.1:${server.addr.port}/v1`, seen, close: () => server.shutdown() };
}

async function dataRoot(): Promise<string> {
  const dir = await Deno.makeTempDir();
  const docs = join(dir, "tau2_banking_knowledge", "documents");
  await Deno.mkdir(docs, { recursive: true });
  const write = (id: string, title: string, content: string) =>
    Deno.writeTextFile(join(docs, `${id}.json`), JSON.stringify({ id, title, content }));
  await write("doc_a", "Zebras", "zzz zebra zone");
  await write("doc_b", "Apples", "apple pie and apples");
  await write("doc_c", "Empty", "123");
  return dir;
}

function scenario(variant: string, url: string, queries: string[]) {
  return ScenarioSchema.parse({
    name: `dense__${variant}`,
    domain: "tau2_banking_knowledge",
    today: "2025-11-14",
    tags: [`retrieval:${variant}`, `embeddings:${url}`],
    world: { db: { inline: { users: { data: {}, notes: "" } } } },
    agent: { tools: ["KB_search", "end_conversation"] },
    user: { opening: "Hi." },
    expect: {
      reference_actions: queries.map((query) => ({
        side: "agent",
        name: "KB_search",
        arguments: { query },
      })),
    },
    success_signals: ["clean_exit"],
  });
}

async function run(root: string, s: ReturnType<typeof scenario>): Promise<TrialRecord> {
  const records: TrialRecord[] = [];
  await runTrials({
    scenarios: [s],
    root: new DataRoot(root),
    participants: participantFactory({
      agent: "oracle",
      user: "scripted",
      agentModel: {},
      userModel: {},
    }),
    configHash: "dense",
    trials: 1,
    concurrency: 1,
    limits: { silenceMs: 30_000, maxTurns: 50 },
    onRecord: (r) => void records.push(r),
  });
  assert.equal(records.length, 1);
  return records[0]!;
}

const searches = (r: TrialRecord) =>
  (r.tool_calls ?? []).filter((c) => c.name === "KB_search").map((c) => String(c.result));

Deno.test("openai_embeddings: KB_search ranks the documents by cosine, embedding them once and each query once", async () => {
  const fake = fakeEmbeddings();
  const root = await dataRoot();
  Deno.env.set("OPENAI_API_KEY", "sk-test-dense");
  try {
    const r = await run(
      root,
      scenario("openai_embeddings", fake.url, ["apples", "zebra", "apples"]),
    );
    const [apples, zebra, again] = searches(r);
    assert.match(
      apples!,
      /^1\. Apples\n {3}ID: doc_b\n {3}Score: 0\.\d{4}\n {3}Content: apple pie and apples\n\n2\. /,
    );
    assert.match(apples!, /\n3\. Empty\n {3}ID: doc_c\n {3}Score: 0\.0000\n/);
    assert.match(apples!, /\n\n\[Timing: retrieval=\d+ms, total=\d+ms\]$/);
    assert.match(zebra!, /^1\. Zebras\n/);
    assert.equal(again!.replace(/\[Timing.*$/, ""), apples!.replace(/\[Timing.*$/, ""));
    // One request for the three documents, then one per new query; the model and key as the variant's.
    assert.deepEqual(fake.seen.map((s) => s.input), [
      ["zzz zebra zone", "apple pie and apples", "123"],
      ["apples"],
      ["zebra"],
    ]);
    assert.ok(fake.seen.every((s) => s.model === "text-embedding-3-large"));
    assert.ok(fake.seen.every((s) => s.authorization === "Bearer sk-test-dense"));
  } finally {
    Deno.env.delete("OPENAI_API_KEY");
    await fake.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("qwen_embeddings: queries carry the reference's instruction, documents do not", async () => {
  const fake = fakeEmbeddings();
  const root = await dataRoot();
  try {
    const r = await run(root, scenario("qwen_embeddings", fake.url, ["pie"]));
    assert.equal(searches(r).length, 1);
    assert.equal(fake.seen[1]!.input[0], `Instruct: ${QWEN_QUERY_INSTRUCTION}\nQuery:pie`);
    assert.equal(
      queryText({ url: "", model: "m", keyEnv: "K", queryInstruction: "I" }, "q"),
      "Instruct: I\nQuery:q",
    );
    assert.ok(fake.seen.every((s) => s.model === "qwen/qwen3-embedding-8b"));
    assert.equal(fake.seen[0]!.authorization, null);
  } finally {
    await fake.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("an endpoint that fails: KB_search answers an error text, and the call goes on", async () => {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response('{"error":{"message":"down"}}', { status: 503 }),
  );
  const root = await dataRoot();
  try {
    const r = await run(
      root,
      scenario("openai_embeddings", `http://127.0.0.1:${server.addr.port}/v1`, ["apples"]),
    );
    assert.deepEqual(searches(r), ["Error: the query could not be embedded."]);
    assert.equal(r.status, "completed");
  } finally {
    await server.shutdown();
    await Deno.remove(root, { recursive: true });
  }
});

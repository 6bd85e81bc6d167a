/**
 * What one session may hold and say: byte budgets for its history and shared state
 * (over budget: an error-response, the session lives on), errors that never show the
 * server's paths, and an unknown long name answered at once.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { builtinFactory } from "../commands/serve.ts";
import { rtvi, type RtviMessage } from "../protocol/messages.ts";
import { closest } from "../problem/problem.ts";
import { BUNDLED_DATA_ROOT, DataRoot } from "../scenario/data_root.ts";
import { MAX_CLIENT_ERROR_CHARS } from "./client_text.ts";
import { openSession } from "./_session_harness.ts";

const open = openSession;

const PROMPT = { prompt: "You are a test agent.", tools: "[]", add_suffix: false };
const errorOf = (m: RtviMessage | undefined) => (m?.data as { error?: string })?.error ?? "";

Deno.test("send-text past the history budget gets an error-response; the session lives on", async () => {
  // Each turn is ~3 kB heard and ~3 kB echoed back.
  const s = open({ maxHistoryBytes: 20_000 });
  await s.request("update_system_prompt", PROMPT);
  const big = "x".repeat(3_000);
  for (let i = 0; i < 3; i++) {
    const out = await s.send(rtvi("send-text", { content: big }, `s${i}`));
    assert.ok(out.some((m) => m.type === "bot-output"), `turn ${i}: ${JSON.stringify(out)}`);
  }
  const refused = await s.send(rtvi("send-text", { content: big }, "s3"));
  assert.deepEqual(refused.map((m) => m.type), ["error-response"]);
  assert.equal(refused[0]!.id, "s3");
  assert.match(errorOf(refused[0]), /over this session's history budget of 20000/);
  // The refused text never reached the participant.
  const heard = s.hosted[0]!.events.filter((e) => e.type === "speech");
  assert.equal(heard.length, 3);
  // A later valid frame still works, and reset starts a new conversation with room.
  const ready = await s.send(rtvi("client-ready", { version: "2.1.0" }, "r1"));
  assert.equal(ready[0]!.type, "bot-ready");
  await s.request("reset", {});
  const again = await s.send(rtvi("send-text", { content: big }, "s4"));
  assert.ok(again.some((m) => m.type === "bot-output"), JSON.stringify(again));
});

Deno.test("the participant's own turns drop the oldest ones to stay inside the history budget", async () => {
  const s = open({ maxHistoryBytes: 4_000 });
  await s.request("update_system_prompt", PROMPT);
  for (let i = 0; i < 5; i++) {
    await s.send(rtvi("send-text", { content: `turn ${i}` }, `s${i}`));
    s.hosted[0]!.line!.say("y".repeat(700));
  }
  const reply = await s.request("get_context_history", {});
  const history = JSON.parse(JSON.parse((reply.data as { d: { context: string } }).d.context));
  assert.ok(new TextEncoder().encode(JSON.stringify(history)).length <= 4_000);
  assert.equal(history[0].role, "system");
  assert.equal(history.at(-1).content, "y".repeat(700));
});

Deno.test("shared state past its budget gets an error-response and changes nothing", async () => {
  const s = open({ maxSharedStateBytes: 10_000 });
  const init = (key: string, bytes: number) =>
    s.request("apply_initialization", {
      domain: "toy",
      shared_state_init: JSON.stringify({ [key]: "v".repeat(bytes) }),
    });
  assert.equal((await init("a", 4_000)).type, "server-response");
  assert.equal((await init("b", 4_000)).type, "server-response");
  // Replacing a key counts its new size, not both.
  assert.equal((await init("a", 5_000)).type, "server-response");
  const over = await init("c", 2_000);
  assert.equal(over.type, "error-response");
  assert.match(errorOf(over), /over this session's budget of 10000/);
  // The session lives on: a valid request is answered, and a new prompt empties the state.
  const ok = await s.request("apply_initialization", {
    domain: "toy",
    shared_state_init: '{"db":{"color":"red"}}',
  });
  assert.deepEqual((ok.data as { d: unknown }).d, { success: true, errors: [] });
  await s.request("update_system_prompt", PROMPT);
  assert.equal((await init("c", 9_000)).type, "server-response");
});

Deno.test("a tool result past the history budget is refused, and the tool call gets an error", async () => {
  const s = open({ maxHistoryBytes: 5_000 });
  await s.request("update_system_prompt", PROMPT);
  const asked = await s.send(rtvi("send-text", { content: "tool get_color {}" }, "s1"));
  const call = asked.find((m) => m.type === "llm-function-call-in-progress");
  const id = (call!.data as { tool_call_id: string }).tool_call_id;
  const out = await s.send(
    rtvi("llm-function-call-result", { tool_call_id: id, result: "z".repeat(6_000) }, "f1"),
  );
  const refused = out.find((m) => m.type === "error-response");
  assert.match(errorOf(refused), /history budget/);
  const said = out.find((m) => m.type === "bot-output");
  assert.match((said?.data as { text: string }).text, /result_too_large/);
});

Deno.test("errors to a client never show the server's paths", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "callbench_paths_" });
  try {
    const rootPath = join(dir, "root");
    Deno.mkdirSync(join(rootPath, "toy"), { recursive: true });
    Deno.writeTextFileSync(join(rootPath, "toy", "bad.json"), "{not json");
    Deno.writeTextFileSync(join(dir, "secret.json"), "{}");
    Deno.symlinkSync(join(dir, "secret.json"), join(rootPath, "toy", "link.json"));
    const s = open({ dataRoot: new DataRoot(rootPath) });
    const errors: string[] = [];
    for (const db_path of ["toy/bad.json", "toy/none", "toy/link.json", "../secret.json"]) {
      const r = await s.request("apply_initialization", {
        domain: "toy",
        shared_state_init: JSON.stringify({ db_path }),
      });
      errors.push(...(r.data as { d: { errors: string[] } }).d.errors);
    }
    assert.equal(errors.length, 4);
    for (const e of errors) assert.ok(!e.includes(dir), e);
    assert.match(errors[0]!, /<data root>\/toy\/bad\.json.*invalid JSON/);
    assert.match(errors[2]!, /path leaves the data root/);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("an unknown 100k-character scenario name is answered at once (no search), with a short error", async () => {
  const root = new DataRoot(BUNDLED_DATA_ROOT);
  const s = open({ factory: builtinFactory(root), participant: { name: "oracle", side: "agent" } });
  const long = "q".repeat(100_000);
  const reply = await s.request("update_system_prompt", { ...PROMPT, scenario: long });
  assert.equal(reply.type, "error-response");
  assert.match(errorOf(reply), /unknown scenario/);
  assert.ok(errorOf(reply).length < MAX_CLIENT_ERROR_CHARS + 100, `${errorOf(reply).length}`);
  assert.ok(!errorOf(reply).includes(BUNDLED_DATA_ROOT.replace(/\/$/, "")), errorOf(reply));
  assert.doesNotMatch(errorOf(reply), /did you mean/);
  // "At once", counted rather than timed (it used to take tens of seconds): the
  // closest-name search the lookup ends in does not look at a single candidate for it.
  let looked = 0;
  const candidates = {
    *[Symbol.iterator]() {
      for (const name of ["tau2_retail__0", long.slice(1)]) {
        looked++;
        yield name;
      }
    },
  };
  assert.equal(closest(long, candidates), undefined);
  assert.equal(looked, 0, `the search looked at ${looked} candidates`);
  // A short unknown name still gets a hint.
  const near = await s.request("update_system_prompt", { ...PROMPT, scenario: "tau2_retail__O" });
  assert.match(errorOf(near), /did you mean "tau2_retail__0"/);
});

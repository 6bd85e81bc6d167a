/**
 * `serve` keeps a session across reconnects, as the reference's bots keep their state:
 * resumed by `?session=NAME` or by the same URL, one client at a time for a named one,
 * freed after its idle time (on an injected simulated clock), and bounded in number.
 * The URL may name the scenario played, on either side.
 */
import assert from "node:assert/strict";
import { SimClock } from "../src/clock/clock.ts";
import { builtinFactory } from "../src/commands/serve.ts";
import { rtvi, type RtviMessage } from "../src/protocol/messages.ts";
import { BUNDLED_DATA_ROOT, DataRoot } from "../src/scenario/data_root.ts";
import { startFakeOpenAI } from "./fake_openai.ts";
import { echoServer, RawClient } from "./_wire.ts";
import { serveBuiltin } from "./_serve.ts";

const PROMPT = { prompt: "You are kept.", tools: "[]", add_suffix: false };

async function client(url: string): Promise<RawClient> {
  const c = new RawClient(url);
  await c.opened;
  c.send(rtvi("client-ready", { version: "2.1.0" }, "r"));
  await c.next((m) => m.type === "bot-ready");
  return c;
}

let n = 0;
async function request(c: RawClient, t: string, d: unknown = {}): Promise<RtviMessage> {
  const id = `q${++n}`;
  c.send(rtvi("client-message", { t, d }, id));
  return await c.next((m) => m.id === id && m.type.endsWith("-response"));
}

async function context(c: RawClient): Promise<{ role: string; content: string }[]> {
  const r = await request(c, "get_context_history");
  return JSON.parse(JSON.parse((r.data as { d: { context: string } }).d.context));
}

async function status(url: string): Promise<number> {
  const r = await fetch(url.replace(/^ws/, "http"));
  await r.body?.cancel();
  return r.status;
}

Deno.test("a session resumes on reconnect: by ?session=NAME, and by the same URL", async () => {
  const clock = new SimClock();
  const server = await echoServer({ keep: { clock, idleMs: 60_000 } });
  try {
    for (const [i, url] of [`${server.url}?session=s1`, `${server.url}?agent=echo`].entries()) {
      const first = await client(url);
      await request(first, "update_system_prompt", PROMPT);
      first.send(rtvi("send-text", { content: "remember me" }, "t1"));
      await first.next((m) => m.type === "bot-stopped-speaking");
      await first.close();
      await new Promise((r) => setTimeout(r, 20));
      assert.equal(server.store.kept, i + 1, url);
      const second = await client(url);
      const entries = await context(second);
      assert.deepEqual(entries.map((e) => e.role), ["system", "user", "assistant"], url);
      assert.equal(entries[0]!.content, "You are kept.");
      await second.close();
      await new Promise((r) => setTimeout(r, 20));
    }
    // Another URL is another session.
    const other = await client(`${server.url}?agent=echo&x=1`);
    assert.deepEqual((await context(other)).length, 0);
    await other.close();
  } finally {
    await server.shutdown();
  }
});

Deno.test("an idle session is freed after --session-idle (simulated clock)", async () => {
  const clock = new SimClock();
  const server = await echoServer({ keep: { clock, idleMs: 600_000 } });
  try {
    const url = `${server.url}?session=idle`;
    const c = await client(url);
    await request(c, "update_system_prompt", PROMPT);
    await c.close();
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(server.store.kept, 1);
    await clock.advance(600_000);
    assert.equal(server.store.kept, 0);
    assert.equal(server.hosted[0]!.participant.closed, true, "the participant was released");
    const again = await client(url);
    assert.deepEqual(await context(again), [], "a new session");
    await again.close();
  } finally {
    await server.shutdown();
  }
});

Deno.test("a named session has one client at a time and hosts what it was made for", async () => {
  const server = await echoServer({ keep: { clock: new SimClock() } });
  try {
    const url = `${server.url}?session=one&agent=echo`;
    const c = await client(url);
    assert.equal(await status(url), 409);
    await request(c, "update_system_prompt", PROMPT);
    await c.close();
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(await status(`${server.url}?session=one&user=echo`), 409);
    // Without a name, two clients of one URL at once get a session each.
    const a = await client(`${server.url}?agent=echo`);
    const b = await client(`${server.url}?agent=echo`);
    await request(a, "update_system_prompt", PROMPT);
    assert.deepEqual(await context(b), []);
    await Promise.all([a.close(), b.close()]);
  } finally {
    await server.shutdown();
  }
});

Deno.test("of eight clients dialing one session name at once, exactly one is let in", async () => {
  const server = await echoServer({ keep: { clock: new SimClock() } });
  try {
    const url = `${server.url}?session=race&agent=echo`;
    for (let round = 0; round < 3; round++) {
      const dialers = Array.from({ length: 8 }, () => new RawClient(url));
      const opened = await Promise.allSettled(dialers.map((d) => d.opened));
      const admitted = dialers.filter((_, i) => opened[i]!.status === "fulfilled");
      assert.equal(admitted.length, 1, `round ${round}: ${admitted.length} clients got 101`);
      await Promise.all(dialers.map((d) => d.close()));
      await new Promise((r) => setTimeout(r, 20));
      // The one that got in left: the name is free again.
      assert.equal(server.store.inUse("session:race"), false, `round ${round}`);
    }
  } finally {
    await server.shutdown();
  }
});

Deno.test("?scenario= names the scenario when update_system_prompt does not; the scripted caller serves as the user bot", async () => {
  const root = new DataRoot(BUNDLED_DATA_ROOT);
  const server = await serveBuiltin(root, { keep: { clock: new SimClock() } });
  try {
    // Without ?scenario= the oracle refuses a prompt without a scenario field.
    const bare = await client(`${server.url}?agent=oracle`);
    const refused = await request(bare, "update_system_prompt", PROMPT);
    assert.equal(refused.type, "error-response");
    assert.match((refused.data as { error: string }).error, /needs a scenario/);
    await bare.close();
    const agent = await client(`${server.url}?agent=oracle&scenario=tau2_retail__0`);
    assert.deepEqual((await request(agent, "update_system_prompt", PROMPT)).data, {
      t: "update_system_prompt",
      d: true,
    });
    await agent.close();
    // The caller hears the agent's speech as send-text and answers with its opening line.
    const user = await client(`${server.url}?user=scripted&scenario=tau2_retail__0`);
    assert.equal((await request(user, "update_system_prompt", PROMPT)).type, "server-response");
    user.send(rtvi("send-text", { content: "Hello, how can I help you?" }, "t1"));
    const tokens = await user.next((m) => m.type === "metrics");
    assert.deepEqual(tokens.data, {
      tokens: [{ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 }],
    });
    const said = await user.next((m) => m.type === "bot-tts-text");
    assert.ok((said.data as { text: string }).text.length > 0);
    await user.close();
    // An unknown or wrong-side kind is an error naming the closest one.
    const wrong = await client(`${server.url}?user=oracle&scenario=tau2_retail__0`);
    const r = await request(wrong, "update_system_prompt", PROMPT);
    assert.equal(r.type, "error-response");
    assert.match((r.data as { error: string }).error, /"oracle" is an agent, not a user/);
    await wrong.close();
  } finally {
    await server.shutdown();
  }
});

Deno.test("the llm caller serves as the user bot: it hears the agent's speech and answers, with its real usage", async () => {
  await using fake = startFakeOpenAI({
    fallback: () => ({
      content: "I want to change my flight.",
      usage: { prompt_tokens: 42, completion_tokens: 7 },
    }),
  });
  const root = new DataRoot(BUNDLED_DATA_ROOT);
  const server = await serveBuiltin(root, {
    factory: builtinFactory(root, {}, { baseUrl: fake.baseUrl, model: "caller-model" }),
    keep: { clock: new SimClock() },
  });
  try {
    const user = await client(`${server.url}?user=llm`);
    const prompt = { ...PROMPT, prompt: "You are a caller who wants to change a flight." };
    assert.equal((await request(user, "update_system_prompt", prompt)).type, "server-response");
    user.send(rtvi("send-text", { content: "Hello, how can I help you?" }, "t1"));
    const said = await user.next((m) => m.type === "bot-tts-text");
    assert.equal((said.data as { text: string }).text, "I want to change my flight.");
    const usage = await user.next((m) => m.type === "metrics" && "tokens" in (m.data as object));
    assert.deepEqual(usage.data, {
      tokens: [{ prompt_tokens: 42, completion_tokens: 7, total_tokens: 49 }],
    });
    const heard = fake.requests[0]!.body.messages.map((m) => m.content);
    assert.ok(heard.includes("Hello, how can I help you?"), JSON.stringify(heard));
    await user.close();
  } finally {
    await server.shutdown();
  }
});

/**
 * The tools server's rate counts JSON-RPC calls, not HTTP requests (issue 30 item 4):
 * a batch of 100 `tools/list` calls in one POST is refused, and a flood of batches
 * gets no more calls answered than the rate allows, on `serve --tools-server` (the
 * process, over its real sockets) and on the server `eval --tools-server` starts.
 */
import assert from "node:assert/strict";
import { rtvi } from "../src/protocol/messages.ts";
import { ToolsServer } from "../src/tools_server/tools_server.ts";
import { RawClient } from "./_wire.ts";
import { spawnServe } from "./_serve_process.ts";
import { taskFlags } from "./_tasks.ts";

/** A batch of `n` `tools/list` calls POSTed to `url`: its status and how many were answered. */
async function batch(url: string, n: number): Promise<{ status: number; answered: number }> {
  const body = Array.from({ length: n }, (_, i) => ({
    jsonrpc: "2.0",
    id: i + 1,
    method: "tools/list",
    params: {},
  }));
  const r = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify(body),
  });
  const text = await r.text();
  if (r.status !== 200) return { status: r.status, answered: 0 };
  const parsed = JSON.parse(text);
  return { status: 200, answered: Array.isArray(parsed) ? parsed.length : 1 };
}

/**
 * Batches of `size` POSTed back to back for `posts` requests: the calls answered, and
 * the most the rate (`perSecond`, in bursts of as many) allows over the time taken.
 */
async function flood(url: string, size: number, posts: number, perSecond: number) {
  const started = performance.now();
  let answered = 0;
  const statuses = new Set<number>();
  for (let i = 0; i < posts; i++) {
    const r = await batch(url, size);
    answered += r.answered;
    statuses.add(r.status);
  }
  const seconds = (performance.now() - started) / 1000;
  return { answered, allowed: perSecond + perSecond * seconds, statuses };
}

Deno.test("serve --tools-server: a JSON-RPC batch spends the rate per call, not per POST", async () => {
  const { child, url, seen } = await spawnServe([
    "run",
    ...taskFlags("serve"),
    "cli.ts",
    "serve",
    "--port",
    "0",
    "--agent",
    "noop",
    "--tools-server",
  ]);
  try {
    assert.ok(url, seen);
    const client = new RawClient(url);
    await client.opened;
    client.send(rtvi("client-ready", { version: "2.1.0" }, "r"));
    const ready = await client.next((m) => m.type === "bot-ready");
    const endpoint = (ready.data as { tools_server: { url: string } }).tools_server.url;
    // One POST of 100 calls is over the 20 a second: refused whole, nothing run.
    const hundred = await batch(endpoint, 100);
    assert.deepEqual(hundred, { status: 429, answered: 0 });
    // Batches of 10 back to back: never more calls answered than the rate allows.
    const f = await flood(endpoint, 10, 40, 20);
    assert.ok(f.answered <= f.allowed, `${f.answered} calls answered, ${f.allowed} allowed`);
    assert.ok(f.answered >= 10 && f.statuses.has(429), JSON.stringify([...f.statuses]));
    await client.close();
  } finally {
    child.kill("SIGTERM");
    assert.equal((await child.status).code, 0);
  }
});

Deno.test("eval's tools server: a batch spends the rate per call, not per POST", async () => {
  const server = ToolsServer.start();
  const reg = server.register({
    tools: [],
    callTool: () => Promise.resolve({ ok: true, result: {} }),
  });
  try {
    // A batch within the bucket is answered whole; one over it is refused whole.
    assert.deepEqual(await batch(reg.url, 20), { status: 200, answered: 20 });
    assert.deepEqual(await batch(reg.url, 100), { status: 429, answered: 0 });
    const f = await flood(reg.url, 10, 40, 20);
    assert.ok(f.answered <= f.allowed, `${f.answered} calls answered, ${f.allowed} allowed`);
  } finally {
    reg.close();
    await server.close();
  }
});

/**
 * Bot server load check: starts `cli.ts serve` on a free loopback port, times 50
 * handshakes one at a time (unloaded), then opens N sessions at once (default 500),
 * each doing a handshake, a system prompt and one exchange with the hosted noop
 * agent (whose tool call it answers), holds them all open, closes them and stops
 * the server. Prints one JSON line on stdout: handshake p50/p99 unloaded and under
 * the burst (ms), and the server's RSS (from its `/health`) idle, with every session
 * open, and after they closed. Stops by itself within 60 s.
 *
 *   deno run --allow-read --allow-run --allow-net=127.0.0.1 scripts/load_server.ts [SESSIONS]
 *
 * @module
 */
import { readFrame, writeFrame } from "../src/protocol/framing.ts";
import { parseMessage, rtvi, type RtviMessage } from "../src/protocol/messages.ts";
import { spawnServe } from "../tests/_serve_process.ts";

const SESSIONS = Number(Deno.args[0] ?? 500);
const QUIET_SESSIONS = 50;
const DEADLINE_MS = 60_000;
const root = new URL("../", import.meta.url);

interface Timings {
  connectMs: number;
  handshakeMs: number;
  exchangeMs: number;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;
}

/** The server's own report: live sessions and resident memory. */
export async function health(url: string): Promise<{ sessions: number; rss_mb: number }> {
  const res = await fetch(url.replace(/^ws/, "http").replace(/\/ws$/, "/health"));
  return await res.json();
}

async function startServer(): Promise<{ child: Deno.ChildProcess; url: string }> {
  const { child, url, seen } = await spawnServe([
    "run",
    "--allow-read",
    "--allow-net=127.0.0.1",
    "--allow-env=NODE_ENV,EVAL_DATA_ROOT,CALLBENCH_TOKEN,WS_NO_BUFFER_UTIL,WS_NO_UTF_8_VALIDATE",
    "cli.ts",
    "serve",
    "--port",
    "0",
    "--agent",
    "noop",
  ], { cwd: root });
  if (!url) throw new Error(`server exited before listening:\n${seen}`);
  return { child, url };
}

/** One session: open, handshake, prompt, one exchange (answering the noop's tool call). */
export async function session(url: string, sockets: WebSocket[]): Promise<Timings> {
  const t0 = performance.now();
  const ws = new WebSocket(url);
  ws.binaryType = "arraybuffer";
  sockets.push(ws);
  const waiters: { pred: (m: RtviMessage) => boolean; resolve: (m: RtviMessage) => void }[] = [];
  ws.onmessage = (event) => {
    const frame = readFrame(event.data);
    if (!frame.ok || !("text" in frame)) return;
    const parsed = parseMessage(frame.text);
    if (!parsed.ok || !parsed.message) return;
    const msg = parsed.message;
    const i = waiters.findIndex((w) => w.pred(msg));
    if (i >= 0) waiters.splice(i, 1)[0]!.resolve(msg);
  };
  const next = (pred: (m: RtviMessage) => boolean) =>
    new Promise<RtviMessage>((resolve) => waiters.push({ pred, resolve }));
  const send = (m: RtviMessage) => ws.send(writeFrame(m, "json"));
  await new Promise<void>((resolve, reject) => {
    ws.onopen = () => resolve();
    ws.onerror = (e) => reject(new Error((e as ErrorEvent).message));
  });
  const t1 = performance.now();
  send(rtvi("client-ready", { version: "2.1.0" }, "ready"));
  await next((m) => m.type === "bot-ready");
  const t2 = performance.now();
  send(rtvi("client-message", { t: "update_system_prompt", d: { prompt: "Bench." } }, "prompt"));
  await next((m) => m.id === "prompt");
  send(rtvi("send-text", { content: "Hello" }, "hello"));
  const call = await next((m) => m.type === "llm-function-call-in-progress");
  const { tool_call_id, function_name } = call.data as {
    tool_call_id: string;
    function_name: string;
  };
  send(
    rtvi("llm-function-call-result", {
      tool_call_id,
      function_name,
      arguments: {},
      result: { ok: 1 },
    }),
  );
  const t3 = performance.now();
  return { connectMs: t1 - t0, handshakeMs: t2 - t1, exchangeMs: t3 - t2 };
}

function closeAll(sockets: WebSocket[]): Promise<void[]> {
  return Promise.all(sockets.map((ws) =>
    new Promise<void>((resolve) => {
      ws.onclose = () => resolve();
      ws.close();
    })
  ));
}

const p50p99 = (values: number[]) => ({
  p50: +percentile(values, 0.5).toFixed(1),
  p99: +percentile(values, 0.99).toFixed(1),
});

async function main(): Promise<number> {
  const { child, url } = await startServer();
  const deadline = setTimeout(() => {
    console.error(`server_bench: over ${DEADLINE_MS} ms, stopping`);
    try {
      child.kill("SIGKILL");
    } catch { /* gone */ }
    Deno.exit(1);
  }, DEADLINE_MS);
  const sockets: WebSocket[] = [];
  try {
    await new Promise((r) => setTimeout(r, 200));
    const idle = await health(url);
    // Unloaded: one session at a time, closed before the next.
    const quiet: Timings[] = [];
    for (let i = 0; i < QUIET_SESSIONS; i++) {
      const one: WebSocket[] = [];
      quiet.push(await session(url, one));
      await closeAll(one);
    }
    const started = performance.now();
    const timings = await Promise.all(
      Array.from({ length: SESSIONS }, () => session(url, sockets)),
    );
    const allOpenMs = performance.now() - started;
    const open = await health(url);
    await closeAll(sockets);
    await new Promise((r) => setTimeout(r, 500));
    const closed = await health(url);
    const figures = {
      sessions: SESSIONS,
      held_open: open.sessions,
      all_open_ms: Math.round(allOpenMs),
      quiet_handshake_ms: p50p99(quiet.map((t) => t.handshakeMs)),
      connect_ms: p50p99(timings.map((t) => t.connectMs)),
      handshake_ms: p50p99(timings.map((t) => t.handshakeMs)),
      exchange_ms: p50p99(timings.map((t) => t.exchangeMs)),
      server_rss_mb: { idle: idle.rss_mb, all_open: open.rss_mb, after_close: closed.rss_mb },
      sessions_after_close: closed.sessions,
    };
    console.log(JSON.stringify(figures));
    return open.sessions === SESSIONS && closed.sessions === 0 ? 0 : 1;
  } finally {
    child.kill("SIGTERM");
    await child.status;
    clearTimeout(deadline);
  }
}

if (import.meta.main) Deno.exit(await main());

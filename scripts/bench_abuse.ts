/**
 * The floods of issue #16 against a real `serve` (and some of `scripts/eval_floods.ts`
 * against `eval`), one at a time, on loopback, and those of issue #30 in this script's
 * reach: MCP batches against `serve --tools-server`, a 12-line `eval --line` sweep, and
 * `eval --resume` into a folder whose trials.jsonl is a link to /dev/zero or a FIFO.
 * For each: the flooded process's RSS growth, a second client's handshake p99 while
 * the flood runs, how long until the flooder was cut off (or its trial ended as
 * `protocol_error`), and how many well-behaved exchanges (or trials) completed beside
 * it. Prints one Markdown table; stops by itself (each flood is bounded to 10 s, the
 * whole run to 7.5 min).
 *
 *   deno task bench:abuse [--only NAME]
 *
 * @module
 */
import { rtvi, type RtviMessage } from "../src/protocol/messages.ts";
import { encodeAudioFrame, encodeTextFrame } from "../src/protocol/protobuf.ts";
import { clientFrame, RawSocketClient, repeatFrame, textFrame } from "../tests/_raw_ws.ts";
import { spawnServe } from "../tests/_serve_process.ts";
import { RawClient } from "../tests/_wire.ts";
import { EVAL_FLOODS, outcome, runEvalFlood, TRIALS } from "./eval_floods.ts";
import { health, session } from "./load_server.ts";
import { PERMS } from "../tests/_cli.ts";
import { sampleRss } from "../tests/_peak_rss.ts";

const FLOOD_MS = 10_000;
const DEADLINE_MS = 450_000;
const root = new URL("../", import.meta.url);
const only = Deno.args[Deno.args.indexOf("--only") + 1];

/** The `serve` task's permissions. */
const SERVE_PERMS = [
  "--allow-read",
  "--allow-write=/tmp",
  "--allow-net=127.0.0.1,localhost",
  "--allow-env=NODE_ENV,EVAL_DATA_ROOT,CALLBENCH_TOKEN,TMPDIR,WS_NO_BUFFER_UTIL,WS_NO_UTF_8_VALIDATE,LOG_TOKENS,LOG_STREAM",
];

interface Row {
  flood: string;
  target: "serve" | "eval";
  rssGrowthMb: number;
  handshakeP99Ms?: number;
  cutOffMs?: number;
  cutOffHow: string;
  others: string;
}

const percentile = (xs: number[], p: number) =>
  xs.length === 0 ? NaN : [...xs].sort((a, b) => a - b)[Math.ceil(xs.length * p) - 1]!;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const text = (f: { payload: Uint8Array }) => new TextDecoder().decode(f.payload);

async function startServe(): Promise<{ child: Deno.ChildProcess; url: string }> {
  const { child, url, seen } = await spawnServe([
    "run",
    ...SERVE_PERMS,
    "cli.ts",
    "serve",
    "--port",
    "0",
    "--agent",
    "noop",
    "--audio",
    "--tools-server",
  ], { cwd: root });
  if (!url) throw new Error(`serve exited before listening:\n${seen}`);
  return { child, url };
}

async function rssMb(url: string): Promise<number> {
  return (await health(url)).rss_mb;
}

/** A client on `url` that shakes hands; resolves with the time it took, ms. */
async function handshake(url: string): Promise<number> {
  const t0 = performance.now();
  const c = new RawClient(url);
  try {
    await c.opened;
    c.send(rtvi("client-ready", { version: "2.1.0" }, "h"));
    await c.next((m) => m.type === "bot-ready", 10_000);
    return performance.now() - t0;
  } finally {
    c.ws.close();
  }
}

/** A whole exchange with the noop agent (load_server's session), within 10 s. */
async function exchange(url: string): Promise<boolean> {
  const sockets: WebSocket[] = [];
  try {
    return await Promise.race([
      session(url, sockets).then(() => true),
      sleep(10_000).then(() => false),
    ]);
  } catch {
    return false;
  } finally {
    for (const ws of sockets) ws.close();
  }
}

/**
 * Runs `flood` against serve while timing handshakes, running exchanges and sampling
 * the server's RSS; the flood resolves with how it was stopped.
 */
async function measureServe(
  name: string,
  url: string,
  flood: () => Promise<{ cutOffMs?: number; how: string }>,
): Promise<Row> {
  const base = await rssMb(url);
  let peak = base;
  let running = true;
  const sampler = (async () => {
    while (running) {
      peak = Math.max(peak, await rssMb(url).catch(() => peak));
      await sleep(100);
    }
  })();
  const times: number[] = [];
  const timer = (async () => {
    await sleep(50);
    while (running) {
      times.push(await handshake(`${url}?audio=0`).catch(() => 10_000));
      await sleep(50);
    }
  })();
  let done = 0, tried = 0;
  const others = (async () => {
    await sleep(100);
    while (running && tried < 5) {
      tried++;
      if (await exchange(`${url}?audio=0`)) done++;
    }
  })();
  const result = await flood();
  // Let the measurements see the flood's end, then stop them.
  await sleep(300);
  running = false;
  await Promise.all([sampler, timer, others]);
  return {
    flood: name,
    target: "serve",
    rssGrowthMb: peak - base,
    handshakeP99Ms: percentile(times, 0.99),
    cutOffMs: result.cutOffMs,
    cutOffHow: result.how,
    others: `${done}/${tried} exchanges`,
  };
}

/** Writes `batch` until the server closes the socket or `FLOOD_MS` passes. */
async function pour(
  c: RawSocketClient,
  batch: Uint8Array,
  pauseMs: number,
): Promise<{ cutOffMs?: number; how: string }> {
  const t0 = performance.now();
  let closedAt: number | undefined;
  let code: number | undefined;
  c.closed.then((k) => {
    code = k;
    closedAt = performance.now();
  });
  while (closedAt === undefined && performance.now() - t0 < FLOOD_MS) {
    if (!(await c.write(batch))) break;
    if (pauseMs > 0) await sleep(pauseMs);
  }
  await Promise.race([c.closed, sleep(3_000)]);
  c.close();
  return closedAt === undefined
    ? { how: `still open after ${FLOOD_MS / 1000} s` }
    : { cutOffMs: Math.round(closedAt - t0), how: `closed ${code}` };
}

/** One 60 MiB binary frame, made once. */
let big: Uint8Array | undefined;
const bigFrame = () => big ??= clientFrame(2, new Uint8Array(60 * 2 ** 20));

const READY = textFrame(JSON.stringify(rtvi("client-ready", { version: "2.1.0" }, "r")));

async function ready(url: string): Promise<RawSocketClient> {
  const c = await RawSocketClient.open(url);
  await c.write(READY);
  await c.until((f) => text(f).includes('"bot-ready"'));
  return c;
}

/** A flood: its name, the flood, and what it needs first (not measured; it tells what it made). */
type ServeFlood = [
  string,
  (url: string) => Promise<{ cutOffMs?: number; how: string }>,
  ((url: string) => Promise<string>)?,
];

/** A session's MCP endpoint (bot-ready's `tools_server`), on a socket kept open meanwhile. */
async function toolsEndpoint(url: string): Promise<{ endpoint: string; client: RawClient }> {
  const client = new RawClient(url);
  await client.opened;
  client.send(rtvi("client-ready", { version: "2.1.0" }, "r"));
  const ready = await client.next((m) => m.type === "bot-ready", 10_000);
  const endpoint = (ready.data as { tools_server?: { url: string } }).tools_server?.url;
  if (!endpoint) throw new Error("serve named no tools endpoint");
  return { endpoint, client };
}

/** POSTs batches of 100 `tools/list` calls for `FLOOD_MS`: calls answered of those sent. */
async function mcpBatches(url: string): Promise<{ cutOffMs?: number; how: string }> {
  const { endpoint, client } = await toolsEndpoint(`${url}?audio=0&session=mcp`);
  const body = JSON.stringify(
    Array.from({ length: 100 }, (_, i) => ({ jsonrpc: "2.0", id: i, method: "tools/list" })),
  );
  const t0 = performance.now();
  let posts = 0, answered = 0;
  const statuses = new Map<number, number>();
  while (performance.now() - t0 < FLOOD_MS) {
    const r = await fetch(endpoint, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body,
    });
    const reply = await r.text();
    posts++;
    statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
    if (r.status === 200) answered += (JSON.parse(reply) as unknown[]).length;
  }
  client.ws.close();
  const seconds = (performance.now() - t0) / 1000;
  const by = [...statuses].map(([k, n]) => `${n}x${k}`).join(", ");
  return {
    how: `${answered} of ${posts * 100} calls run in ${seconds.toFixed(0)} s (${by})`,
  };
}

const SERVE_FLOODS: ServeFlood[] = [
  ["none (baseline)", () => sleep(3_000).then(() => ({ how: "-" }))],
  ["error frames: 40,000 one-byte `{`", async (url) => {
    const c = await RawSocketClient.open(`${url}?audio=0`);
    return await pour(c, repeatFrame(textFrame("{"), 40_000), 0);
  }],
  ["audio at 400x real time", async (url) => {
    const c = await ready(`${url}?audio=1`);
    const frame = clientFrame(
      2,
      encodeAudioFrame({ pcm: new Uint8Array(640), sampleRate: 16000, numChannels: 1 }),
    );
    // 400 frames of 20 ms (8 s of audio) every 20 ms.
    return await pour(c, repeatFrame(frame, 400), 20);
  }],
  ["context history: 300 requests, replies unread", async (url) => {
    const session = `${url}?audio=0&session=amplify`;
    const reader = await RawSocketClient.open(session, { read: false });
    const ask = textFrame(
      JSON.stringify(rtvi("client-message", { t: "get_context_history", d: {} }, "q")),
    );
    await reader.write(repeatFrame(ask, 300));
    await sleep(3_000);
    reader.close();
    return { how: `kept; replies refused` };
  }, async (url) => {
    const session = `${url}?audio=0&session=amplify`;
    const setup = await ready(session);
    const say = async (msg: RtviMessage, until: string) => {
      setup.frames.length = 0;
      await setup.write(textFrame(JSON.stringify(msg)));
      await setup.until((f) => text(f).includes(until), 10_000);
    };
    await say(
      rtvi("client-message", { t: "update_system_prompt", d: { prompt: "Amplify." } }, "p"),
      '"id":"p"',
    );
    // The noop agent answers nothing to what it hears: nine turns fill the history.
    for (let i = 0; i < 9; i++) {
      await setup.write(
        textFrame(JSON.stringify(rtvi("send-text", { content: "x".repeat(800_000) }, `t${i}`))),
      );
    }
    await say(rtvi("client-message", { t: "get_context_history", d: {} }, "h"), '"id":"h"');
    const reply = setup.frames.find((f) => text(f).includes('"id":"h"'))!;
    setup.close();
    await sleep(300);
    return `each reply ${(reply.payload.byteLength / 2 ** 20).toFixed(1)} MB`;
  }],
  ["64 MiB frames: 8 clients x 60 MiB", async (url) => {
    const clients = await Promise.all(
      Array.from({ length: 8 }, () => RawSocketClient.open(`${url}?audio=0`)),
    );
    const t0 = performance.now();
    const results = await Promise.all(clients.map(async (c) => {
      const writing = c.write(bigFrame());
      const code = await Promise.race([c.closed, sleep(FLOOD_MS).then(() => undefined)]);
      const at = performance.now() - t0;
      c.close();
      await writing;
      return { code, at };
    }));
    const codes = [...new Set(results.map((r) => r.code ?? "open"))].join(",");
    return { cutOffMs: Math.round(Math.max(...results.map((r) => r.at))), how: `closed ${codes}` };
  }, () => Promise.resolve(`${bigFrame().byteLength} bytes each`)],
  ["words: 1 MB TextFrames, no turn end", async (url) => {
    const c = await ready(`${url}?audio=1`);
    const frame = clientFrame(2, encodeTextFrame({ text: "w".repeat(1_000_000) }));
    return await pour(c, frame, 0);
  }],
  ["MCP batches: 100 calls a POST", mcpBatches],
  ["words: send-text run_immediately:false", async (url) => {
    const c = await ready(`${url}?audio=1`);
    const msg = rtvi("send-text", {
      content: "w".repeat(1_000_000),
      options: { run_immediately: false },
    }, "w");
    return await pour(c, textFrame(JSON.stringify(msg)), 0);
  }],
];

/** The eval floods of `scripts/eval_floods.ts` measured here. */
const EVAL_ROWS = ["segments", "twilio marks", "twilio media", "tool_calls 900 KB"];

async function evalRows(): Promise<Row[]> {
  const rows: Row[] = [];
  for (const flood of EVAL_FLOODS.filter((f) => EVAL_ROWS.includes(f.name))) {
    if (only && !flood.name.startsWith(only)) continue;
    const { measure: m, records } = await runEvalFlood(flood);
    const errored = records.filter((r) => outcome(r) === "protocol_error").length;
    rows.push({
      flood: flood.name,
      target: "eval",
      rssGrowthMb: m.peakRssMb - m.rssAtFloodMb,
      cutOffMs: records.length ? Math.round(m.floodToExitMs / records.length) : undefined,
      cutOffHow: `${errored}/${TRIALS} protocol_error (mean per trial)`,
      others: `${records.length}/${TRIALS} records (exit ${m.code})`,
    });
  }
  return rows;
}

/** `cli.ts eval ARGS` with the task's permissions: peak RSS growth, time to exit, what it said. */
async function evalProcess(args: string[], limitMs = FLOOD_MS): Promise<
  { code: number; growthMb: number; ms: number; stdout: string; stderr: string }
> {
  const t0 = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...PERMS, "cli.ts", "eval", ...args],
    cwd: root,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
  const rss = sampleRss(child.pid);
  // Bounded: a hung eval (a FIFO read forever) is killed after `limitMs`.
  const kill = setTimeout(() => child.kill("SIGKILL"), limitMs);
  const out = await child.output();
  clearTimeout(kill);
  const r = await rss.stop();
  const dec = new TextDecoder();
  return {
    code: out.code,
    growthMb: Math.round(r.peakMb - r.firstMb),
    ms: Math.round(performance.now() - t0),
    stdout: dec.decode(out.stdout),
    stderr: dec.decode(out.stderr),
  };
}

/** The eval rows of issue #30: a 12-line sweep, and --resume into a /dev/zero link and a FIFO. */
async function outFolderRows(): Promise<Row[]> {
  const rows: Row[] = [];
  const lines = ["clean", ...Array.from({ length: 11 }, (_, i) => `loss@${i + 1}%`)];
  const sweepArgs = ["--domain", "eva_airline", "--agent", "oracle", "--audio", "--trials", "1"];
  if (!only || "12-line sweep".startsWith(only)) {
    const m = await evalProcess([...sweepArgs, "--line", lines.join(",")], 90_000);
    const records = m.stdout.trim().split("\n").filter(Boolean).length;
    rows.push({
      flood: "12-line sweep (clean + loss@1..11%)",
      target: "eval",
      rssGrowthMb: m.growthMb,
      cutOffMs: m.ms,
      cutOffHow: `exit ${m.code} after the run`,
      others: `${records}/48 records`,
    });
  }
  for (const kind of ["/dev/zero", "FIFO"] as const) {
    const name = `--resume, trials.jsonl a ${kind === "FIFO" ? "FIFO" : "link to /dev/zero"}`;
    if (only && !name.startsWith(only)) continue;
    const dir = await Deno.makeTempDir({ prefix: "callbench-abuse-" });
    try {
      const file = `${dir}/trials.jsonl`;
      if (kind === "FIFO") await new Deno.Command("mkfifo", { args: [file] }).output();
      else await Deno.symlink("/dev/zero", file);
      const m = await evalProcess([
        "--domain",
        "tau2_retail",
        "--agent",
        "oracle",
        "--out",
        dir,
        "--resume",
      ]);
      const said = m.stderr.trim().split("\n").at(-1)?.replace(/^.*: (is a [^:]+):.*$/, "$1");
      rows.push({
        flood: name,
        target: "eval",
        rssGrowthMb: m.growthMb,
        cutOffMs: m.ms,
        cutOffHow: `exit ${m.code}: ${said}`,
        others: "-",
      });
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  }
  return rows;
}

async function main(): Promise<number> {
  const deadline = setTimeout(() => {
    console.error(`bench:abuse: over ${DEADLINE_MS / 1000} s, stopping`);
    Deno.exit(1);
  }, DEADLINE_MS);
  const rows: Row[] = [];
  const { child, url } = await startServe();
  try {
    await sleep(300);
    for (const [name, flood, prepare] of SERVE_FLOODS) {
      if (only && !name.startsWith(only)) continue;
      const made = await prepare?.(url);
      const row = await measureServe(name, url, () => flood(url));
      if (made) row.cutOffHow += ` (${made})`;
      rows.push(row);
    }
  } finally {
    child.kill("SIGTERM");
    await child.status;
  }
  rows.push(...await evalRows());
  rows.push(...await outFolderRows());
  clearTimeout(deadline);
  console.log(`load average at the end: ${Deno.loadavg().join(" ")}\n`);
  console.log(
    "| flood | target | RSS growth MB | 2nd client handshake p99 ms | flooder stopped after ms | how | others completed |",
  );
  console.log("| --- | --- | ---: | ---: | ---: | --- | --- |");
  for (const r of rows) {
    console.log(
      `| ${r.flood} | ${r.target} | ${r.rssGrowthMb} | ${
        r.handshakeP99Ms === undefined ? "-" : Math.round(r.handshakeP99Ms)
      } | ${r.cutOffMs ?? "-"} | ${r.cutOffHow} | ${r.others} |`,
    );
  }
  return 0;
}

if (import.meta.main) Deno.exit(await main());

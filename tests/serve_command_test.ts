/**
 * `cli.ts serve` as a process: it prints its URL on stderr, serves RTVI sessions,
 * and stops cleanly (exit 0) on SIGTERM and on SIGINT.
 */
import assert from "node:assert/strict";
import { rtvi } from "../src/protocol/messages.ts";
import { spawnServe } from "./_serve_process.ts";
import { RawClient } from "./_wire.ts";

const ENV =
  "NODE_ENV,EVAL_DATA_ROOT,CALLBENCH_TOKEN,LOG_TOKENS,LOG_STREAM,WS_NO_BUFFER_UTIL,WS_NO_UTF_8_VALIDATE";
const PERMS = ["--allow-read", "--allow-net=127.0.0.1", `--allow-env=${ENV}`];

/** Starts `cli.ts serve` and waits for the URL it prints. */
function startServe(args: string[], env: Record<string, string> = {}) {
  return spawnServe(["run", ...PERMS, "cli.ts", "serve", "--port", "0", ...args], {
    env,
    stdout: "piped",
  });
}

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  Deno.test(`serve prints its URL, answers a handshake and exits 0 on ${signal}`, async () => {
    const { child, url, stderr, stdout } = await startServe(["--agent", "noop"]);
    assert.match(url ?? "", /^ws:\/\/127\.0\.0\.1:\d+\/ws$/);
    const client = new RawClient(url!);
    await client.opened;
    client.send(rtvi("client-ready", { version: "2.1.0" }, "r1"));
    assert.equal((await client.next((m) => m.type === "bot-ready")).id, "r1");
    // Mid-call: the signal closes the session as going away (1001), and serve exits 0.
    child.kill(signal);
    const closed = await client.closed;
    assert.equal(closed.code, 1001);
    const status = await child.status;
    assert.equal(status.code, 0);
    assert.equal(await stdout, "", "no data on stdout");
    assert.ok((await stderr).some((l) => l.includes("stopping")));
  });
}

Deno.test("serve refuses a non-loopback host without a token (exit 2)", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...PERMS, "cli.ts", "serve", "--host", "0.0.0.0", "--port", "0"],
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  assert.equal(out.code, 2);
  assert.match(
    new TextDecoder().decode(out.stderr),
    /binding 0\.0\.0\.0 \(not loopback\) needs a token/,
  );
});

Deno.test("serve on a port in use names the port in one line and exits 2", async () => {
  const taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (taken.addr as Deno.NetAddr).port;
  try {
    const out = await cli(["serve", "--port", String(port)]);
    assert.equal(out.code, 2);
    const lines = out.stderr.trim().split("\n");
    assert.equal(lines.length, 1, out.stderr);
    assert.equal(
      lines[0],
      `field "--port": port ${port} on 127.0.0.1 is already in use ` +
        "(stop what holds it or pick another port; --port 0 picks a free one)",
    );
  } finally {
    taken.close();
  }
});

Deno.test("serve on an address it may not use (bare or bracketed), or one this machine lacks, says so in one line (exit 2)", async () => {
  // 192.0.2.1 is a documentation address (RFC 5737): never this machine's.
  const host = ["serve", "--host", "192.0.2.1", "--token", "t", "--port", "0"];
  const denied = await cli(host);
  assert.equal(denied.code, 2, denied.stderr);
  assert.equal(
    denied.stderr.trim(),
    "this run may not listen on 192.0.2.1:0 " +
      "(run it with --allow-net for that address (deno task serve allows loopback))",
  );
  // An IPv6 address as a URL writes it, bracketed.
  const bracketed = await cli(["serve", "--host", "[::1]", "--port", "0"]);
  assert.equal(bracketed.code, 2, bracketed.stderr);
  assert.match(bracketed.stderr, /^this run may not listen on \[::1\]:0 /);
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-read",
      "--allow-net=127.0.0.1,192.0.2.1",
      `--allow-env=${ENV}`,
      "cli.ts",
      ...host,
    ],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  assert.equal(out.code, 2);
  assert.equal(
    new TextDecoder().decode(out.stderr).trim(),
    'field "--host": cannot listen on 192.0.2.1:0: no such address on this machine',
  );
});

Deno.test("serve refuses a blank token, from the flag or the environment (exit 2)", async () => {
  const flag = await cli(["serve", "--port", "0", "--token", " "]);
  assert.equal(flag.code, 2);
  assert.match(flag.stderr, /field "--token": the token is blank/);
  const env = await cli(["serve", "--port", "0"], { CALLBENCH_TOKEN: "  " });
  assert.equal(env.code, 2);
  assert.match(env.stderr, /field "CALLBENCH_TOKEN": the token is blank/);
});

Deno.test("serve logs a client's broken socket as one short line", async () => {
  const { child, url, stderr } = await startServe(["--agent", "noop"]);
  try {
    const port = Number(new URL(url!).port);
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    const upgrade = "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n" +
      "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n" +
      "Sec-WebSocket-Version: 13\r\n\r\n";
    await conn.write(new TextEncoder().encode(upgrade));
    await conn.read(new Uint8Array(1024));
    // Not a WebSocket frame: reserved bits set.
    await conn.write(Uint8Array.of(0xff, 0xff, 0xff, 0x00, 0x01));
    await conn.read(new Uint8Array(1024)).catch(() => null);
    conn.close();
    // A healthy client afterwards proves the server went on.
    const client = new RawClient(url!);
    await client.opened;
    client.send(rtvi("client-ready", { version: "2.1.0" }, "r1"));
    await client.next((m) => m.type === "bot-ready");
    await client.close();
  } finally {
    child.kill("SIGTERM");
    await child.status;
  }
  const lines = await stderr;
  assert.ok(!lines.some((l) => l.startsWith("socket error")), lines.join("\n"));
  assert.ok(
    lines.some((l) => /^session 1: connection closed after a WebSocket protocol error/.test(l)),
    lines.join("\n"),
  );
});

/** Runs a CLI command to its end. */
async function cli(args: string[], env: Record<string, string> = {}) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...PERMS, "cli.ts", ...args],
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1", ...env },
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

Deno.test("eval against serve's oracle (both framings) and scripted caller over the wire reaches the expected hash", async () => {
  const listed = await cli(["list", "--domain", "eva_airline"]);
  assert.equal(listed.code, 0, listed.stderr);
  const scenario = JSON.parse(listed.stdout.split("\n")[0]!).name as string;
  const { child, url, stderr } = await startServe([]);
  try {
    for (const framing of ["json", "protobuf"]) {
      const agent = `${url}?agent=oracle&framing=${framing}`;
      const run = await cli([
        "eval",
        "--scenarios",
        scenario,
        "--agent",
        agent,
        "--user",
        "scripted",
      ]);
      assert.equal(run.code, 0, run.stderr);
      const record = JSON.parse(run.stdout);
      assert.equal(record.status, "completed", JSON.stringify(record.error));
      assert.equal(record.participants.agent.kind, "remote");
      assert.equal(record.stop_reason, "agent_end");
      assert.ok(record.tool_calls.length > 1, "the oracle's tools ran in the harness");
      assert.equal(record.final.db_sha256, record.expect.db_sha256);
    }
    // The caller over the wire instead: serve's scripted user against the local oracle.
    const user = `${url}?user=scripted`;
    const run = await cli(["eval", "--scenarios", scenario, "--agent", "oracle", "--user", user]);
    assert.equal(run.code, 0, run.stderr);
    const record = JSON.parse(run.stdout);
    assert.equal(record.participants.user.kind, "remote");
    assert.equal(record.final.db_sha256, record.expect.db_sha256);
  } finally {
    child.kill("SIGTERM");
    assert.equal((await child.status).code, 0);
    await stderr;
  }
});

Deno.test("serve --audio under the serve task's own permissions speaks flite audio to a JSON client", async () => {
  // The permissions of `deno task serve`, read from deno.json: flite needs no more.
  const tasks = JSON.parse(await Deno.readTextFile("deno.json")).tasks;
  const words = String(tasks.serve.command).split(" ");
  const perms = words.slice(words.indexOf("run") + 1, words.indexOf("cli.ts"));
  assert.ok(perms.every((p) => p.startsWith("--allow-") && p !== "--allow-all"), perms.join(" "));
  assert.ok(!perms.includes("--allow-write"), "unbounded write");
  const { child, url, seen, stderr } = await spawnServe([
    "run",
    ...perms,
    "cli.ts",
    "serve",
    "--port",
    "0",
    "--agent",
    "noop",
    "--audio",
  ]);
  try {
    assert.ok(url, seen);
    assert.match(seen, /listening on \S+ \(audio\)\n/);
    const client = new RawClient(url);
    await client.opened;
    client.send(rtvi("client-ready", { version: "2.1.0" }, "r1"));
    await client.next((m) => m.type === "bot-ready");
    client.send(rtvi("send-text", { content: "hello" }, "s1"));
    const audio = await client.next((m) => m.type === "bot-tts-audio", 20_000);
    const data = audio.data as { audio: string; sample_rate: number };
    assert.equal(data.sample_rate, 24000);
    assert.ok(Uint8Array.fromBase64(data.audio).length > 0);
    assert.ok(!client.received.some((m) => m.type === "error"), JSON.stringify(client.received));
  } finally {
    child.kill("SIGTERM");
    await child.status;
    await stderr;
  }
});

Deno.test("serve refuses a bad --audio-rate, --voice, --tts or --stt in one line (exit 2)", async () => {
  for (
    const [args, pattern] of [
      [["--audio-rate", "12345"], /--audio-rate.*12345/],
      [["--voice", "nobody"], /--voice.*nobody/],
      [["--tts", "espeak"], /--tts.*espeak/],
      [["--stt", "whisper"], /--stt.*whisper/],
      [["--stt", "openai"], /--base-url/],
    ] as const
  ) {
    const r = await cli(["serve", "--port", "0", "--audio", ...args], { OPENAI_BASE_URL: "" });
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, pattern);
  }
});

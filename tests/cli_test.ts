/**
 * Golden tests of the CLI: spawn `cli.ts` with the task's permissions, feed stdin,
 * compare stdout, stderr and the exit code.
 */
import assert from "node:assert/strict";
import { cli } from "./_cli.ts";
import { join } from "node:path";

Deno.test("cli: hash prints the reference's canonical hash per input", async () => {
  const r = await cli(["hash", "-"], '{"x": 1, "session": {"id": "abc"}}');
  assert.equal(r.code, 0);
  assert.equal(
    r.stdout,
    '{"input":"<stdin>","sha256":"5041bf1f713df204784353e82f6a4a535931cb64f1f4b4a5aeaffcb720918b22"}\n',
  );
});

Deno.test("cli: hash --canonical shows the string that is hashed", async () => {
  const r = await cli(["hash", "--canonical"], '{"b":[{"id":"Y"},{"id":"X"}],"a":0.00001,"u":"é"}');
  assert.equal(r.code, 0);
  assert.equal(
    JSON.parse(r.stdout).canonical,
    '{"a":1e-05,"b":[{"id":"Y"},{"id":"X"}],"u":"\\u00e9"}',
  );
});

Deno.test("cli: bad JSON exits 2 naming the input, line and column, without a stack", async () => {
  const r = await cli(["hash"], '{\n  "a": 1,\n  "b": }');
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^<stdin>:3: invalid JSON at column \d+/);
  assert.doesNotMatch(r.stderr, /at .*\.ts:\d+/);
  assert.equal(r.stdout, "");
});

Deno.test("cli: an unknown command suggests the closest", async () => {
  const r = await cli(["evl"]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /Unknown command "evl": did you mean "eval"\?/);
});

Deno.test("cli: an unknown flag names the closest one", async () => {
  const r = await cli(["eval", "--agnet", "oracle"]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /unknown flag --agnet \(did you mean --agent\?\)/);
});

Deno.test("cli: every command has help", async () => {
  const r = await cli(["--help"]);
  assert.equal(r.code, 0);
  for (
    const c of [
      "list",
      "eval",
      "score",
      "report",
      "hash",
      "gold",
      "replay",
      "validate",
      "serve",
      "scaffold",
    ]
  ) {
    assert.match(r.stdout, new RegExp(`\\n  ${c} `));
  }
  const e = await cli(["eval", "--help"]);
  assert.equal(e.code, 0);
  assert.match(e.stdout, /--shard i\/n/);
});

Deno.test("cli: a missing data root names the path and how to set it", async () => {
  const r = await cli(["list", "--data-root", "no/such/dir"]);
  assert.equal(r.code, 2);
  assert.match(
    r.stderr,
    /no\/such\/dir: data root not found \(from --data-root\) \(pass --data-root DIR or set EVAL_DATA_ROOT/,
  );
});

Deno.test("cli: replay runs calls, reports errors as results, and prints the final hash", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/db.json`, JSON.stringify({ count: 0 }));
    const r = await cli(["replay", "--domain", "nope", "--db", `${dir}/db.json`], "");
    assert.equal(r.code, 2);
    assert.match(r.stderr, /unknown domain "nope"/);
    const bad = await cli(
      ["replay", "--domain", "eva_airline", "--db", `${dir}/db.json`],
      '{"tool": "get_reservation"}\n{"tol": 1}\n',
    );
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /<stdin>:2: /);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cli: eval validates flow files before any call and exits 2 with located errors", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const file = `${dir}/bad.yaml`;
    await Deno.writeTextFile(
      file,
      'nodes:\n  menu:\n    say: "Press 1."\n    routes:\n      - { match: #, to: menu }\nscenarios:\n  - label: a\n    start: menu\n',
    );
    const r = await cli(["eval", "--agent", "navigator", file]);
    assert.equal(r.code, 2);
    assert.equal(r.stdout, "", "no trial ran");
    assert.match(r.stderr, /bad\.yaml:5: field "match": unquoted # in "match"/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cli: an unreachable agent fails each trial with agent_unreachable, and the run exits 1", async () => {
  const r = await cli([
    "eval",
    "--agent",
    "ws://127.0.0.1:9/ws",
    "--connect-attempts",
    "1",
    "--scenarios",
    "eva_airline__1_4_1",
  ]);
  assert.equal(r.code, 1);
  const record = JSON.parse(r.stdout);
  assert.equal(record.status, "error");
  assert.equal(record.error.kind, "agent_unreachable");
  assert.match(r.stderr, /1 infrastructure error/);
});

Deno.test("cli: a bad script agent, an llm caller on flows, an unreadable key: exit 2 before any call", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/script.json`, '[{"press": "12x"}]');
    const script = await cli(["eval", "scenarios/flows", "--agent", `script:${dir}/script.json`]);
    assert.equal(script.code, 2);
    assert.equal(script.stdout, "");
    assert.match(script.stderr, /script\.json/);
    const llm = await cli([
      "eval",
      "scenarios/flows",
      "--agent",
      "navigator",
      "--user",
      "llm",
      "--user-model",
      "m",
      "--base-url",
      "http://127.0.0.1:9/v1",
    ]);
    assert.equal(llm.code, 2);
    assert.match(llm.stderr, /flow scenarios are played by the flow callee/);
    const key = await cli([
      "eval",
      "--agent",
      "llm",
      "--agent-model",
      "m",
      "--base-url",
      "http://127.0.0.1:9/v1",
      "--api-key-env",
      "SOME_KEY",
    ]);
    assert.equal(key.code, 2);
    assert.match(key.stderr, /cannot read the environment variable SOME_KEY/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cli: gold's reference actions replay to gold's expected hash", async () => {
  const gold = await cli(["gold", "--domain", "tau2_retail"]);
  // One fixture task has a reference call that fails on the data, as real tasks do:
  // every line is printed, the failure is said, and the exit is 2.
  assert.equal(gold.code, 2, gold.stderr);
  assert.equal(
    gold.stderr.trim(),
    'tau2_retail__2: field "expect.reference_actions[0]": find_user_id_by_name_zip failed on the world: {"status":"error","error_type":"not_found","message":"User not found"}',
  );
  const initial = (await cli(["hash", "fixtures/tau2_retail/db.json"])).stdout;
  const g = gold.stdout.trim().split("\n").map((l) => JSON.parse(l)).find((x) =>
    !initial.includes(x.expected_db_sha256)
  );
  assert.ok(g, "a fixture task changes the world");
  const calls = g.reference_actions.map((a: unknown) => JSON.stringify(a)).join("\n") + "\n";
  const replay = await cli([
    "replay",
    "--domain",
    "tau2_retail",
    "--db",
    "fixtures/tau2_retail/db.json",
  ], calls);
  assert.equal(replay.code, 0, replay.stderr);
  const final = JSON.parse(replay.stdout.trim().split("\n").at(-1)!);
  assert.equal(final.db_sha256, g.expected_db_sha256);
  const bad = await cli([
    "replay",
    "--domain",
    "tau2_retail",
    "--db",
    "fixtures/tau2_retail/db.json",
    "--today",
    "2024-13-45",
  ]);
  assert.equal(bad.code, 2);
});

Deno.test("cli: no command prints usage on stderr and exits 2; serve refuses an unknown agent", async () => {
  const none = await cli([]);
  assert.equal(none.code, 2);
  assert.equal(none.stdout, "");
  assert.match(none.stderr, /Usage: cli\.ts <command>/);
  const serve = await cli(["serve", "--agent", "oracel", "--port", "0"]);
  assert.equal(serve.code, 2);
  assert.match(serve.stderr, /unknown agent "oracel" \(did you mean "oracle"\?\)/);
});

Deno.test("cli: eval --min-agent-turns travels in the record and score applies it", async () => {
  const records = await cli([
    "eval",
    "--agent",
    "noop",
    "--domain",
    "tau2_retail",
    "--min-agent-turns",
    "2",
  ]);
  assert.equal(records.code, 0, records.stderr);
  const verdicts = await cli(["score"], records.stdout);
  const vs = verdicts.stdout.trim().split("\n").map((l) => JSON.parse(l));
  assert.ok(
    vs.length > 0 &&
      vs.every((v) => v.insufficient_agent_turns === true && v.is_successful === false),
  );
  const overridden = await cli(["score", "--min-agent-turns", "0"], records.stdout);
  assert.ok(
    overridden.stdout.trim().split("\n").every((l) => !JSON.parse(l).insufficient_agent_turns),
  );
});

Deno.test("cli: --version prints the version of deno.json", async () => {
  const r = await cli(["--version"]);
  assert.equal(r.code, 0);
  assert.equal(r.stdout, `callbench ${JSON.parse(await Deno.readTextFile("deno.json")).version}\n`);
});

Deno.test("cli: eval with an empty pipe exits 2 and runs nothing", async () => {
  const r = await cli(["eval", "--agent", "oracle"], "");
  assert.equal(r.code, 2);
  assert.equal(r.stdout, "");
  assert.match(r.stderr, /<stdin>: no scenario references on stdin \(pass --all/);
});

/** `cli.ts eval --agent oracle --all --concurrency 1 ...extra`, its stdout and stderr piped. */
function spawnOracleEval(extra: string[]): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-read",
      "--allow-write",
      "--allow-env=NODE_ENV,EVAL_DATA_ROOT,CALLBENCH_AGENT_MODEL,OPENAI_BASE_URL,OPENAI_API_KEY,CALLBENCH_USER_MODEL,LOG_TOKENS,LOG_STREAM",
      "cli.ts",
      "eval",
      "--agent",
      "oracle",
      "--all",
      "--concurrency",
      "1",
      ...extra,
    ],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
}

Deno.test("cli: Ctrl-C exits 130, saying what was recorded and that --resume continues", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const child = spawnOracleEval(["--trials", "5000", "--out", dir]);
    // Wait for the first record, then interrupt.
    const reader = child.stdout.getReader();
    await reader.read();
    child.kill("SIGINT");
    const drain = (async () => {
      while (!(await reader.read()).done) { /* drain */ }
    })();
    const [status, stderr] = await Promise.all([
      child.status,
      new Response(child.stderr).text(),
      drain,
    ]);
    assert.equal(status.code, 130, stderr);
    const m =
      /eval: interrupted; (\d+) of (\d+) trial\(s\) of this run recorded in (.*); run the same command with --resume to continue/
        .exec(stderr);
    assert.ok(m, stderr);
    const lines = (await Deno.readTextFile(join(dir, "trials.jsonl"))).trimEnd().split("\n");
    assert.equal(lines.length, Number(m[1]));
    assert.ok(lines.length < Number(m[2]));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the README's example output folders are git-ignored", async () => {
  const ignored = (await Deno.readTextFile(".gitignore")).split("\n").map((l) => l.trim());
  const readme = await Deno.readTextFile("README.md");
  const folders = [...readme.matchAll(/--out ([A-Za-z0-9_.-][A-Za-z0-9_./-]*)/g)]
    .map((m) => m[1]!.split("/")[0] + "/")
    .filter((f) => !/^[A-Z]+\/$/.test(f)); // placeholders such as DIR
  assert.ok(folders.includes("runs/"), folders.join());
  for (const f of new Set(folders)) assert.ok(ignored.includes(f), `${f} is not in .gitignore`);
});

Deno.test("cli: eval --out D | head -1 still records every trial in D; without --out it exits 1", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const run = async (extra: string[]) => {
      const child = spawnOracleEval(["--trials", "30", ...extra]);
      const reader = child.stdout.getReader();
      await reader.read();
      await reader.cancel(); // the reader goes away, as `head -1` does
      const [status, stderr] = await Promise.all([child.status, new Response(child.stderr).text()]);
      return { code: status.code, stderr };
    };
    const kept = await run(["--out", dir]);
    assert.equal(kept.code, 0, kept.stderr);
    const lines = (await Deno.readTextFile(join(dir, "trials.jsonl"))).trimEnd().split("\n");
    const ran = /eval: (\d+) trial\(s\) run/.exec(kept.stderr);
    assert.ok(ran && Number(ran[1]) > 30, kept.stderr);
    assert.equal(lines.length, Number(ran[1]));
    assert.match(kept.stderr, /stdout closed during the run; every record is in/);
    const lost = await run([]);
    assert.equal(lost.code, 1, lost.stderr);
    assert.match(lost.stderr, /stdout closed after \d+ trial record\(s\); stopped/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

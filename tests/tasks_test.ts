/**
 * Every task of deno.json, run exactly as deno.json defines it (`deno task NAME`),
 * so a permission a task lacks (a variable a dependency reads, a folder it writes)
 * fails here rather than for a user. A task added without a row below fails too.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { spawnCapture } from "./_cli.ts";
import { spawnServe } from "./_serve_process.ts";
import { tasks } from "./_tasks.ts";

const ROOT = new URL("..", import.meta.url).pathname;

function task(name: string, args: string[], env: Record<string, string> = {}) {
  return spawnCapture(Deno.execPath(), ["task", "-q", name, ...args], { cwd: ROOT, env });
}

/** How each task is run here, or why it is not (it runs the tests, or runs for minutes). */
const RUNS: Record<string, (() => Promise<void>) | string> = {
  async cli() {
    const r = await task("cli", ["--version"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^callbench \d+\.\d+\.\d+/);
  },
  async demo() {
    const r = await task("demo", []);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout + r.stderr, /oracle/);
  },
  async scaffold() {
    // Failed with "Requires env access to LOG_TOKENS" when only tests' own flags ran it.
    const out = await Deno.makeTempDir({ prefix: "callbench-task-scaffold-" });
    try {
      const r = await task("scaffold", ["--domain", "eva_airline", "--out", join(out, "x")]);
      assert.equal(r.code, 0, r.stderr);
      assert.ok([...Deno.readDirSync(join(out, "x"))].length > 0);
    } finally {
      await Deno.remove(out, { recursive: true });
    }
  },
  async schema() {
    // Writes schemas/ in place: what is committed must be what the zod schemas give.
    const before = await gitStatus("schemas");
    const r = await task("schema", []);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(await gitStatus("schemas"), before, "schemas/ is stale: run deno task schema");
  },
  async serve() {
    const { child, url, seen, cancel } = await spawnServe(
      ["task", "-q", "serve", "--port", "0", "--agent", "noop"],
      { cwd: ROOT },
    );
    try {
      assert.ok(url, seen);
      const health = await fetch(url.replace(/^ws/, "http").replace(/\/ws$/, "/health"));
      assert.equal(health.status, 200);
      await health.body?.cancel();
    } finally {
      child.kill("SIGTERM");
      await cancel();
      await child.status;
    }
  },
  async install() {
    // Installed, the command runs in the user's own folder on that folder's files.
    const tmp = await Deno.makeTempDir({ prefix: "callbench-task-install-" });
    try {
      const r = await task("install", [], { DENO_INSTALL_ROOT: tmp });
      assert.equal(r.code, 0, r.stderr);
      const bin = join(tmp, "bin", "callbench");
      const project = join(tmp, "project");
      Deno.mkdirSync(project);
      // The README's from-scratch scenario, in the user's folder.
      const readme = Deno.readTextFileSync(join(ROOT, "README.md"));
      const start = readme.indexOf("```yaml\nname: mine__lamp_exchange") + "```yaml\n".length;
      const scenario = readme.slice(start, readme.indexOf("```", start));
      Deno.writeTextFileSync(join(project, "mine.yaml"), scenario);
      const run = (args: string[], stdin?: string) =>
        spawnCapture(bin, args, { cwd: project, ...(stdin !== undefined ? { stdin } : {}) });
      const version = await run(["--version"]);
      assert.equal(version.code, 0, version.stderr);
      const gold = await run(["gold", "mine.yaml"]);
      assert.equal(gold.code, 0, gold.stderr);
      const hash = JSON.parse(gold.stdout).expected_db_sha256;
      Deno.writeTextFileSync(
        join(project, "mine.yaml"),
        scenario.replace("expect:\n", `expect:\n  db_sha256: "${hash}"\n`),
      );
      const valid = await run(["validate", "mine.yaml"]);
      assert.equal(valid.code, 0, valid.stderr);
      const ev = await run(["eval", "mine.yaml", "--agent", "oracle", "--out", "runs/first"]);
      assert.equal(ev.code, 0, ev.stderr);
      assert.ok(Deno.statSync(join(project, "runs", "first", "trials.jsonl")).isFile);
      const verdict = JSON.parse((await run(["score"], ev.stdout)).stdout.trim());
      assert.equal(verdict.is_successful, true);
    } finally {
      await Deno.remove(tmp, { recursive: true });
    }
  },
  async "bench:server"() {
    const r = await task("bench:server", ["5"]);
    assert.equal(r.code, 0, r.stderr);
  },
  test: "runs this suite",
  "test:conformance": "run by .ci/run beside this suite",
  "test:realtime": "run by .ci/run after this suite (it is the real-clock part of it)",
  ok: "runs this suite",
  bench: "Deno.bench over every *_bench.ts: minutes; run by hand",
  "bench:audio": "a benchmark of minutes; run by hand",
  "bench:audio:realtime": "real-time calls for minutes; run by hand",
  "bench:calls": "a benchmark of minutes; run by hand",
  "bench:abuse":
    "floods for a minute or more; run by hand (each flood is a test in serve_abuse_realclock_test.ts)",
  "bench:voice-truth":
    "real-time calls for minutes; run by hand (tests/voice_truth_realclock_test.ts is its short form)",
  "bench:line": "a benchmark of a minute; run by hand",
};

async function gitStatus(path: string): Promise<string> {
  const out = await new Deno.Command("git", {
    args: ["status", "--porcelain", "--", path],
    cwd: ROOT,
    stdout: "piped",
    stderr: "null",
  }).output();
  return new TextDecoder().decode(out.stdout);
}

Deno.test("every deno.json task has a row here", () => {
  const missing = Object.keys(tasks()).filter((t) => !(t in RUNS));
  assert.deepEqual(missing, [], "add a run (or the reason it is not run) for each new task");
});

for (const [name, run] of Object.entries(RUNS)) {
  if (typeof run === "string") continue;
  Deno.test({
    name: `deno task ${name} runs as deno.json defines it`,
    sanitizeResources: false,
    sanitizeOps: false,
    fn: run,
  });
}

/** Bytes under `dir` (files counted once, links not followed). */
function bytesUnder(dir: string): number {
  let total = 0;
  for (const e of Deno.readDirSync(dir)) {
    const p = join(dir, e.name);
    const info = Deno.lstatSync(p);
    if (info.isDirectory) total += bytesUnder(p);
    else if (info.isFile) total += info.size;
  }
  return total;
}

Deno.test({
  name: "a cold deno task demo downloads under 30 MB: no test-only and no audio package",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const tmp = await Deno.makeTempDir({ prefix: "callbench-cold-" });
    try {
      // The tracked files of this checkout, without its node_modules.
      const listed = await new Deno.Command("git", {
        args: ["ls-files", "-z"],
        cwd: ROOT,
        stdout: "piped",
      })
        .output();
      const files = new TextDecoder().decode(listed.stdout).split("\0").filter(Boolean);
      const repo = join(tmp, "repo");
      for (const f of files) {
        try {
          Deno.mkdirSync(join(repo, f, ".."), { recursive: true });
          Deno.copyFileSync(join(ROOT, f), join(repo, f));
        } catch (e) {
          if (!(e instanceof Deno.errors.NotFound)) throw e; // deleted in the work tree
        }
      }
      const denoDir = join(tmp, "deno_dir");
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["task", "-q", "demo"],
        cwd: repo,
        stdin: "null",
        stdout: "null",
        stderr: "piped",
        env: { NO_COLOR: "1", DENO_DIR: denoDir },
      }).output();
      assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
      const installed = [...Deno.readDirSync(join(repo, "node_modules", ".deno"))]
        .map((e) => e.name).filter((n) => n !== "node_modules" && !n.startsWith(".")).sort();
      assert.deepEqual(installed.map((n) => n.replace(/@[^@]+$/, "")), [
        "hono",
        "ws",
        "yaml",
        "zod",
      ]);
      // What came down: the npm cache and node_modules. The rest of DENO_DIR is Deno's own
      // work on this checkout's code (its transpiled modules and analysis caches), which
      // grows with the project and is no download.
      const localWork = ["gen"].concat(
        [...Deno.readDirSync(denoDir)].filter((e) => e.isFile).map((e) => e.name),
      );
      const cached = [...Deno.readDirSync(denoDir)]
        .filter((e) => !localWork.includes(e.name))
        .reduce((sum, e) => sum + bytesUnder(join(denoDir, e.name)), 0);
      const mb = (cached + bytesUnder(join(repo, "node_modules"))) / 1e6;
      assert.ok(mb < 30, `a cold demo downloaded ${mb.toFixed(1)} MB`);
      // Only the tests have a lockfile (tests/deno.lock: it pins the pipecat client's
      // tree); `deno task` installs every package of a lockfile before it runs a task, so
      // the runtime has none. That is sound only while every package of the import map
      // is pinned and depends on nothing.
      for (const name of installed) {
        const pkg = name.replace(/@[^@]+$/, "").replace("+", "/");
        const manifest = JSON.parse(
          Deno.readTextFileSync(
            join(repo, "node_modules", ".deno", name, "node_modules", pkg, "package.json"),
          ),
        );
        assert.deepEqual(Object.keys(manifest.dependencies ?? {}), [], `${pkg} has dependencies`);
      }
    } finally {
      await Deno.remove(tmp, { recursive: true });
    }
  },
});

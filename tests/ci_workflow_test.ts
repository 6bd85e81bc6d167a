/**
 * The GitHub Actions workflow of `examples/ci/callbench.yml`: a real workflow (its YAML
 * parses, each job has what a runner needs: `runs-on`, a checkout before anything that
 * runs the project, steps), and its steps run here as a runner would run them: each
 * matrix job's steps in order in a fresh folder (the agent under test started in the
 * background and stopped when its job ends), the artifacts carried from the eval jobs to
 * the report job, `${{ matrix.* }}` and `${{ env.* }}` put in.
 *
 * Permissions: read, write (a folder under out/), run (bash, setsid, deno), net (a free port).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const FILE = join(ROOT, "examples/ci/callbench.yml");

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  shell?: string;
  with?: Record<string, unknown>;
}
interface Job {
  "runs-on"?: string;
  needs?: string | string[];
  strategy?: { matrix?: Record<string, unknown[]> };
  steps?: Step[];
}
interface Workflow {
  name?: string;
  on?: unknown;
  env?: Record<string, string | number>;
  jobs?: Record<string, Job>;
}

function workflow(): Workflow {
  return parse(Deno.readTextFileSync(FILE)) as Workflow;
}

Deno.test("examples/ci/callbench.yml: a workflow with what each job needs (runs-on, checkout, steps), and a step that starts the agent", () => {
  const w = workflow();
  assert.ok(w.on !== undefined, "on: the events that run it");
  assert.ok(w.jobs && Object.keys(w.jobs).length > 0, "jobs");
  for (const [id, job] of Object.entries(w.jobs)) {
    assert.equal(typeof job["runs-on"], "string", `${id}: runs-on`);
    assert.ok(Array.isArray(job.steps) && job.steps.length > 0, `${id}: steps`);
    for (const step of job.steps) {
      assert.ok((step.uses === undefined) !== (step.run === undefined), `${id}: uses or run`);
    }
    // Nothing runs the project before the checkout brought it.
    const checkout = job.steps.findIndex((s) => s.uses?.startsWith("actions/checkout@"));
    const first = job.steps.findIndex((s) => s.run?.includes("deno task"));
    assert.ok(checkout >= 0 && checkout < first, `${id}: checkout before ${first}`);
    for (const need of [job.needs ?? []].flat()) assert.ok(w.jobs[need], `${id} needs ${need}`);
  }
  const steps = w.jobs.eval!.steps!;
  const agent = steps.findIndex((s) => /serve\b[^\n]*&\s*$/m.test(s.run ?? ""));
  const dial = steps.findIndex((s) =>
    /eval [^\n]*--agent "ws:\/\/127\.0\.0\.1:\$AGENT_PORT/.test(
      s.run ?? "",
    )
  );
  assert.ok(agent >= 0 && agent < dial, "the agent is started before the eval dials it");
});

Deno.test({
  name: "examples/ci/callbench.yml: its steps run locally, shards to report, and the report gates",
  sanitizeResources: false,
  fn: async () => {
    const w = workflow();
    const base = join(ROOT, "out");
    await Deno.mkdir(base, { recursive: true });
    const dir = await Deno.makeTempDir({ dir: base, prefix: "ci-workflow-" });
    const artifacts = join(dir, "artifacts");
    try {
      const port = _freePort();
      const env = {
        ...Object.fromEntries(Object.entries(w.env ?? {}).map(([k, v]) => [k, String(v)])),
        AGENT_PORT: String(port),
      };
      // The jobs in the order their needs allow (eval, then report).
      const order = ["eval", "report"];
      assert.deepEqual(Object.keys(w.jobs!).sort(), [...order].sort());
      for (const id of order) {
        const job = w.jobs![id]!;
        const matrix = job.strategy?.matrix ?? {};
        const shards = (matrix.shard ?? [undefined]) as (number | undefined)[];
        for (const shard of shards) {
          const work = join(dir, `${id}-${shard ?? "job"}`);
          await Deno.mkdir(work);
          await _runJob(job, work, artifacts, env, { shard });
        }
      }
      const report = Deno.readTextFileSync(join(dir, "report-job", "report.md"));
      assert.match(report, /## callbench report/);
      // Every fixture scenario ran its 3 trials, across the 4 shards.
      const trials = [0, 1, 2, 3].flatMap((s) =>
        Deno.readTextFileSync(join(artifacts, `trials-${s}`, `trials-${s}.jsonl`)).trim()
          .split("\n")
      );
      const scenarios = new Set(trials.map((l) => JSON.parse(l).key.scenario));
      assert.equal(trials.length, scenarios.size * 3);
      assert.ok(scenarios.size > 10, `${scenarios.size} scenarios`);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

/** Runs a job's steps in `work`, as a runner would; stops what it left running at the end. */
async function _runJob(
  job: Job,
  work: string,
  artifacts: string,
  env: Record<string, string>,
  matrix: Record<string, unknown>,
): Promise<void> {
  const groups: number[] = [];
  const fill = (text: string) =>
    text.replace(/\$\{\{\s*(matrix|env)\.(\w+)\s*\}\}/g, (_m, scope: string, key: string) => {
      const v = scope === "matrix" ? matrix[key] : env[key];
      assert.ok(v !== undefined, `${scope}.${key} is set`);
      return String(v);
    });
  try {
    for (const step of job.steps!) {
      const uses = step.uses?.replace(/@.*$/, "");
      if (uses === "actions/checkout" || uses === "denoland/setup-deno") continue; // here already
      if (uses === "actions/upload-artifact") {
        const name = fill(String(step.with!.name));
        await Deno.mkdir(join(artifacts, name), { recursive: true });
        const path = fill(String(step.with!.path));
        await Deno.copyFile(join(work, path), join(artifacts, name, path));
        continue;
      }
      if (uses === "actions/download-artifact") {
        for await (const a of Deno.readDir(artifacts)) {
          await Deno.mkdir(join(work, a.name));
          for await (const f of Deno.readDir(join(artifacts, a.name))) {
            await Deno.copyFile(join(artifacts, a.name, f.name), join(work, a.name, f.name));
          }
        }
        continue;
      }
      assert.equal(uses, undefined, `a step this test knows how to run: ${step.uses}`);
      // GitHub's shells: bash -e, or with `shell: bash` also -o pipefail.
      const flags = step.shell === "bash" ? ["--noprofile", "--norc", "-eo", "pipefail"] : ["-e"];
      const child = new Deno.Command("setsid", {
        args: ["bash", ...flags, "-c", fill(step.run!)],
        cwd: work,
        env,
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      // Its own process group: what it starts in the background ends with the job.
      groups.push(child.pid);
      const out = await child.output();
      const text = new TextDecoder().decode(out.stderr);
      assert.equal(out.code, 0, `${step.name ?? step.run}: ${text}`);
    }
  } finally {
    for (const pgid of groups) {
      try {
        Deno.kill(-pgid, "SIGTERM");
      } catch {
        // The group has ended already.
      }
    }
  }
}

function _freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/**
 * `score` and `report` as processes in a pipe: records in on stdin, verdicts and the
 * summary out on stdout, located input errors on stderr with exit code 2.
 *
 * Permissions: `--allow-read --allow-run` (spawns `deno run --allow-read cli.ts`).
 */
import { spawnCapture } from "./_cli.ts";
import assert from "node:assert/strict";
import { trialRecord } from "../src/score/_trial_fixture.ts";

function run(args: string[], stdin: string) {
  return spawnCapture(Deno.execPath(), ["run", "--allow-read", "cli.ts", ...args], { stdin });
}

const HASH = "f".repeat(64);
const records = [0, 1, 2, 3].map((trial) =>
  trialRecord({
    key: { trial },
    final: { db_sha256: trial === 3 ? null : HASH },
    expect: { db_sha256: HASH, success_signals: ["db_state_match", "clean_exit"] },
  })
);
const jsonl = (xs: unknown[]) => xs.map((x) => JSON.stringify(x)).join("\n") + "\n";

Deno.test("cli: score | report gives the run's summary", async () => {
  const scored = await run(["score"], jsonl(records));
  assert.equal(scored.code, 0, scored.stderr);
  assert.equal(scored.stdout.trimEnd().split("\n").length, 4);
  const again = await run(["score"], jsonl(records));
  assert.equal(again.stdout, scored.stdout, "byte-identical on the same input");

  const reported = await run(["report"], scored.stdout);
  assert.equal(reported.code, 0, reported.stderr);
  const summary = JSON.parse(reported.stdout);
  assert.deepEqual(summary.configurations[0].overall.success, { passed: 3, total: 4, rate: 0.75 });
  assert.equal(summary.configurations[0].k_max, 4);
  // One scenario, 3 of 4: pass^2 = C(3,2)/C(4,2) = 3/6.
  assert.equal(summary.configurations[0].overall.pass_hat_k[1].pass_hat_k, 0.5);

  const gated = await run(["report", "--min-success-rate", "0.8"], scored.stdout);
  assert.equal(gated.code, 1);
  assert.match(gated.stderr, /success rate 75\.0% is below the minimum 80\.0%/);
});

Deno.test("cli: a bad trial record exits 2 with one located line and no stack", async () => {
  const bad = { ...records[1], clean_exit: "yes" };
  const r = await run(["score"], jsonl([records[0], bad]));
  assert.equal(r.code, 2);
  assert.equal(
    r.stderr.trimEnd(),
    '<stdin>:2: field "clean_exit": invalid trial record: Invalid input: expected boolean, received string',
  );
  assert.equal(r.stdout.trimEnd().split("\n").length, 1, "the first record was scored");
});

Deno.test("cli: score and report with nothing to read exit 2 saying so, so a pipeline that failed upstream fails", async () => {
  const score = await run(["score"], "");
  assert.equal(score.code, 2, score.stderr);
  assert.match(score.stderr, /no trial records on stdin/);
  const report = await run(["report"], "");
  assert.equal(report.code, 2, report.stderr);
  assert.match(report.stderr, /no verdicts on stdin/);
  assert.equal(report.stdout, "", "no empty summary");
});

Deno.test("cli: score DIR and report DIR read an eval --out folder", async () => {
  const dir = await Deno.makeTempDir({ prefix: "callbench-run-" });
  try {
    Deno.writeTextFileSync(`${dir}/trials.jsonl`, jsonl(records));
    const scored = await run(["score", dir], "");
    assert.equal(scored.code, 0, scored.stderr);
    assert.equal(scored.stdout.trimEnd().split("\n").length, 4);
    // report DIR: the folder's trials, scored on the way (no verdicts.jsonl yet).
    const fromTrials = await run(["report", dir], "");
    assert.equal(fromTrials.code, 0, fromTrials.stderr);
    assert.equal(JSON.parse(fromTrials.stdout).configurations[0].overall.success.passed, 3);
    // With a verdicts.jsonl, report reads that.
    Deno.writeTextFileSync(`${dir}/verdicts.jsonl`, scored.stdout);
    const fromVerdicts = await run(["report", dir], "");
    assert.equal(fromVerdicts.stdout, fromTrials.stdout);
    // An empty folder: said, exit 2 (not "Is a directory").
    const empty = await Deno.makeTempDir({ dir });
    const none = await run(["score", empty], "");
    assert.equal(none.code, 2);
    assert.match(none.stderr, /the folder holds no trials\.jsonl/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

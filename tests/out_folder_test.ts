/** `eval --out`: an existing folder is continued, added to, or refused; never silently doubled. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { cli } from "./_cli.ts";

const lines = (text: string) => text.trim().split("\n").filter(Boolean);

Deno.test("eval: an --out folder holding records is refused without --resume or --append", async () => {
  const dir = join(await Deno.makeTempDir({ prefix: "callbench-out-" }), "run");
  const args = ["eval", "--domain", "tau2_retail", "--agent", "oracle", "--out", dir];
  const first = await cli(args);
  assert.equal(first.code, 0, first.stderr);
  const again = await cli(args);
  assert.equal(again.code, 2);
  assert.equal(again.stdout, "");
  assert.match(again.stderr, /holds 3 trial record\(s\) already/);
  assert.match(again.stderr, /--resume continues the run in it, --append adds to it/);
  assert.equal(lines(Deno.readTextFileSync(join(dir, "trials.jsonl"))).length, 3);
  // --append is an explicit request to add.
  const appended = await cli([...args, "--append"]);
  assert.equal(appended.code, 0, appended.stderr);
  assert.equal(lines(Deno.readTextFileSync(join(dir, "trials.jsonl"))).length, 6);
});

Deno.test("eval --resume into a pipe re-emits the folder's records, so score | report see the whole run", async () => {
  const dir = join(await Deno.makeTempDir({ prefix: "callbench-out-" }), "run");
  const base = ["eval", "--domain", "tau2_retail", "--agent", "oracle", "--out", dir];
  const first = await cli([...base, "--trials", "1"]);
  assert.equal(first.code, 0, first.stderr);
  const resumed = await cli([...base, "--trials", "2", "--resume"]);
  assert.equal(resumed.code, 0, resumed.stderr);
  const records = lines(resumed.stdout).map((l) => JSON.parse(l));
  assert.equal(records.length, 6);
  // The three held records come first, byte for byte as the folder holds them (in plan
  // order; the first run printed them as they finished).
  assert.deepEqual(lines(resumed.stdout).slice(0, 3).sort(), lines(first.stdout).sort());
  assert.deepEqual(records.map((r) => r.key.trial).sort(), [0, 0, 0, 1, 1, 1]);
  const scored = await cli(["score"], resumed.stdout);
  const report = await cli(["report", "--format", "json"], scored.stdout);
  assert.equal(report.code, 0, report.stderr);
  assert.equal(JSON.parse(report.stdout).configurations[0].overall.trials, 6);
});

Deno.test("eval: with stderr not a terminal, plain progress lines say done, failed and errors", async () => {
  // noop fails the retail tasks that change the world: they count as failed.
  const r = await cli(["eval", "--domain", "tau2_retail", "--agent", "noop", "--trials", "2"]);
  assert.equal(r.code, 0, r.stderr);
  const progress = r.stderr.split("\n").filter((l) => /^eval: \d+\/6 /.test(l));
  assert.ok(progress.length >= 2, r.stderr);
  assert.match(progress.at(-1)!, /^eval: 6\/6 done \(100%\), \d+ passed, \d+ failed, [\d.]+\/s$/);
});

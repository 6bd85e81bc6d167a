/**
 * Sharding: four shards run separately and merged with `cat | score | report` give
 * the same report as one unsharded run.
 */
import assert from "node:assert/strict";
import { cli } from "./_cli.ts";

async function pipeline(stdin: string) {
  const scored = await cli(["score"], stdin);
  assert.equal(scored.code, 0, scored.stderr);
  const report = await cli(["report"], scored.stdout);
  assert.equal(report.code, 0, report.stderr);
  return { verdicts: scored.stdout, report: JSON.parse(report.stdout) };
}

Deno.test("four shards merged equal the unsharded run", async () => {
  const args = [
    "eval",
    "--agent",
    "oracle",
    "--trials",
    "3",
    "scenarios/flows",
    "--domain",
    "eva_airline",
    "--domain",
    "tau2_retail",
  ];
  const whole = await cli(args);
  assert.equal(whole.code, 0, whole.stderr);
  const wholeLines = whole.stdout.trim().split("\n");
  const shards = await Promise.all([0, 1, 2, 3].map((i) => cli([...args, "--shard", `${i}/4`])));
  const shardLines = shards.flatMap((s) => {
    assert.equal(s.code, 0, s.stderr);
    return s.stdout.trim().split("\n").filter(Boolean);
  });
  assert.equal(shardLines.length, wholeLines.length);
  assert.ok(shards.every((s) => s.stdout.trim() !== ""), "every shard gets work");
  const merged = await pipeline(shardLines.join("\n") + "\n");
  const single = await pipeline(wholeLines.join("\n") + "\n");
  // Order of lines differs; the verdict set and the report do not.
  assert.deepEqual(
    merged.verdicts.trim().split("\n").sort(),
    single.verdicts.trim().split("\n").sort(),
  );
  assert.deepEqual(merged.report, single.report);
  // A shard re-run (duplicate lines) changes nothing: report de-duplicates by trial key.
  const again = shards[0]!.stdout.trim().split("\n");
  const twice = await pipeline([...shardLines, ...again].join("\n") + "\n");
  assert.equal(twice.report.input.duplicates, again.length);
  assert.deepEqual({ ...twice.report, input: undefined }, { ...single.report, input: undefined });
});

/**
 * `eval --concurrency N` (issue 35 item 4): a run that makes fewer trials at once than
 * asked says so once on stderr (how many, and why), every record carries the
 * concurrency asked and used, and `--strict` runs exactly N or refuses before any call.
 * Through the CLI; the real-time run against `serve --audio` over loopback.
 */
import assert from "node:assert/strict";
import { BUNDLED_DATA_ROOT, DataRoot } from "../src/scenario/data_root.ts";
import { FliteTts } from "../src/speech/tts_flite.ts";
import { cli } from "./_cli.ts";
import { serveBuiltin } from "./_serve.ts";
import type { TrialRecord } from "../src/runner/trial_record.ts";

const records = (stdout: string) =>
  stdout.trim().split("\n").map((l) => JSON.parse(l) as TrialRecord);

Deno.test("eval --concurrency 10 over 3 trials says it runs 3 at once, once; --strict refuses", async () => {
  const args = ["eval", "--domain", "tau2_retail", "--agent", "oracle", "--concurrency", "10"];
  const r = await cli(args);
  assert.equal(r.code, 0, r.stderr);
  const said = r.stderr.split("\n").filter((l) => /at once/.test(l));
  assert.deepEqual(said, [
    "eval: running 3 trial(s) at once, not the 10 asked: only 3 trial(s) to run",
  ]);
  for (const rec of records(r.stdout)) {
    assert.deepEqual(rec.concurrency, {
      requested: 10,
      used: 3,
      why: "only 3 trial(s) to run",
    });
  }
  const strict = await cli([...args, "--strict"]);
  assert.equal(strict.code, 2, strict.stderr);
  assert.equal(strict.stdout, "");
  assert.match(strict.stderr, /cannot run 10 trials at once as asked: only 3 trial\(s\) to run/);
  // As many as asked: nothing said, and the records say so.
  const exact = await cli([
    "eval",
    "--domain",
    "tau2_retail",
    "--agent",
    "oracle",
    "--concurrency",
    "3",
    "--strict",
  ]);
  assert.equal(exact.code, 0, exact.stderr);
  assert.doesNotMatch(exact.stderr, /at once/);
  for (const rec of records(exact.stdout)) {
    assert.deepEqual(rec.concurrency, { requested: 3, used: 3 });
  }
  const lone = await cli(["eval", "--domain", "tau2_retail", "--agent", "oracle", "--strict"]);
  assert.equal(lone.code, 2);
  assert.match(lone.stderr, /--strict.*needs --concurrency/);
});

Deno.test({
  name: "eval --audio --concurrency 8 --strict against serve --audio: 8 real-time calls at once",
  sanitizeOps: false,
  fn: async () => {
    const root = new DataRoot(BUNDLED_DATA_ROOT);
    const tts = new FliteTts({ sampleRate: 24000 });
    const server = await serveBuiltin(root, {
      audio: { enabled: true, options: () => ({ tts, outputRate: 24000 }) },
    });
    try {
      const run = await cli([
        "eval",
        "--domain",
        "eva_airline",
        "--trials",
        "2",
        "--agent",
        `${server.url}?agent=noop`,
        "--audio",
        "--concurrency",
        "8",
        "--strict",
      ]);
      assert.equal(run.code, 0, run.stderr);
      const rs = records(run.stdout);
      assert.equal(rs.length, 8);
      for (const r of rs) {
        assert.equal(r.clock, "real");
        assert.deepEqual(r.concurrency, { requested: 8, used: 8 });
      }
      // Every call overlapped every other: 8 at once, none held back by a gate.
      const spans = rs.map((r) => {
        const start = Date.parse(r.started_at);
        return [start, start + r.duration_ms] as const;
      });
      const latestStart = Math.max(...spans.map(([s]) => s));
      const earliestEnd = Math.min(...spans.map(([, e]) => e));
      assert.ok(latestStart < earliestEnd, JSON.stringify(spans));
    } finally {
      await server.shutdown();
      await tts.close();
    }
  },
});

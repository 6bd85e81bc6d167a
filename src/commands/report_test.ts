import { deepEqual as assertEquals, equal, ok, rejects } from "node:assert/strict";
import { memoryIo } from "../cli/io.ts";
import { InputError } from "../cli/problem.ts";
import { trialRecord } from "../score/_trial_fixture.ts";
import { scoreTrial } from "../score/score_trial.ts";
import { ReportSchema } from "../report/summary.ts";
import { command } from "./report.ts";

const verdict = (trial: number, success: boolean, extra = {}) =>
  scoreTrial(trialRecord({ key: { trial }, clean_exit: success, ...extra }));
const lines = (...vs: unknown[]) => vs.map((v) => JSON.stringify(v)).join("\n") + "\n";

Deno.test("report prints a JSON summary that matches its schema", async () => {
  const io = memoryIo(lines(verdict(0, true), verdict(1, false)));
  equal(await command.main([], io), 0);
  const report = ReportSchema.parse(JSON.parse(io.stdout.join("\n")));
  assertEquals(report.overall.success, { passed: 1, total: 2, rate: 0.5 });
});

Deno.test("report merges shards: the last verdict of a trial key wins", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/a.jsonl`, lines(verdict(0, false), verdict(1, true)));
    await Deno.writeTextFile(`${dir}/b.jsonl`, lines(verdict(0, true)));
    const io = memoryIo();
    await command.main([`${dir}/a.jsonl`, `${dir}/b.jsonl`], io);
    const report = JSON.parse(io.stdout.join("\n"));
    assertEquals(report.overall.success, { passed: 2, total: 2, rate: 1 });
    assertEquals(report.input.duplicates, 1);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("report --min-success-rate exits 1 below the bar", async () => {
  const input = lines(verdict(0, true), verdict(1, false));
  const below = memoryIo(input);
  equal(await command.main(["--min-success-rate", "0.75"], below), 1);
  ok(below.stderr[0]!.includes("50.0% is below the minimum 75.0%"));
  equal(await command.main(["--min-success-rate", "0.5"], memoryIo(input)), 0);
  await rejects(command.main(["--min-success-rate", "75"], memoryIo(input)), InputError);
});

Deno.test("report --exclude-errors leaves infrastructure errors out of the rates", async () => {
  const error = verdict(2, false, {
    status: "error",
    error: { kind: "agent_unreachable", message: "refused" },
  });
  const input = lines(verdict(0, true), error);
  const all = memoryIo(input);
  await command.main([], all);
  assertEquals(JSON.parse(all.stdout.join("\n")).overall.success.rate, 0.5);
  const io = memoryIo(input);
  await command.main(["--exclude-errors"], io);
  const report = JSON.parse(io.stdout.join("\n"));
  assertEquals(report.overall.success.rate, 1);
  assertEquals(report.input.errors, { agent_unreachable: 1 });
});

Deno.test("report --format md and html", async () => {
  const input = lines(verdict(0, true), verdict(1, false));
  const md = memoryIo(input);
  await command.main(["--format", "md"], md);
  ok(md.stdout.join("\n").includes("| success rate | 50.0% (1/2) |"));
  const html = memoryIo(input);
  await command.main(["--format", "html"], html);
  const page = html.stdout.join("\n");
  ok(page.includes('id="scenario-table"'));
  // The html format keeps transcripts.
  ok(page.includes("Hello, how can I help?"));
  await rejects(command.main(["--format", "pdf"], memoryIo(input)), InputError);
});

Deno.test("report names the line and field of an invalid verdict", async () => {
  const bad = { ...verdict(1, true), is_successful: "yes" };
  await rejects(command.main([], memoryIo(lines(verdict(0, true), bad))), (e: unknown) => {
    ok(e instanceof InputError);
    assertEquals([e.problems[0]!.line, e.problems[0]!.field], [2, "is_successful"]);
    return true;
  });
});

Deno.test("report --format json is one line", async () => {
  const io = memoryIo(lines(verdict(0, true), verdict(1, false)));
  equal(await command.main(["--format", "json"], io), 0);
  equal(io.stdout.length, 1);
  ok(!io.stdout[0]!.includes("\n"));
  ReportSchema.parse(JSON.parse(io.stdout[0]!));
});

Deno.test("report --min-success-rate holds each configuration to the bar", async () => {
  const input = lines(
    verdict(0, true, { label: "good", key: { trial: 0, config_hash: "a" } }),
    verdict(0, false, { label: "bad", key: { trial: 0, config_hash: "b" } }),
  );
  const io = memoryIo(input);
  // Pooled, the rate is 50%; the "bad" configuration's is 0%.
  equal(await command.main(["--min-success-rate", "0.5"], io), 1);
  ok(io.stderr.some((l) => /configuration bad 0\.0% is below the minimum 50\.0%/.test(l)));
});

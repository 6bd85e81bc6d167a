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
  assertEquals(report.configurations[0]!.overall.success, { passed: 1, total: 2, rate: 0.5 });
});

Deno.test("report merges shards: the last verdict of a trial key wins", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/a.jsonl`, lines(verdict(0, false), verdict(1, true)));
    await Deno.writeTextFile(`${dir}/b.jsonl`, lines(verdict(0, true)));
    const io = memoryIo();
    await command.main([`${dir}/a.jsonl`, `${dir}/b.jsonl`], io);
    const report = JSON.parse(io.stdout.join("\n"));
    assertEquals(report.configurations[0]!.overall.success, { passed: 2, total: 2, rate: 1 });
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
  assertEquals(JSON.parse(all.stdout.join("\n")).configurations[0].overall.success.rate, 0.5);
  const io = memoryIo(input);
  await command.main(["--exclude-errors"], io);
  const report = JSON.parse(io.stdout.join("\n"));
  assertEquals(report.configurations[0]!.overall.success.rate, 1);
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

/** A full suite's verdicts: `scenarios` scenarios × 4 trials × two configurations, half failing. */
function fullSuite(scenarios: number): string {
  const vs: unknown[] = [];
  for (const [label, config] of [["v1", "c1"], ["v2", "c2"]] as const) {
    for (let s = 0; s < scenarios; s++) {
      for (let t = 0; t < 4; t++) {
        const name = `tau2_retail__a_long_scenario_name_of_the_suite_${String(s).padStart(4, "0")}`;
        vs.push(verdict(t, (s + t + (label === "v2" ? 1 : 0)) % 2 === 0, {
          label,
          suite: "tau2_retail",
          key: { scenario: name, trial: t, config_hash: config },
        }));
      }
    }
  }
  return lines(...vs);
}

Deno.test("report --format md fits a pull-request comment: headline and tables kept, failures as many as fit", async () => {
  const input = fullSuite(300);
  const io = memoryIo(input);
  equal(await command.main(["--format", "md", "--failures-only"], io), 0);
  const md = io.stdout.join("\n");
  ok(md.length < 60_000, `${md.length} characters`);
  ok(md.includes("- **v1** (config c1): **Success"), "the headline of each configuration");
  ok(md.includes("- **v2** (config c2): **Success"));
  ok(md.includes("### Per suite") && md.includes("### Signals"));
  ok(md.includes("### Failures (1200 trial(s))"));
  const left =
    /Left out to stay under 60000 characters: (\d+) failure\(s\) and (\d+) per-scenario row\(s\)/
      .exec(md);
  ok(left, md.slice(-500));
  const shown = md.split("\n").filter((l) => l.startsWith("- tau2")).length;
  // The two failed trials of a scenario and configuration fail alike: one item.
  ok(md.includes("· trials 1, 3: **clean_exit**"), md.slice(0, 3000));
  equal(shown + Number(left[1]), 600);
  ok(shown > 100, `${shown} failures shown`);

  // A tighter bound keeps the fixed part; 0 means no bound.
  const tight = memoryIo(input);
  await command.main(["--format", "md", "--max-chars", "9000"], tight);
  ok(tight.stdout.join("\n").length <= 9000);
  const unbounded = memoryIo(input);
  await command.main(["--format", "md", "--max-chars", "0"], unbounded);
  ok(!unbounded.stdout.join("\n").includes("Left out"));
});

Deno.test("report --failures-only lists only the scenarios that failed", async () => {
  const pass = (trial: number) =>
    verdict(trial, true, { key: { scenario: "s__pass", trial }, suite: "s" });
  const fail = (trial: number) =>
    verdict(trial, trial === 0, { key: { scenario: "s__flaky", trial }, suite: "s" });
  const io = memoryIo(lines(pass(0), pass(1), fail(0), fail(1)));
  await command.main(["--format", "md", "--failures-only"], io);
  const md = io.stdout.join("\n");
  ok(md.includes("Scenarios with failures (1)"), md);
  ok(md.includes("| s__flaky |") && !md.includes("| s__pass |"));
  ok(md.includes("- s__flaky · trial 1: **clean_exit**"));
});

Deno.test("report --baseline shows each configuration as a delta from the baseline", async () => {
  const input = fullSuite(20);
  const io = memoryIo(input);
  equal(await command.main(["--baseline", "v1"], io), 0);
  const report = ReportSchema.parse(JSON.parse(io.stdout[0]!));
  equal(report.baseline?.label, "v1");
  equal(report.baseline?.comparisons.length, 1);
  const c = report.baseline!.comparisons[0]!;
  assertEquals([c.a.name, c.b.name], ["v1", "v2"]);
  ok(c.scopes[0]!.metrics.some((m) => m.metric === "success" && m.delta === 0));
  const md = memoryIo(input);
  await command.main(["--format", "md", "--baseline", "v1"], md);
  ok(md.stdout.join("\n").includes("### Against the baseline v1"));
  await rejects(command.main(["--baseline", "v3"], memoryIo(input)), /labels read: v1, v2/);
});

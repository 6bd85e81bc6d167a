import { deepEqual as assertEquals, equal, ok, rejects } from "node:assert/strict";
import { join } from "node:path";
import { memoryIo } from "../cli/io.ts";
import type { InputError } from "../cli/problem.ts";
import { ComparisonSchema } from "../report/compare.ts";
import { command as evalCommand } from "./eval.ts";
import { command } from "./compare.ts";

/** Four trials of each eva_airline fixture scenario by `agent`, into `dir` (label = agent). */
async function run(dir: string, agent: string): Promise<string> {
  const out = join(dir, agent);
  const io = memoryIo("", { EVAL_DATA_ROOT: "fixtures" });
  const args = ["--domain", "eva_airline", "--agent", agent, "--trials", "4", "--label", agent];
  equal(await evalCommand.main([...args, "--out", out, "--workers", "0"], io), 0);
  return out;
}

Deno.test("compare: oracle vs noop on eva_airline shows the flips and the significant regression", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const oracle = await run(dir, "oracle");
    const noop = await run(dir, "noop");

    const io = memoryIo();
    equal(await command.main([oracle, noop], io), 0);
    const c = ComparisonSchema.parse(JSON.parse(io.stdout.join("\n")));
    assertEquals([c.a.trials, c.b.trials], [16, 16]);
    assertEquals(c.k_max, 4);
    const success = c.scopes[0]!.metrics.find((m) => m.metric === "success")!;
    equal(success.a, 1);
    ok(success.b! < 1);
    ok(success.significant && success.change === "regression", JSON.stringify(success));
    ok(c.regressions.some((r) => r.scope === "overall" && r.metric === "success"));
    ok(c.flips.length > 0 && c.flips.every((f) => f.direction === "regressed"));
    const flip = c.flips.find((f) => f.scenario === "eva_airline__1_4_1")!;
    assertEquals([flip.a, flip.b], [{ passed: 4, scored: 4 }, { passed: 0, scored: 4 }]);
    // The first failing signal says where the world is wrong, not two hashes.
    equal(flip.first_failure?.signal, "db_state_match");
    ok(
      /^final world differs at \d+ path\(s\): journeys\..* expected 10, got 9$/.test(
        flip.first_failure!.summary,
      ),
      flip.first_failure?.summary,
    );

    // --fail-on-regression exits 1 and names what got worse.
    const failing = memoryIo();
    equal(await command.main([oracle, noop, "--fail-on-regression", "--format", "md"], failing), 1);
    ok(failing.stderr.some((l) => l.startsWith("compare: regression: overall success: 100.0% →")));
    const md = failing.stdout.join("\n");
    ok(md.includes("### Changed scenarios"), md);
    ok(md.includes("▼ worse"));
    // The same run on both sides: nothing changed, exit 0.
    equal(await command.main([oracle, oracle, "--fail-on-regression"], memoryIo()), 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("compare picks two labels out of one file of verdicts", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const both = [await run(dir, "oracle"), await run(dir, "noop")].map((d) =>
      Deno.readTextFileSync(join(d, "trials.jsonl"))
    ).join("");
    const io = memoryIo(both);
    equal(await command.main(["oracle", "noop", "--format", "html"], io), 0);
    ok(io.stdout.join("\n").includes("regression(s): "));
    await rejects(command.main(["oracle", "v9"], memoryIo(both)), (e: InputError) => {
      ok(e.message.includes("labels read: noop, oracle"), e.message);
      return true;
    });
    // A name that is no file, at a terminal without --in: said at once, not waited on.
    const tty = { ...memoryIo(), stdinIsTerminal: true };
    await rejects(
      command.main([join(dir, "oracle"), "typo.jsonl"], tty),
      /neither a file nor a folder/,
    );
    // One file of two configurations is not one run.
    const file = join(dir, "both.jsonl");
    Deno.writeTextFileSync(file, both);
    await rejects(command.main([file, file], memoryIo()), /holds 2 configurations/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("compare --help states every threshold of the gate; a bad --gate is an input error naming the flag", async () => {
  for (
    const part of [
      "--gate LIST",
      "success,pass^k,latency.p95",
      "+100ms and +10%",
      "at least 20 samples",
      "at least\n                2 trials on each side",
      "interaction.yield_rate",
      "Holm-Bonferroni over the gated tests",
    ]
  ) ok(command.help.includes(part), part);
  await rejects(command.main(["a", "b", "--gate", "succes"], memoryIo()), (e: InputError) => {
    equal(e.problems[0]!.field, "--gate");
    ok(e.message.includes('"succes" is not a figure the gate knows'), e.message);
    return true;
  });
  await rejects(
    command.main(["a", "b", "--min-latency-delta=-5ms"], memoryIo()),
    /--min-latency-delta.*points the better way/,
  );
});

Deno.test("compare --fail-on-regression explains the gate line by line on stderr; --gate picks what it checks", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const oracle = await run(dir, "oracle");
    const noop = await run(dir, "noop");
    const io = memoryIo();
    equal(await command.main([oracle, noop, "--fail-on-regression", "--format", "md"], io), 1);
    const gate = io.stderr.filter((l) => l.startsWith("compare: gate: "));
    ok(
      gate.some((l) =>
        /^compare: gate: overall success: 100\.0% → \d+\.\d%: .*: regression$/.test(l)
      ),
      gate.join("\n"),
    );
    ok(
      gate.some((l) =>
        l === "compare: gate: overall latency.p95: not measured in both runs: not gated"
      ),
    );
    ok(
      io.stderr.includes("compare: regression: scenario eva_airline__1_4_1: 4/4 → 0/4"),
      io.stderr.join("\n"),
    );
    ok(io.stdout.join("\n").includes("### Gate"));
    // Gating latency alone: the noop's failures are not what it checks.
    const latency = memoryIo();
    equal(
      await command.main([oracle, noop, "--fail-on-regression", "--gate", "latency.p95"], latency),
      0,
    );
    ok(latency.stderr.includes("compare: no regression"), latency.stderr.join("\n"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** The README's examples, run as a reader would run them. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type Captured, cli, spawnCapture } from "./_cli.ts";
import { serveBuiltin } from "./_serve.ts";
import { openDataRoot } from "../src/scenario/data_root.ts";

const README = Deno.readTextFileSync(new URL("../README.md", import.meta.url));

/** The fenced block of `lang` whose text starts with `start`. */
function block(lang: string, start: string): string {
  const open = README.indexOf("```" + lang + "\n" + start);
  assert.ok(open >= 0, `README has a ${lang} block starting ${start}`);
  const body = open + lang.length + 4;
  return README.slice(body, README.indexOf("```", body));
}

Deno.test("README: the from-scratch scenario is refused as shown, then gold, validate and the oracle pass", async () => {
  const dir = await Deno.makeTempDir({ prefix: "callbench-readme-" });
  const file = join(dir, "mine.yaml");
  Deno.writeTextFileSync(file, block("yaml", "name: mine__lamp_exchange"));
  // "validate refuses this as it stands: db_state_match needs expect.db_sha256"
  const refused = await cli(["validate", file]);
  assert.equal(refused.code, 2, refused.stderr);
  assert.match(refused.stderr, /db_state_match/);
  const gold = await cli(["gold", file]);
  assert.equal(gold.code, 0, gold.stderr);
  const hash = JSON.parse(gold.stdout.trim()).expected_db_sha256 as string;
  assert.match(hash, /^[0-9a-f]{64}$/);
  Deno.writeTextFileSync(
    file,
    Deno.readTextFileSync(file).replace(
      "expect:\n",
      `expect:\n  db_sha256: "${hash}"\n`,
    ),
  );
  const valid = await cli(["validate", file]);
  assert.equal(valid.code, 0, valid.stderr);
  const ev = await cli(["eval", file, "--agent", "oracle"]);
  assert.equal(ev.code, 0, ev.stderr);
  const verdict = JSON.parse((await cli(["score"], ev.stdout)).stdout.trim());
  assert.equal(verdict.is_successful, true, JSON.stringify(verdict.signals));
  assert.equal(verdict.signals.clean_exit, true);
  assert.equal(verdict.signals.db_state_match, true);
});

/** A shell pipeline's stages (`a \ | b | c`), each as its argument words after `deno task -q cli`. */
function stages(sh: string): string[][] {
  return sh.replace(/\\\n/g, " ").split("|").map((stage) => {
    const words = stage.trim().split(/\s+/);
    assert.deepEqual(words.slice(0, 4), ["deno", "task", "-q", "cli"], stage);
    return words.slice(4);
  });
}

Deno.test("README: the pipeline runs as written, against a served agent and the bundled data", async () => {
  const server = await serveBuiltin(openDataRoot()); // the oracle by default
  const dir = await Deno.makeTempDir({ prefix: "callbench-readme-" });
  try {
    const pipeline = stages(block("sh", "deno task -q cli list"));
    assert.equal(pipeline.length, 4);
    let input = "";
    for (const args of pipeline) {
      const words = args.map((w) =>
        w === "ws://127.0.0.1:8765/ws" ? server.url : w === "runs/today" ? join(dir, "today") : w
      );
      // The bundled fixtures stand in for the benchmark data the README points at.
      const i = words.indexOf("--data-root");
      if (i >= 0) words.splice(i, 2);
      const r = await cli(words, input);
      assert.equal(r.code, 0, `${words.join(" ")}: ${r.stderr}`);
      input = r.stdout;
    }
    assert.match(input, /\| eva_airline/);
    assert.equal(
      Deno.readTextFileSync(join(dir, "today", "trials.jsonl")).trim().split("\n").length,
      4 * 4, // the bundled eva fixture's 4 scenarios, 4 trials each
    );
    // The jq line reads the folder the pipeline wrote.
    const jq = block("sh", "deno task -q cli score runs/today");
    const [scoreArgs, filter] = jq.trim().split(/ \| jq -r /);
    const scored = await cli(
      scoreArgs!.split(/\s+/).slice(4).map((w) =>
        w === "runs/today/trials.jsonl" ? join(dir, "today", "trials.jsonl") : w
      ),
    );
    assert.equal(scored.code, 0, scored.stderr);
    let result: Captured;
    try {
      result = await spawnCapture("jq", ["-r", filter!.replace(/^'|'$/g, "")], {
        stdin: scored.stdout,
      });
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) throw e;
      // No jq here (.ci/run installs it): the filter's meaning, checked without it.
      console.log("jq is not installed: its README line is checked without it");
      const failing = scored.stdout.trim().split("\n").map((l) => JSON.parse(l))
        .filter((v) => v.is_successful !== true);
      assert.deepEqual(failing, []);
      return;
    }
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, ""); // the served oracle passes all
    // The report's jq line: one line per configuration, its own success rate.
    const reportLine = block(
      "sh",
      "deno task -q cli score runs/today/trials.jsonl | deno task -q cli report",
    );
    const [reportArgs, reportFilter] = reportLine.trim().split(/ \| jq -r /);
    const [, reportStage] = stages(reportArgs!);
    const report = await cli(reportStage!, scored.stdout);
    assert.equal(report.code, 0, report.stderr);
    const perConfig = await spawnCapture("jq", ["-r", reportFilter!.replace(/^'|'$/g, "")], {
      stdin: report.stdout,
    });
    assert.equal(perConfig.code, 0, perConfig.stderr);
    assert.match(perConfig.stdout, /^\S+ 1\n$/);
  } finally {
    await server.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("README: the flow example validates", async () => {
  const dir = await Deno.makeTempDir({ prefix: "callbench-readme-" });
  const file = join(dir, "clinic.flow.yaml");
  Deno.writeTextFileSync(file, block("yaml", "nodes:"));
  const r = await cli(["validate", file]);
  assert.equal(r.code, 0, r.stderr);
});

Deno.test("README: compare, report --baseline, explain and tools run as written", async () => {
  const dir = await Deno.makeTempDir({ prefix: "callbench-readme-" });
  try {
    // Two runs of the bundled eva fixtures: the oracle before (v1), the noop agent after (v2).
    const verdicts: string[] = [];
    for (const [name, agent, label] of [["before", "oracle", "v1"], ["after", "noop", "v2"]]) {
      const out = join(dir, name!);
      const args = ["--domain", "eva_airline", "--agent", agent!, "--trials", "4"];
      const ev = await cli(["eval", ...args, "--label", label!, "--out", out]);
      assert.equal(ev.code, 0, ev.stderr);
      verdicts.push((await cli(["score", join(out, "trials.jsonl")])).stdout);
    }
    Deno.writeTextFileSync(join(dir, "all.jsonl"), verdicts.join(""));
    const paths: Record<string, string> = {
      "runs/before": join(dir, "before"),
      "runs/after": join(dir, "after"),
      "all.jsonl": join(dir, "all.jsonl"),
    };
    const lines = block("sh", "deno task -q cli compare").trim().split("\n");
    assert.equal(lines.length, 4);
    const expected = [
      { code: 1, out: /\*\*\d+ regression\(s\)\*\*/ }, // --fail-on-regression: noop is worse
      { code: 0, out: /### Against the baseline v1/ },
      { code: 0, out: /db_state_match: final world differs at \d+ path/ },
      { code: 0, out: /^tau2_retail: \d+ tools/ },
    ];
    for (const [i, line] of lines.entries()) {
      const words = line.replace(/\s+#.*$/, "").trim().split(/\s+/);
      assert.deepEqual(words.slice(0, 4), ["deno", "task", "-q", "cli"], line);
      const r = await cli(words.slice(4).map((w) => paths[w] ?? w));
      assert.equal(r.code, expected[i]!.code, `${line}: ${r.stderr}`);
      assert.match(r.stdout, expected[i]!.out, line);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("README: each eva scenario it names is a bundled fixture, or the one it names for the benchmark", async () => {
  const { selectScenarios } = await import("../src/scenario/suites.ts");
  const fixtures = (await selectScenarios(openDataRoot(), { domains: ["eva_airline"] })).scenarios
    .map((s) => s.name);
  const named = new Set(README.match(/eva_airline__\d+_\d+_\d+/g) ?? []);
  for (const n of named) {
    // 1_1_2 is where the README says that eva seeds answer to their numbered names.
    const benchmark = ["eva_airline__1_1_3", "eva_airline__1_1_2"];
    assert.ok(fixtures.includes(n) || benchmark.includes(n), `${n} is in neither`);
  }
  // The README lists the fixtures' eva scenarios as they are.
  assert.match(
    README,
    /The fixtures' eva scenarios \(`eva_airline__1_4_1`,\s+`2_5_1`,\s+`5_3_1`,\s+`7_5_1`\)/,
  );
  assert.deepEqual(fixtures, [
    "eva_airline__1_4_1",
    "eva_airline__2_5_1",
    "eva_airline__5_3_1",
    "eva_airline__7_5_1",
  ]);
});

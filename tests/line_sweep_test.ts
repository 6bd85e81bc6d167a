/**
 * `eval --line clean,phone,street@10`: a sweep in one run, each line its own
 * configuration, then `report --baseline clean` with each line's success, pass^k and
 * latency as deltas from clean (95% interval, McNemar, Holm-Bonferroni), through the
 * CLI with the task's permissions, on the bundled data and the simulated clock.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { cli } from "./_cli.ts";

/** `eval` of the bundled eva scenarios by the oracle in audio, with `more` flags. */
const evalEva = (...more: string[]) =>
  cli(["eval", "--domain", "eva_airline", "--agent", "oracle", "--audio", ...more]);

Deno.test("eval --line sweep: one configuration per line, and report --baseline clean gives each line's deltas", async () => {
  const dir = await Deno.makeTempDir({ prefix: "callbench-sweep-" });
  try {
    const out = join(dir, "run");
    const sweep = ["--line", "clean,phone,street@10", "--trials", "2", "--out", out];
    const ev = await evalEva(...sweep);
    assert.equal(ev.code, 0, ev.stderr);
    const records = ev.stdout.trim().split("\n").map((l) => JSON.parse(l));
    // The bundled eva fixture's 4 scenarios, 2 trials each, under each of 3 lines.
    assert.equal(records.length, 3 * 4 * 2);
    const byLabel = Map.groupBy(records, (r) => r.label as string);
    assert.deepEqual([...byLabel.keys()].sort(), ["clean", "phone", "street@10"]);
    const hashes = new Set(records.map((r) => r.key.config_hash));
    assert.equal(hashes.size, 3, "each line is its own configuration");
    for (const [label, rs] of byLabel) {
      assert.equal(rs.length, 8);
      assert.equal(new Set(rs.map((r) => r.key.config_hash)).size, 1);
      // The line the caller's audio crossed, as given.
      for (const r of rs) assert.equal(r.audio.line?.preset ?? "clean", label, label);
    }
    // The folder holds the whole sweep.
    const kept = (await Deno.readTextFile(join(out, "trials.jsonl"))).trim().split("\n");
    assert.equal(kept.length, 24);

    // Resumed with stdout piped: nothing to run, and the whole sweep re-emitted.
    const again = await evalEva(...sweep, "--resume");
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stderr, /0 trial\(s\) run, 24 already done/);
    assert.equal(again.stdout.trim().split("\n").length, 24);

    const scored = await cli(["score", join(out, "trials.jsonl")]);
    assert.equal(scored.code, 0, scored.stderr);
    for (const v of scored.stdout.trim().split("\n").map((l) => JSON.parse(l))) {
      assert.equal(v.metrics.clock, "simulated");
    }
    const rep = await cli(["report", "--baseline", "clean"], scored.stdout);
    assert.equal(rep.code, 0, rep.stderr);
    const report = JSON.parse(rep.stdout);
    assert.deepEqual(report.configurations.map((c: { label: string }) => c.label), [
      "clean",
      "phone",
      "street@10",
    ]);
    // The text-driven oracle keeps every trial under every line.
    for (const c of report.configurations) assert.equal(c.overall.success.rate, 1, c.label);
    assert.equal(report.baseline.label, "clean");
    const comparisons = report.baseline.comparisons;
    assert.deepEqual(comparisons.map((c: { b: { name: string } }) => c.b.name), [
      "phone",
      "street@10",
    ]);
    for (const c of comparisons) {
      assert.equal(c.a.name, "clean");
      const overall = c.scopes.find((s: { scope: string }) => s.scope === "overall");
      assert.equal(overall.scenarios, 4);
      const metric = (name: string) =>
        overall.metrics.find((m: { metric: string }) => m.metric === name);
      const success = metric("success");
      assert.equal(success.test, "mcnemar");
      assert.deepEqual([success.a, success.b, success.delta, success.p], [1, 1, 0, 1]);
      assert.ok(success.ci95 && success.p_holm !== null);
      // pass^K (K = 2) is gated, by McNemar on the scenarios; the rest show a bootstrap p.
      assert.equal(metric("pass^2").test, "mcnemar");
      assert.ok(metric("pass^2").p_holm !== null);
      for (const name of ["pass^1", "latency p50 ms", "voice-to-voice p50 ms"]) {
        const m = metric(name);
        assert.ok(m, `${name} is compared`);
        assert.equal(m.test, "bootstrap");
        assert.ok(m.ci95 !== null && m.p !== null, name);
      }
      assert.deepEqual(c.regressions, []);
    }
    const md = await cli(["report", "--baseline", "clean", "--format", "md"], scored.stdout);
    assert.equal(md.code, 0, md.stderr);
    assert.match(md.stdout, /### Against the baseline clean/);
    assert.match(md.stdout, /\*\*phone\*\* − \*\*clean\*\*: no significant regression/);
    assert.match(md.stdout, /\| success \| 100\.0% \| 100\.0% \| ±0\.0 pt \|/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("eval --line sweep: an empty or repeated line is an input error", async () => {
  for (const line of ["clean,,phone", "phone,phone"]) {
    const r = await evalEva("--line", line);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /--line/);
  }
  const bad = await cli(["eval", "--domain", "eva_airline", "--audio", "--line", "clean,hiss"]);
  assert.equal(bad.code, 2, bad.stderr);
  assert.match(bad.stderr, /hiss/);
});

Deno.test("eval --line sweep with --label: each configuration is LABEL/line", async () => {
  const r = await evalEva("--label", "v2", "--line", "clean,phone");
  assert.equal(r.code, 0, r.stderr);
  const records = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual([...new Set(records.map((x) => x.label))], ["v2/clean", "v2/phone"]);
  assert.equal(new Set(records.map((x) => x.key.config_hash)).size, 2);
});

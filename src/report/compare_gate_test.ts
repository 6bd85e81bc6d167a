import { deepEqual as assertEquals, equal, ok } from "node:assert/strict";
import { trialRecord } from "../score/_trial_fixture.ts";
import { scoreTrial } from "../score/score_trial.ts";
import { mulberry32 } from "../random/mulberry32.ts";
import type { ReportedVerdict } from "./summary.ts";
import { compareRuns, SAMPLE_METRICS } from "./compare.ts";
import { KEY_INFO, parseGate, parseMinEffect } from "./compare_gate.ts";

/** One scored trial, copied and changed per simulated trial (scoring 30 000 would be slow). */
const TEMPLATE = scoreTrial(trialRecord({ suite: "sim", latency: [{ turn: 0, response_ms: 1 }] }));

function verdict(
  cfg: string,
  scenario: string,
  trial: number,
  passed: boolean,
  latency: number[],
): ReportedVerdict {
  return {
    ...TEMPLATE,
    scenario,
    suite: "sim",
    trial,
    config_hash: cfg,
    is_successful: passed,
    metrics: { ...TEMPLATE.metrics, latency_ms: latency },
  } as ReportedVerdict;
}

/**
 * A simulated bot over `scenarios` scenarios: each passes always, never, or with
 * probability 0.9 (5 of 50 flaky), and answers 5 turns a trial around its own base
 * latency (300-900 ms) with noise (sd 40 ms); `shiftMs` is added to every turn, and the
 * scenarios in `broken` fail every trial.
 */
function simulate(
  cfg: string,
  seed: number,
  options: { scenarios?: number; trials?: number; shiftMs?: number; broken?: Set<number> } = {},
): ReportedVerdict[] {
  const random = mulberry32(seed);
  const gauss = () => {
    const u = Math.max(random(), 1e-12);
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
  };
  const out: ReportedVerdict[] = [];
  const n = options.scenarios ?? 50;
  for (let s = 0; s < n; s++) {
    // The scenario's own nature is fixed (the same for both runs); the draws are the run's.
    const rate = s % 10 === 9 ? 0.9 : s % 10 === 8 ? 0 : 1;
    const base = 300 + (s * 37) % 600;
    for (let t = 0; t < (options.trials ?? 3); t++) {
      const passed = !options.broken?.has(s) && random() < rate;
      const latency = Array.from(
        { length: 5 },
        () => Math.max(1, base + 40 * gauss() + (options.shiftMs ?? 0)),
      );
      out.push(verdict(cfg, `sim__${String(s).padStart(2, "0")}`, t, passed, latency));
    }
  }
  return out;
}

// Under this model a false alarm comes from the scenario rule (a flaky scenario passing
// 3/3 then failing 0/3: 0.9³ · 0.1³ ≈ 0.07%, 5 flaky scenarios) or from McNemar's test on
// success (at most 2.5% in the worse direction at α = 0.05, before Holm).
Deno.test("the gate: identical behaviour with noise is a regression in at most 2 of 100 seeded repeats", () => {
  let flagged = 0;
  for (let r = 0; r < 100; r++) {
    // Seeds far apart (Knuth's multiplicative hash), so no two runs' draws are related.
    const a = simulate("A", (r * 2654435761 + 1) >>> 0);
    const b = simulate("B", (r * 2654435761 + 40503) >>> 0);
    const c = compareRuns(a, b, { seed: r, resamples: 500 });
    if (c.regressions.length > 0) flagged++;
  }
  console.log(`identical with noise: ${flagged} of 100 repeats flagged`);
  ok(flagged <= 2, `${flagged} of 100`);
});

Deno.test("the gate: three scenarios that fail every trial now, of 50, are always a regression, named", () => {
  const broken = new Set([3, 17, 41]);
  for (let r = 0; r < 20; r++) {
    const a = simulate("A", 2 * r + 1, { trials: 2 });
    const b = simulate("B", 2 * r + 2, { trials: 2, broken });
    const c = compareRuns(a, b, { seed: r, resamples: 500 });
    const named = c.regressions.filter((x) => x.metric === "scenario").map((x) => x.scenario);
    // The three, and perhaps a flaky one that happened to pass twice and fail twice.
    for (const s of ["sim__03", "sim__17", "sim__41"]) ok(named.includes(s), `${r}: ${named}`);
    ok(
      c.gate.lines.some((l) =>
        /^scenario sim__17: passed 2\/2 in A, 0\/2 in B: regression/.test(l)
      ),
    );
  }
});

Deno.test("the gate: a 200 ms shift at p95 over 50 scenarios is a regression, 1 ms is not", () => {
  for (let r = 0; r < 10; r++) {
    const a = simulate("A", 2 * r + 1);
    const shifted = compareRuns(a, simulate("B", 2 * r + 1, { shiftMs: 200 }), { seed: r });
    const p95 = shifted.scopes[0]!.metrics.find((m) => m.key === "latency.p95")!;
    equal(p95.change, "regression", p95.decision ?? "");
    ok(shifted.regressions.some((x) => x.metric === "latency p95 ms"));
    ok(
      /^change \+200 ms \(\+\d+\.\d%\) reaches \+100 ms and \+10%, p .*: regression$/.test(
        p95.decision!,
      ),
      p95.decision!,
    );

    const nudged = compareRuns(a, simulate("B", 2 * r + 1, { shiftMs: 1 }), { seed: r });
    const small = nudged.scopes[0]!.metrics.find((m) => m.key === "latency.p95")!;
    // Every scenario 1 ms slower: significant, and far below the minimum.
    equal(small.change, "none");
    ok(small.decision!.includes("does not reach +100 ms and +10%"), small.decision!);
    assertEquals(nudged.regressions, []);
  }
});

Deno.test("the gate: the issue's loopback runs (3 scenarios × 3 trials, latency 1 → 2 ms) pass; v2's drop fails by scenario", () => {
  const run = (cfg: string, ms: number, passes: (s: number) => boolean) =>
    [0, 1, 2].flatMap((s) =>
      [0, 1, 2].map((t) => verdict(cfg, `loop__${s}`, t, passes(s), [ms, ms + 4 * t]))
    );
  const a = run("A", 1, () => true);
  const noisy = compareRuns(a, run("B", 2, () => true));
  assertEquals(noisy.regressions, []);
  const p95 = noisy.scopes[0]!.metrics.find((m) => m.key === "latency.p95")!;
  equal(p95.decision, "18 and 18 samples, fewer than 20 on a side: not gated");

  const v2 = compareRuns(a, run("B", 2, (s) => s === 0));
  assertEquals(v2.regressions.map((r) => r.scenario), ["loop__1", "loop__2"]);
});

Deno.test("the gate: a figure's own minimum (--gate key:min) replaces the default; ungated figures get no verdict", () => {
  const a = simulate("A", 1);
  const b = simulate("B", 1, { shiftMs: 120 });
  const parsed = parseGate("success,latency.p95:+150ms");
  ok(parsed.gate);
  const c = compareRuns(a, b, { gate: parsed.gate });
  const p95 = c.scopes[0]!.metrics.find((m) => m.key === "latency.p95")!;
  equal(p95.change, "none");
  ok(p95.decision!.includes("does not reach +150 ms"), p95.decision!);
  const p50 = c.scopes[0]!.metrics.find((m) => m.key === "latency.p50")!;
  assertEquals([p50.decision, p50.p_holm, p50.change], [null, null, "none"]);
  ok(p50.p !== null, "an ungated figure still shows its test");
  // pass^k is not in this gate; the success rule's scenario line is.
  ok(!c.gate.lines.some((l) => l.includes("pass^")));
  ok(c.gate.lines.some((l) => l.startsWith("scenarios: none passed every trial")));
  const lower = compareRuns(a, b, { gate: parseGate("latency.p95:+100ms").gate });
  equal(lower.scopes[0]!.metrics.find((m) => m.key === "latency.p95")!.change, "regression");
  equal(lower.gate.scenario_rule, false);
});

Deno.test("parseGate() reads keys and minimum effects, and says what is wrong with each", () => {
  const g = parseGate("success,pass^k,latency.p95:+150ms,interaction.yield_rate:-0.1");
  assertEquals(g.gate?.rules.map((r) => [r.key, r.min.amount, r.min.relative]), [
    ["success", 0, 0],
    ["pass^k", 0, 0],
    ["latency.p95", 150, 0],
    ["interaction.yield_rate", 0.1, 0],
  ]);
  assertEquals(
    parseGate("latency.p50:+80ms,+5%,success").gate?.rules.map((r) => r.min),
    [{ amount: 80, relative: 0.05 }, { amount: 0, relative: 0 }],
  );
  // Without its own: the latency default.
  assertEquals(parseGate("latency.p95", "+50ms").gate?.rules[0]?.min, { amount: 50, relative: 0 });
  const bad = parseGate("succes,latency.p95:-100ms,interaction.yield_rate:+0.1,success,success");
  assertEquals(bad.problems?.map((p) => p.message), [
    '"succes" is not a figure the gate knows',
    "latency.p95: -100ms points the better way: this figure gets worse upwards (+)",
    "interaction.yield_rate: +0.1 points the better way: this figure gets worse downwards (-)",
    "success is gated twice",
  ]);
  ok("problem" in parseMinEffect("5 ms", KEY_INFO["latency.p95"]));
  ok("problem" in parseMinEffect("+10ms", KEY_INFO["success"]));
  equal(parseGate("success", "+10").problems, undefined);
});

Deno.test("KEY_INFO agrees with SAMPLE_METRICS on each gateable figure", () => {
  for (const m of SAMPLE_METRICS) {
    if (!m.key) continue;
    assertEquals(KEY_INFO[m.key], { unit: m.unit, better: m.better }, m.name);
  }
});

import { deepEqual as assertEquals, equal, ok } from "node:assert/strict";
import { audioBlock, trialRecord } from "../score/_trial_fixture.ts";
import { scoreTrial } from "../score/score_trial.ts";
import type { Verdict } from "../score/verdict.ts";
import { type Report, ReportSchema, summarize, VerdictSet } from "./summary.ts";

/** A verdict of `scenario` trial `trial`: success when the agent exited cleanly. */
function verdict(scenario: string, trial: number, success: boolean, extra = {}): Verdict {
  return scoreTrial(trialRecord({
    key: { scenario, trial },
    suite: scenario.split("__")[0]!,
    clean_exit: success,
    stop_reason: success ? "agent_end" : "max_duration",
    ...extra,
  }));
}

/** A: 2 of 4; B: 3 of 3; C: 1 of 3 (suites "air" and "shop"). */
function known(): Verdict[] {
  const outcomes: [string, boolean[]][] = [
    ["air__a", [true, false, true, false]],
    ["air__b", [true, true, true]],
    ["shop__c", [false, false, true]],
  ];
  return outcomes.flatMap(([s, xs]) => xs.map((ok, i) => verdict(s, i, ok)));
}

/** The one configuration of a report. */
function only(r: Report): Report["configurations"][number] {
  equal(r.configurations.length, 1);
  return r.configurations[0]!;
}

const close = (a: number, b: number) => Math.abs(a - b) < 1e-12;

Deno.test("summarize() computes success rate and pass^k as by hand", () => {
  const r = summarize(known());
  assertEquals(ReportSchema.safeParse(r).success, true);
  assertEquals([only(r).overall.scenarios, only(r).overall.trials], [3, 10]);
  assertEquals(only(r).overall.success, { passed: 6, total: 10, rate: 0.6 });
  // Task success ignores clean_exit, the only gating signal here: all succeed.
  assertEquals(only(r).overall.task_success, { passed: 10, total: 10, rate: 1 });
  assertEquals(only(r).k_max, 3);
  const hat = only(r).overall.pass_hat_k.map((p) => p.pass_hat_k);
  // k=1: (2/4 + 1 + 1/3)/3 = 11/18; k=2: (1/6 + 1 + 0)/3 = 7/18; k=3: (0 + 1 + 0)/3 = 1/3.
  ok(close(hat[0]!, 11 / 18) && close(hat[1]!, 7 / 18) && close(hat[2]!, 1 / 3), String(hat));
  ok(only(r).overall.pass_1_ci95![0] <= 11 / 18 && 11 / 18 <= only(r).overall.pass_1_ci95![1]);
  // Per suite: air = A and B, K = 3 there too: pass^3 = (0 + 1)/2.
  assertEquals(Object.keys(only(r).by_suite), ["air", "shop"]);
  ok(close(only(r).by_suite.air!.pass_hat_k[2]!.pass_hat_k, 0.5));
  // shop has one scenario with 1 of 3: pass^2 = 0.
  assertEquals(only(r).by_suite.shop!.pass_hat_k.map((p) => p.pass_hat_k), [1 / 3, 0, 0]);
  const a = r.scenarios.find((s) => s.scenario === "air__a")!;
  assertEquals([a.trials, a.successes, a.success_rate], [4, 2, 0.5]);
  assertEquals(a.pass_hat_k, 0); // C(2,3)/C(4,3)
  assertEquals(a.failed_signals, { clean_exit: 2 });
});

Deno.test("summarize() pools latency and sums tokens per side", () => {
  const r = summarize(known());
  assertEquals(only(r).overall.latency.count, 10);
  assertEquals(only(r).overall.latency.p50_ms, 600);
  assertEquals(only(r).overall.ttft.p95_ms, 250);
  assertEquals(only(r).overall.usage.agent, {
    calls: 20,
    prompt_tokens: 10_000,
    completion_tokens: 500,
  });
  assertEquals(only(r).overall.usage.user.calls, 10);
  assertEquals(only(r).latency_histogram!.counts.reduce((x, y) => x + y, 0), 10);
});

Deno.test("summarize() does not depend on the order of its input", () => {
  const verdicts = known();
  const shuffled = [...verdicts].reverse();
  equal(JSON.stringify(summarize(verdicts)), JSON.stringify(summarize(shuffled)));
});

Deno.test("VerdictSet keeps the last verdict of each trial key, so shards merge", () => {
  const set = new VerdictSet<Verdict>();
  const shard1 = [verdict("air__a", 0, false), verdict("air__a", 1, true)];
  const shard2 = [verdict("air__a", 2, true), verdict("air__a", 0, true)]; // re-scored trial 0
  for (const v of [...shard1, ...shard2]) set.add(v);
  assertEquals([set.read, set.duplicates], [4, 1]);
  const kept = set.sorted();
  assertEquals(kept.map((v) => [v.trial, v.is_successful]), [[0, true], [1, true], [2, true]]);
  const r = summarize(kept, { read: set.read, duplicates: set.duplicates });
  assertEquals(only(r).overall.success, { passed: 3, total: 3, rate: 1 });
  assertEquals(r.input, { verdicts: 4, duplicates: 1, excluded_errors: 0, errors: {} });
});

Deno.test("VerdictSet keeps trials with another config hash apart", () => {
  const set = new VerdictSet<Verdict>();
  const other = scoreTrial(trialRecord({ key: { config_hash: "cfg2" } }));
  set.add(scoreTrial(trialRecord()));
  set.add(other);
  assertEquals([set.sorted().length, set.duplicates], [2, 0]);
});

Deno.test("summarize() counts error trials as failures, by kind, or leaves them out", () => {
  const error = verdict("air__b", 3, false, {
    status: "error",
    error: { kind: "agent_unreachable", message: "refused" },
  });
  const verdicts = [...known(), error];
  const r = summarize(verdicts);
  assertEquals(only(r).overall.success, { passed: 6, total: 11, rate: 6 / 11 });
  assertEquals(only(r).overall.errors, { agent_unreachable: 1 });
  assertEquals(r.input.errors, { agent_unreachable: 1 });
  // An error trial's signals are not the agent's: left out of per-signal rates.
  assertEquals(only(r).overall.signals.clean_exit.total, 10);
  const x = summarize(verdicts, { excludeErrors: true });
  assertEquals(only(x).overall.success, { passed: 6, total: 10, rate: 0.6 });
  assertEquals(only(x).overall.errors, {});
  assertEquals([x.input.excluded_errors, x.input.errors], [1, { agent_unreachable: 1 }]);
  assertEquals(x.exclude_errors, true);
});

Deno.test("summarize() leaves N/A trials out of rates and pass^k", () => {
  const na = scoreTrial(trialRecord({
    key: { scenario: "misc__x" },
    suite: "misc",
    expect: { success_signals: ["is_action_match"] },
  }));
  const r = summarize([...known(), na]);
  assertEquals(only(r).overall.not_applicable, 1);
  assertEquals(only(r).overall.success.total, 10);
  assertEquals(only(r).k_max, 3);
  assertEquals(r.scenarios.find((s) => s.scenario === "misc__x")!.success_rate, null);
});

Deno.test("summarize() leaves too-few-turn trials out of per-signal rates only", () => {
  const short = scoreTrial(
    trialRecord({ key: { scenario: "air__b", trial: 9 }, suite: "air" }),
    { minAgentTurns: 5 },
  );
  const r = summarize([...known(), short]);
  assertEquals(only(r).overall.insufficient_agent_turns, 1);
  assertEquals(only(r).overall.success.total, 11);
  assertEquals(only(r).overall.signals.clean_exit, { passed: 6, total: 10, rate: 0.6 });
});

Deno.test("summarize() of nothing is empty, not an error", () => {
  const r = summarize([]);
  assertEquals(r.configurations, []);
  assertEquals(r.scenarios, []);
  assertEquals(ReportSchema.safeParse(r).success, true);
});

Deno.test("summarize() does not list an error trial's signals as the agent's failures", () => {
  const broken = verdict("air__a", 1, false, {
    status: "error",
    error: { kind: "agent_unreachable", message: "refused" },
  });
  const r = summarize([verdict("air__a", 0, false), broken]);
  const a = r.scenarios.find((s) => s.scenario === "air__a")!;
  assertEquals([a.errors, a.failed_signals], [1, { clean_exit: 1 }]);
});

Deno.test("summarize() never computes pass^k across configurations; each gets its own", () => {
  // The same scenarios under two configurations: oracle passes all, noop none.
  const of = (label: string, config: string, success: boolean) =>
    [0, 1].flatMap((trial) =>
      ["air__a", "air__b"].map((s) =>
        scoreTrial(trialRecord({
          key: { scenario: s, trial, config_hash: config },
          label,
          suite: "air",
          clean_exit: success,
          participants: { agent: { kind: label }, user: { kind: "scripted" } },
        }))
      )
    );
  const r = summarize([...of("oracle", "cfg-o", true), ...of("noop", "cfg-n", false)]);
  ok(ReportSchema.safeParse(r).success);
  assertEquals(
    r.configurations.map((c) => [c.label, c.config_hash, c.participants?.agent.kind, c.k_max]),
    [["noop", "cfg-n", "noop", 2], ["oracle", "cfg-o", "oracle", 2]],
  );
  assertEquals(r.configurations[1]!.overall.pass_hat_k.map((p) => p.pass_hat_k), [1, 1]);
  assertEquals(r.configurations[0]!.overall.pass_hat_k.map((p) => p.pass_hat_k), [0, 0]);
  assertEquals(r.configurations[1]!.by_suite.air!.pass_hat_k.map((p) => p.pass_hat_k), [1, 1]);
  // One row per scenario and configuration, each with its own pass^k.
  assertEquals(
    r.scenarios.map((s) => [s.scenario, s.label, s.trials, s.pass_hat_k]),
    [
      ["air__a", "noop", 2, 0],
      ["air__a", "oracle", 2, 1],
      ["air__b", "noop", 2, 0],
      ["air__b", "oracle", 2, 1],
    ],
  );
  // One configuration: as before, and named.
  const one = summarize(of("oracle", "cfg-o", true));
  assertEquals(one.configurations.length, 1);
  assertEquals([only(one).k_max, only(one).overall.pass_hat_k.length], [2, 2]);
});

Deno.test("summarize(): a retried trial's newest verdict wins over its error", () => {
  const set = new VerdictSet<Verdict>();
  set.add(
    verdict("air__a", 0, false, {
      status: "error",
      error: { kind: "agent_unreachable", message: "x" },
    }),
  );
  set.add(verdict("air__a", 0, true));
  const r = summarize(set.sorted(), { read: set.read, duplicates: set.duplicates });
  assertEquals(only(r).overall.success, { passed: 1, total: 1, rate: 1 });
  assertEquals(only(r).overall.errors, {});
  equal(r.input.duplicates, 1);
});

/** An audio verdict with these per-turn v2v latencies, TTFA and barge-in yields. */
function audioVerdict(
  scenario: string,
  trial: number,
  v2v: number[],
  ttfa: number | null,
  yields: number[],
): Verdict {
  return verdict(scenario, trial, true, {
    audio: audioBlock({
      turns: v2v.map((ms, i) => ({
        turn: 2 * i,
        v2v_ms: ms,
        ref_frame_ms: ms - 40,
        ref_segment_ms: ms + 260,
      })),
      ttfa_ms: ttfa,
      barge_ins: yields.map((ms, i) => ({
        at_ms: 1000 * (i + 1),
        agent_turn: 0,
        yielded: ms < 500,
        yield_ms: ms,
      })),
    }),
  });
}

Deno.test("summarize() gives p50/p90/p95 of voice-to-voice latency, TTFA and barge-in yield per suite and overall", () => {
  const r = summarize([
    audioVerdict("air__a", 0, [100, 200, 300], 150, [20]),
    audioVerdict("air__a", 1, [400, 500], 250, [30, 900]),
    audioVerdict("shop__c", 0, [1000, 1100, 1200, 1300, 1400], null, []),
    // A text call in the same suite: it adds no audio figures.
    verdict("shop__d", 0, true),
  ]);
  assertEquals(ReportSchema.safeParse(r).success, true);
  const o = only(r).overall.audio!;
  equal(o.trials, 3);
  // 10 v2v samples sorted 100..500, 1000..1400: p50 = sorted[5], p90 = sorted[9], p95 = sorted[9].
  assertEquals([o.v2v.count, o.v2v.p50_ms, o.v2v.p90_ms, o.v2v.p95_ms], [10, 1000, 1400, 1400]);
  // The reference's definitions ride along, each from its own field.
  equal(o.ref_frame.p50_ms, 960);
  equal(o.ref_segment.p50_ms, 1260);
  // TTFA: one sample per trial that heard the agent (150, 250).
  assertEquals([o.ttfa.count, o.ttfa.p50_ms, o.ttfa.max_ms], [2, 250, 250]);
  assertEquals([o.barge_in_yield.count, o.barge_in_yield.p50_ms], [3, 30]);
  assertEquals(o.barge_ins, { count: 3, yielded: 2 });
  const air = only(r).by_suite.air!.audio!;
  assertEquals([air.v2v.count, air.v2v.p50_ms, air.v2v.p90_ms], [5, 300, 500]);
  assertEquals([air.ttfa.p50_ms, air.barge_in_yield.p95_ms], [250, 900]);
  const shop = only(r).by_suite.shop!.audio!;
  assertEquals([shop.trials, shop.v2v.p50_ms, shop.ttfa.count], [1, 1200, 0]);
  equal(shop.ttfa.p50_ms, null);
  assertEquals(shop.barge_ins, { count: 0, yielded: 0 });
});

Deno.test("summarize() of text calls only has no audio figures", () => {
  const r = summarize(known());
  equal("audio" in only(r).overall, false);
  equal(Object.values(only(r).by_suite).some((a) => "audio" in a), false);
  assertEquals(ReportSchema.safeParse(r).success, true);
});

Deno.test("summarize() of two configurations has no pooled figure: every rate is one configuration's", () => {
  const of = (label: string, config: string, success: boolean) =>
    ["air__a", "air__b"].map((s) =>
      scoreTrial(trialRecord({
        key: { scenario: s, trial: 0, config_hash: config },
        label,
        suite: "air",
        clean_exit: success,
      }))
    );
  const r = summarize([...of("oracle", "cfg-o", true), ...of("noop", "cfg-n", false)]);
  ok(ReportSchema.safeParse(r).success);
  // The headline is per configuration (label + config hash)...
  assertEquals(
    r.configurations.map((c) => [c.label, c.config_hash, c.overall.success.rate]),
    [["noop", "cfg-n", 0], ["oracle", "cfg-o", 1]],
  );
  // ...and outside the configurations nothing is a rate, a pass^k or a latency.
  const { configurations: _, scenarios: __, ...rest } = r;
  const keys: string[] = [];
  const walk = (x: unknown) => {
    if (x === null || typeof x !== "object") return;
    for (const [k, v] of Object.entries(x)) {
      keys.push(k);
      walk(v);
    }
  };
  walk(rest);
  for (
    const pooled of ["overall", "by_suite", "success", "rate", "pass_hat_k", "latency", "k_max"]
  ) {
    ok(!keys.includes(pooled), `the report pools "${pooled}" across configurations`);
  }
});

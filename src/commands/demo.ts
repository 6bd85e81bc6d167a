import { fileURLToPath } from "node:url";
import type { Command } from "../cli/io.ts";
import { formatProblem, InputError } from "../cli/problem.ts";
import { flagRows, type FlagTable, intFlag, parseFlags } from "../cli/args.ts";
import { openDataRoot } from "../cli/data_root.ts";
import { selectScenarios } from "../scenario/suites.ts";
import type { Scenario } from "../scenario/scenario.ts";
import { participantFactory } from "../participants/registry.ts";
import { runTrials } from "../runner/runner.ts";
import { configHash } from "../runner/trial_key.ts";
import type { TrialRecord } from "../runner/trial_record.ts";
import { scoreTrial } from "../score/score_trial.ts";
import type { Verdict } from "../score/verdict.ts";
import { passHatKCurve } from "../report/pass_hat_k.ts";
import { DEFAULT_LIMITS } from "../bridge/bridge.ts";

const BUNDLED_FLOWS = fileURLToPath(new URL("../../scenarios/flows/", import.meta.url));

const FLAGS = {
  "data-root": {
    type: "string",
    value: "DIR",
    description: "the scenarios the oracle and noop agents run (default: the bundled fixtures)",
  },
  flows: {
    type: "string",
    value: "DIR",
    description: "the flow files the navigator agent runs (default: the bundled flows)",
  },
  trials: {
    type: "string",
    value: "N",
    description: "trials per flow scenario",
    default: "5",
  },
} as const satisfies FlagTable;

const help = `demo: run the bundled scenarios end to end and print a summary

Usage: cli.ts demo [--data-root DIR] [--flows DIR] [--trials N]

Flags:
${flagRows(FLAGS)}

Runs, in-process and on a simulated clock:
  - the oracle agent against the scripted caller on every scenario of the data root
    (default: the bundled fixtures): it should pass them all;
  - the noop agent on the same scenarios: it should pass only those whose expected
    state is the initial one;
  - the navigator agent on the bundled flow files (IVR menus, holds, screeners,
    voicemail, unavailable numbers), N trials each (default 5) so voicemail boxes vary.
Then scores every trial and prints success and pass^k per agent and suite.
The same runs as a pipeline: cli.ts list | cli.ts eval --agent oracle | cli.ts score | cli.ts report`;

export const command: Command = {
  summary: "run the bundled scenarios end to end",
  help,
  flags: FLAGS,
  async main(args, io) {
    const { values } = parseFlags(args, FLAGS);
    const trials = intFlag("trials", values.trials, Number(FLAGS.trials.default));
    const t0 = performance.now();
    const root = openDataRoot(values["data-root"], io);
    const worlds = await selectScenarios(root, {});
    const flows = await selectScenarios(root, { files: [values.flows ?? BUNDLED_FLOWS] });
    if (flows.fileProblems.length > 0) throw new InputError(flows.fileProblems);
    for (const p of [...worlds.problems, ...flows.problems]) io.err(`warning: ${formatProblem(p)}`);

    const rows: Row[] = [];
    const run = async (agent: string, scenarios: Scenario[], n: number) => {
      const records: TrialRecord[] = [];
      await runTrials({
        scenarios,
        root,
        participants: participantFactory({ agent, user: "auto", agentModel: {}, userModel: {} }),
        configHash: configHash({ demo: agent }),
        trials: n,
        concurrency: 8,
        limits: { silenceMs: DEFAULT_LIMITS.silenceMs, maxTurns: DEFAULT_LIMITS.maxTurns },
        onRecord: (r) => void records.push(r),
      });
      rows.push(...summarise(agent, records.map((r) => scoreTrial(r))));
      return records.length;
    };
    let total = 0;
    total += await run("oracle", worlds.scenarios, 1);
    total += await run("noop", worlds.scenarios, 1);
    total += await run("navigator", flows.scenarios, trials);
    const seconds = (performance.now() - t0) / 1000;

    io.out(
      `callbench demo: ${total} simulated calls in ${
        seconds.toFixed(2)
      } s (data root: ${root.path})\n`,
    );
    io.out(table(rows));
    io.out(
      "\noracle should pass everything; noop only scenarios whose expected state is the initial one;" +
        "\nthe navigator should get through every menu, hold, screener and voicemail box." +
        "\nNext: deno task cli list | deno task cli eval --agent oracle | deno task cli score | deno task cli report --format md",
    );
    return 0;
  },
};

interface Row {
  agent: string;
  suite: string;
  scenarios: number;
  trials: number;
  passed: number;
  passK: string;
  errors: number;
}

function summarise(agent: string, verdicts: Verdict[]): Row[] {
  const bySuite = new Map<string, Verdict[]>();
  for (const v of verdicts) bySuite.set(v.suite, [...(bySuite.get(v.suite) ?? []), v]);
  return [...bySuite].map(([suite, vs]) => {
    const byScenario = new Map<string, { n: number; c: number }>();
    for (const v of vs) {
      const s = byScenario.get(v.scenario) ?? { n: 0, c: 0 };
      s.n++;
      if (v.is_successful === true) s.c++;
      byScenario.set(v.scenario, s);
    }
    const curve = passHatKCurve([...byScenario.values()]);
    const last = curve.at(-1);
    return {
      agent,
      suite,
      scenarios: byScenario.size,
      trials: vs.length,
      passed: vs.filter((v) => v.is_successful === true).length,
      passK: last && last.k > 1 ? `pass^${last.k} ${(last.pass_hat_k * 100).toFixed(0)}%` : "",
      errors: vs.filter((v) => v.status === "error").length,
    };
  });
}

function table(rows: Row[]): string {
  const head = ["agent", "suite", "scenarios", "trials", "passed", "rate", "pass^k", "errors"];
  const body = rows.map((r) => [
    r.agent,
    r.suite,
    String(r.scenarios),
    String(r.trials),
    String(r.passed),
    `${((r.passed / Math.max(1, r.trials)) * 100).toFixed(0)}%`,
    r.passK,
    String(r.errors),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join("  ").trimEnd();
  return [line(head), line(widths.map((w) => "-".repeat(w))), ...body.map(line)].join("\n");
}

import type { Command, Io } from "../cli/io.ts";
import { readKeyEnv } from "../cli/secret_env.ts";
import { InputError } from "../cli/problem.ts";
import { flagRows, type FlagTable, fractionFlag, intFlag, parseFlags } from "../cli/args.ts";
import { OpenAiClient } from "../llm/openai.ts";
import { type TrialRecord, TrialRecordSchema } from "../runner/trial_record.ts";
import { progressLines } from "../cli/progress.ts";
import { judgedAssertions, type JudgeOptions, judgeTrial, needsJudge } from "../score/judge.ts";
import { readRecords } from "../score/read_records.ts";
import { scoreTrial } from "../score/score_trial.ts";
import { nothingRead, runFiles } from "../cli/run_file.ts";

const FLAGS = {
  "min-agent-turns": {
    type: "string",
    value: "N",
    description: "fail trials whose agent spoke fewer than N turns (default: what\n" +
      "eval recorded, else 0: off)",
  },
} as const satisfies FlagTable;

/** The opt-in judge's flags (their own help section). */
const JUDGE_FLAGS = {
  "judge-model": { type: "string", value: "M", description: "the judge's model" },
  "judge-base-url": {
    type: "string",
    value: "URL",
    description: "the judge's OpenAI-compatible base URL",
  },
  "judge-api-key-env": {
    type: "string",
    value: "NAME",
    description: "environment variable holding the key",
    default: "JUDGE_API_KEY",
  },
  "judge-threshold": {
    type: "string",
    value: "T",
    description: "judge_passed = score >= T (0 to 1)",
  },
  "judge-concurrency": {
    type: "string",
    value: "C",
    description: "trials judged at once",
    default: "4",
  },
  "judge-attempts": {
    type: "string",
    value: "N",
    description: "requests per trial when a reply does not parse",
    default: "3",
  },
} as const satisfies FlagTable;

const ALL_FLAGS = { ...FLAGS, ...JUDGE_FLAGS } as const satisfies FlagTable;

const help = `score: trial records in, one verdict per line out

Usage: cli.ts score [FILE... | -] [--min-agent-turns N]
                    [--judge-model M --judge-base-url URL [--judge-api-key-env NAME]
                     [--judge-threshold T] [--judge-concurrency C] [--judge-attempts N]]

Reads trial records (JSON Lines, files or stdin; an eval --out folder is its trials.jsonl;
nothing read is exit 2) and prints one verdict per record, in
order: every signal, is_successful (strict AND of the scenario's success_signals that
apply, "N/A" when none does), the breakdown, and the evidence. Without a judge it is
offline and deterministic: the same records give byte-identical verdicts.

Flags:
${flagRows(FLAGS)}

The judge is opt-in: it runs only with both --judge-model and --judge-base-url (an
OpenAI-compatible server), on trials with NL assertions or flow agent_expectations (all
trials with --judge-threshold). Without it those signals do not apply.
${flagRows(JUDGE_FLAGS)}

A judge that cannot answer makes the verdict an infrastructure error (kind judge_error),
never a failed assertion. Invalid records exit 2 naming file, line and field.`;

export const command: Command = {
  summary: "trial records in, one verdict per trial out",
  help,
  flags: ALL_FLAGS,
  async main(args, io) {
    const { values, positionals } = parseFlags(args, ALL_FLAGS);
    // Unset: each record's own `eval --min-agent-turns`, else 0 (off).
    const minAgentTurns = values["min-agent-turns"] === undefined
      ? undefined
      : intFlag("min-agent-turns", values["min-agent-turns"], 0, 0);
    const judge = judgeOptions(values, io);
    const concurrency = intFlag(
      "judge-concurrency",
      values["judge-concurrency"],
      Number(JUDGE_FLAGS["judge-concurrency"].default),
    );
    const files = await runFiles(positionals, ["trials.jsonl"]);
    const records = _counted(readRecords(files, io.stdin, TrialRecordSchema, "trial record"));

    let unjudged = 0;
    if (judge === undefined) {
      for await (const { record } of records) {
        if (judgedAssertions(record).length > 0) unjudged++;
        io.out(JSON.stringify(scoreTrial(record, { minAgentTurns })));
      }
    } else {
      // Judged trials run `concurrency` at once; verdicts still come out in input order.
      const pending: Promise<string>[] = [];
      const progress = progressLines(io, "score");
      let judged = 0;
      const scoreOne = async (record: TrialRecord) => {
        const result = needsJudge(record, judge.threshold)
          ? await judgeTrial(record, judge)
          : undefined;
        const line = JSON.stringify(scoreTrial(record, { minAgentTurns, judge: result }));
        progress.update({ done: ++judged });
        return line;
      };
      for await (const { record } of records) {
        pending.push(scoreOne(record));
        if (pending.length >= concurrency) io.out(await pending.shift()!);
      }
      while (pending.length > 0) io.out(await pending.shift()!);
      progress.update({ done: judged, total: judged });
      progress.stop();
    }
    if (records.count === 0) throw nothingRead("trial records", files);
    if (unjudged > 0) {
      io.err(
        `score: ${unjudged} trial(s) have NL assertions or agent expectations but no judge is ` +
          `configured; nl_assertion does not apply to them (see --judge-model)`,
      );
    }
    await io.flush();
    return 0;
  },
};

function judgeOptions(
  values: Record<string, string | boolean | string[] | undefined>,
  io: Io,
): JudgeOptions | undefined {
  const model = values["judge-model"] as string | undefined;
  const baseUrl = values["judge-base-url"] as string | undefined;
  const judgeOnly = ["judge-threshold", "judge-attempts", "judge-api-key-env", "judge-concurrency"]
    .filter((f) => values[f] !== undefined);
  if (!model && !baseUrl) {
    if (judgeOnly.length > 0) {
      throw new InputError({
        field: `--${judgeOnly[0]}`,
        message: "needs a judge",
        hint: "give --judge-model and --judge-base-url",
      });
    }
    return undefined;
  }
  if (!model || !baseUrl) {
    throw new InputError({
      field: model ? "--judge-base-url" : "--judge-model",
      message: "required with " + (model ? "--judge-model" : "--judge-base-url"),
      hint: "the judge needs both a model and an OpenAI-compatible base URL",
    });
  }
  const threshold = fractionFlag(
    "judge-threshold",
    values["judge-threshold"] as string | undefined,
  );
  const keyEnv = (values["judge-api-key-env"] as string | undefined) ??
    JUDGE_FLAGS["judge-api-key-env"].default;
  const apiKey = readKeyEnv(io, keyEnv, "--judge-api-key-env");
  return {
    model: new OpenAiClient({ baseUrl, model, ...(apiKey ? { apiKey } : {}) }),
    ...(threshold !== undefined ? { threshold } : {}),
    maxAttempts: intFlag(
      "judge-attempts",
      values["judge-attempts"] as string | undefined,
      Number(JUDGE_FLAGS["judge-attempts"].default),
    ),
  };
}

/** An iterable of records that counts what it yields. */
function _counted<T>(items: AsyncIterable<T>): AsyncIterable<T> & { count: number } {
  const out = {
    count: 0,
    async *[Symbol.asyncIterator]() {
      for await (const item of items) {
        out.count++;
        yield item;
      }
    },
  };
  return out;
}

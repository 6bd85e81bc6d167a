import type { Command, Io } from "../cli/io.ts";
import { InputError } from "../cli/problem.ts";
import { parseJsonLocated } from "../problem/json_error.ts";
import { flagRows, type FlagTable, intFlag, parseFlags } from "../cli/args.ts";
import { readVerdicts, recordError } from "../score/read_records.ts";
import { runFile } from "../cli/run_file.ts";
import { printable } from "../problem/quote.ts";
import { type Verdict, VerdictSchema } from "../score/verdict.ts";
import { trialKeyOf, VerdictSet } from "../report/summary.ts";
import { failureNotes, signalNote } from "../report/failure_notes.ts";

const FLAGS = {
  trial: { type: "string", value: "N", description: "only this trial index of the scenario" },
  label: { type: "string", value: "L", description: "only this configuration (eval --label)" },
  json: {
    type: "boolean",
    description: "one JSON line per trial: its key and each failed signal's evidence",
  },
} as const satisfies FlagTable;

const help = `explain: why a trial failed, in words

Usage: cli.ts explain KEY [FILE... | DIR | -] [--trial N] [--label L] [--json]
       cli.ts explain FILE|DIR [--trial N] [--label L] [--json]

KEY picks the trial: a scenario name (each of its trials), SCENARIO:TRIAL, a trial's
seed, or the report's trial key (["scenario",trial,"seed","config"]). A verdict itself
(a JSON object, as "jq -c" prints one) explains that verdict; a file or folder alone,
every trial of it that did not pass. The verdicts are read from
the files (verdicts or trial records, JSON Lines; records are scored here, offline), an
eval --out folder, or stdin.

For each trial: its result, then each failed signal with what shows it: the paths where
the final world differs from the expected one (db_state_match, both values), the first
unmet state assertion, the missing or extra reference action, the node where a flow's
path left the expected one, the judge's reasons; then the call's tool calls.

Flags:
${flagRows(FLAGS)}`;

const VerdictWithoutTurns = VerdictSchema.omit({ turns: true });

export const command: Command = {
  summary: "why a trial failed: state diff, unmet assertion, missing action, flow node",
  help,
  flags: FLAGS,
  async main(args, io) {
    const { values, positionals } = parseFlags(args, FLAGS);
    const [key, ...files] = positionals;
    if (key === undefined) {
      throw new InputError({
        message: "expected a trial key or a verdict",
        hint: "cli.ts explain SCENARIO[:TRIAL] verdicts.jsonl",
      });
    }
    const trial = values.trial === undefined ? undefined : intFlag("trial", values.trial, 0, 0);
    let verdicts: Omit<Verdict, "turns">[];
    if (key.trimStart().startsWith("{")) {
      const value = keyJson(key);
      const parsed = VerdictWithoutTurns.safeParse(value);
      if (!parsed.success) throw recordError(parsed.error, "KEY", 1, "verdict", value);
      verdicts = [parsed.data];
    } else if (files.length === 0 && await Deno.stat(key).then(() => true, () => false)) {
      // A file or folder alone: every trial of it that did not pass.
      verdicts = (await readVerdictsOf([key], io)).filter((v) =>
        v.is_successful !== true && (trial === undefined || v.trial === trial) &&
        (values.label === undefined || v.label === values.label)
      );
    } else {
      const match = matcher(key, trial, values.label);
      // No file: the verdicts are on stdin; at a terminal that would only wait.
      if (files.length === 0 && io.stdinIsTerminal) {
        throw new InputError({
          message: `${JSON.stringify(key)} is no file, and no verdicts were given to look it up in`,
          hint: "cli.ts explain KEY FILE|DIR, or pipe the verdicts in",
        });
      }
      verdicts = (await readVerdictsOf(files, io)).filter(match);
      if (verdicts.length === 0) {
        throw new InputError({
          field: "KEY",
          message: `no trial matches ${JSON.stringify(key)}` +
            (trial !== undefined ? ` trial ${trial}` : "") +
            (values.label !== undefined ? ` with label ${JSON.stringify(values.label)}` : ""),
          hint: "a scenario name, SCENARIO:TRIAL, a seed or a trial key from the report",
        });
      }
    }
    for (const v of verdicts) {
      if (values.json) {
        io.out(JSON.stringify({
          key: JSON.parse(trialKeyOf(v)),
          ...(v.label !== undefined ? { label: v.label } : {}),
          is_successful: v.is_successful,
          failures: failureNotes(v),
        }));
      } else {
        // The notes quote the agent and the caller: their control bytes are written out.
        for (const line of explanation(v)) io.out(printable(line));
      }
    }
    await io.flush();
    return 0;
  },
};

/** A trial in words: the result, each failed signal's evidence, the tool calls. */
export function explanation(v: Omit<Verdict, "turns">): string[] {
  const config = v.label !== undefined
    ? `${v.label} (config ${v.config_hash})`
    : `config ${v.config_hash}`;
  const result = v.is_successful === true
    ? "passed"
    : v.is_successful === "N/A"
    ? "not applicable (no gating signal applied)"
    : v.status === "error"
    ? `error (${v.error?.kind ?? "harness_error"})`
    : `failed (${v.success_breakdown.failed.join(", ")})`;
  const lines = [
    `${v.scenario} · trial ${v.trial} · ${config} · seed ${v.seed}`,
    `  result: ${result} · stop: ${v.stop_reason} · ${v.metrics.turns} turns, ` +
    `${v.tool_calls?.length ?? 0} tool calls`,
  ];
  for (const note of failureNotes(v)) {
    lines.push(`  ${note.signal}: ${note.summary}`);
    if (note.details.length > 1) { for (const d of note.details) lines.push(`    ${d}`); }
  }
  for (const s of v.success_breakdown.excluded.filter((s) => v.signals[s] === false)) {
    const note = signalNote(v, s);
    lines.push(`  ${s} (not gating): ${note.summary}`);
    if (note.details.length > 1) { for (const d of note.details) lines.push(`    ${d}`); }
  }
  if (v.tool_calls?.length) {
    lines.push("  tool calls:");
    for (const c of v.tool_calls) {
      const result = c.result.length > 160 ? `${c.result.slice(0, 160)}…` : c.result;
      lines.push(
        `    ${(c.at_ms / 1000).toFixed(1)}s ${c.side} ${c.name}(${c.arguments}) ` +
          `${c.ok ? "→" : "→ error:"} ${result}`,
      );
    }
  }
  lines.push("");
  return lines;
}

function matcher(
  key: string,
  trial: number | undefined,
  label: string | undefined,
): (v: Omit<Verdict, "turns">) => boolean {
  let test: (v: Omit<Verdict, "turns">) => boolean;
  if (key.startsWith("[")) {
    const wanted = JSON.stringify(keyJson(key));
    test = (v) => trialKeyOf(v) === wanted;
  } else {
    const m = /^(.+):(\d+)$/.exec(key);
    test = m
      ? (v) => v.scenario === m[1] && v.trial === Number(m[2])
      : (v) => v.scenario === key || v.seed === key;
  }
  return (v) =>
    test(v) && (trial === undefined || v.trial === trial) &&
    (label === undefined || v.label === label);
}

/** KEY given as JSON (a verdict or a trial key), or an `InputError` saying where it is not. */
function keyJson(key: string): unknown {
  const parsed = parseJsonLocated(key);
  if (parsed.ok) return parsed.value;
  throw new InputError({
    field: "KEY",
    message: `invalid JSON at column ${parsed.error.column}: ${parsed.error.message}`,
    hint: 'a verdict as "jq -c" prints one, or a trial key from the report',
  });
}

/** Verdicts from files, eval --out folders or stdin; trial records are scored on the way. */
async function readVerdictsOf(files: string[], io: Io): Promise<Omit<Verdict, "turns">[]> {
  const paths: string[] = [];
  for (const f of files) paths.push(f === "-" ? f : await runFile(f) ?? f);
  const set = new VerdictSet<Omit<Verdict, "turns">>();
  for await (const { record } of readVerdicts(paths, io.stdin, VerdictWithoutTurns)) {
    set.add(record);
  }
  return set.sorted();
}

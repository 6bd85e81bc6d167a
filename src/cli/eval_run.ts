/**
 * `eval`'s run, once its flags are read: each configuration (one, or one per line of a
 * `--line` sweep) run into the same output, records on stdout as they finish, progress
 * and errors on stderr, Ctrl-C and a closed stdout handled; the exit status.
 */
import { join } from "node:path";
import type { Io } from "./io.ts";
import { progressBar, progressLines } from "./progress.ts";
import { type RunOptions, type RunSummary, runTrials } from "../runner/runner.ts";
import { scoreTrial } from "../score/score_trial.ts";
import { clip, printable } from "../problem/quote.ts";
import { droppedLinesText } from "./dropped_lines.ts";
import { closeSpeech, type SpeechOptions } from "../speech/speech_options.ts";

/** One configuration of a run: its label, how it sounds, and its hash. */
export interface EvalConfiguration {
  label?: string;
  speech?: SpeechOptions;
  configHash: string;
}

/** The fields every configuration's `runTrials` shares. */
export type SharedRunOptions = Omit<
  RunOptions,
  | "configHash"
  | "label"
  | "speech"
  | "append"
  | "onExisting"
  | "onDropped"
  | "onConcurrency"
  | "signal"
  | "onRecord"
  | "onProgress"
  | "toolsServer"
>;

/** What `eval` runs. */
export interface EvalPlan {
  run: SharedRunOptions;
  configurations: EvalConfiguration[];
  /** `--concurrency` given: a run of fewer trials at once than asked says so. */
  concurrencyGiven: boolean;
  /** `--append`: the folder may hold other configurations (a sweep's later lines always may). */
  append: boolean;
  /** A `--line` sweep (resumed, its every line joins the folder). */
  sweep: boolean;
  /** `--tools-server` (with `--tools-host`). */
  toolsServer?: { hostname?: string };
  /** `--audio`: the speech providers to close at the end (flite's Worker would keep the process). */
  audio: boolean;
}

/**
 * The tools server's module, by a path built at run time: a literal `import()` is
 * fetched at start-up, and the MCP SDK would be downloaded by every command.
 */
function loadToolsServer(): Promise<typeof import("../tools_server/tools_server.ts")> {
  const path = ["..", "tools_server", "tools_server.ts"].join("/");
  return import(path);
}

/** Runs the plan; the exit status (0, 1 when every trial broke or stdout closed, 130 on Ctrl-C). */
export async function runEval(plan: EvalPlan, io: Io): Promise<number> {
  const { configurations, run: shared } = plan;
  const out = shared.out;
  const bar = io.errIsTerminal ? progressBar(io) : undefined;
  // Not a terminal (CI): plain lines; both count the trials that fail their score.
  const lines = io.errIsTerminal ? undefined : progressLines(io, "eval");
  let failedTrials = 0;
  let errorTrials = 0;
  const stop = new AbortController();
  let why: "interrupt" | "stdout" | undefined;
  let stdoutOpen = true;
  let written = 0;
  let printed = 0;
  let toRun = 0;
  const errors = new Map<string, { count: number; message: string }>();
  const stopped = new Promise<undefined>((resolve) =>
    stop.signal.addEventListener("abort", () => resolve(undefined))
  );
  /** A record's line on stdout; false once the reader has gone (`eval --out D | head -1`). */
  const emit = (line: string): boolean => {
    if (!stdoutOpen) return false;
    try {
      io.out(line);
      return true;
    } catch (e) {
      if (!(e instanceof Deno.errors.BrokenPipe)) throw e;
      // The reader went away: the folder keeps the run; without one, the run stops.
      stdoutOpen = false;
      if (!out) {
        why ??= "stdout";
        stop.abort();
      }
      return false;
    }
  };
  const unlisten = io.onInterrupt?.(() => {
    why ??= "interrupt";
    stop.abort();
  });
  const toolsServer = plan.toolsServer
    ? (await loadToolsServer()).ToolsServer.start(plan.toolsServer)
    : undefined;
  let before = 0;
  let lastDone = 0;
  const saidConcurrency = new Set<string>();
  const runOne = (c: EvalConfiguration, index: number) =>
    runTrials({
      ...shared,
      configHash: c.configHash,
      ...(c.label !== undefined ? { label: c.label } : {}),
      // A sweep's later lines join the folder its first one opened (resumed: all of them).
      append: plan.append || index > 0 || (plan.sweep && !!shared.resume),
      // A pipe downstream (score | report) sees the whole run, not only what ran now
      // (each line of a sweep re-emits its own planned trials).
      ...(shared.resume && !io.outIsTerminal
        ? { onExisting: (line: string) => void emit(line) }
        : {}),
      ...(out
        ? {
          onDropped: (dropped, total) =>
            io.err(droppedLinesText(join(out, "trials.jsonl"), dropped, total)),
        }
        : {}),
      ...(toolsServer ? { toolsServer } : {}),
      // Said once a run (a sweep's lines would each say the same).
      onConcurrency: (c) => {
        // Only a run that asked (the default concurrency over a few trials is no news).
        if (!plan.concurrencyGiven) return;
        const said = `eval: running ${c.used} trial(s) at once, not the ${c.requested} asked: ${
          c.why ?? "fewer"
        }`;
        if (saidConcurrency.has(said)) return;
        saidConcurrency.add(said);
        io.err(said);
      },
      signal: stop.signal,
      onRecord: (r) => {
        written++;
        if (r.status === "error") {
          const kind = r.error?.kind ?? "harness_error";
          const seen = errors.get(kind);
          if (seen) seen.count++;
          else errors.set(kind, { count: 1, message: r.error?.message ?? "" });
        }
        if (emit(JSON.stringify(r))) printed++;
      },
      ...(c.speech ? { speech: c.speech } : {}),
      // A sweep's progress counts on over its lines (each plans as many trials).
      onProgress: (done, total, record) => {
        if (done === 0) toRun = before + total * (configurations.length - index);
        lastDone = done;
        if (record?.status === "error") errorTrials++;
        else if (record && scoreTrial(record).is_successful === false) failedTrials++;
        const counts = {
          done: before + done,
          total: toRun,
          failed: failedTrials,
          errors: errorTrials,
        };
        bar?.(counts);
        lines?.update(counts);
      },
    });
  const run = (async () => {
    const total: RunSummary = { planned: 0, skipped: 0, run: 0, errors: 0 };
    for (const [i, c] of configurations.entries()) {
      if (stop.signal.aborted) break;
      lastDone = 0;
      const one = await runOne(c, i);
      before += lastDone;
      total.planned += one.planned;
      total.skipped += one.skipped;
      total.run += one.run;
      total.errors += one.errors;
    }
    return total;
  })();
  run.catch(() => {}); // awaited below unless the run is stopped
  let summary: RunSummary | undefined;
  try {
    summary = await Promise.race([run, stopped]);
  } finally {
    unlisten?.();
    lines?.stop();
    await toolsServer?.close();
    // The flite Worker would keep the process alive.
    if (plan.audio) await closeSpeech();
  }
  if (summary === undefined) {
    if (why === "stdout") {
      io.err(
        `eval: stdout closed after ${printed} trial record(s); stopped, nothing kept ` +
          `(with --out DIR the run goes on and keeps every record)`,
      );
      return 1;
    }
    io.err(
      out
        ? `eval: interrupted; ${written} of ${toRun} trial(s) of this run recorded in ${
          join(out, "trials.jsonl")
        }; run the same command with --resume to continue`
        : `eval: interrupted after ${written} of ${toRun} trial record(s) on stdout; none kept ` +
          `on disk (with --out DIR, --resume continues an interrupted run)`,
    );
    return 130;
  }
  const shard = shared.shard;
  io.err(
    `eval: ${summary.run} trial(s) run, ${summary.skipped} already done, ${summary.errors} infrastructure error(s)` +
      (shard ? ` [shard ${shard.index}/${shard.count}]` : ""),
  );
  for (const [kind, { count, message }] of [...errors].sort(([a], [b]) => a < b ? -1 : 1)) {
    // The message may quote the agent: bounded, its control bytes written out.
    io.err(`  ${kind}: ${count} trial(s); first: ${printable(clip(message, 300), true)}`);
  }
  if (!stdoutOpen && out) {
    io.err(`eval: stdout closed during the run; every record is in ${join(out, "trials.jsonl")}`);
  }
  // Failed trials are results; a run in which every trial broke is not.
  return summary.run > 0 && summary.errors === summary.run ? 1 : 0;
}

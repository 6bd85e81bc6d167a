/**
 * Many trials: every (scenario, trial) of a selection, filtered to this shard, minus
 * what an output folder already holds, run with bounded concurrency. Each record is
 * appended to `<out>/trials.jsonl` with one write and a transcript is written beside
 * it, so a run killed at any moment loses at most the trials in flight.
 *
 * @module
 */
import { join } from "node:path";
import type { DataRoot } from "../scenario/data_root.ts";
import type { Scenario } from "../scenario/scenario.ts";
import { type ParticipantFactory, runTrial } from "./run_trial.ts";
import { keyId, shardOf, trialKey } from "./trial_key.ts";
import type { TrialKey, TrialRecord } from "./trial_record.ts";
import type { CallLimits } from "../bridge/bridge.ts";
import { formatTranscript } from "./transcript.ts";
import { InputError } from "../cli/problem.ts";
import { sha256Hex } from "../canonical/hash.ts";

export interface RunOptions {
  scenarios: Scenario[];
  root: DataRoot;
  participants: ParticipantFactory;
  configHash: string;
  trials: number;
  concurrency: number;
  shard?: { index: number; count: number };
  out?: string;
  resume?: boolean;
  limits: Omit<CallLimits, "maxDurationMs">;
  /** Recorded in each trial's expectations for `score`. */
  minAgentTurns?: number;
  /** `eval --agent-world`: who holds the agent's world (default the harness). */
  agentWorld?: "harness" | "self";
  /** Called with each finished record, in completion order. */
  onRecord: (record: TrialRecord) => void | Promise<void>;
  onProgress?: (done: number, total: number, record?: TrialRecord) => void;
}

export interface RunSummary {
  planned: number;
  skipped: number;
  run: number;
  errors: number;
}

/** The trials of a selection for one shard, in a stable order. */
export function planTrials(
  scenarios: Scenario[],
  trials: number,
  config: string,
  shard?: { index: number; count: number },
): { scenario: Scenario; key: TrialKey }[] {
  const plan: { scenario: Scenario; key: TrialKey }[] = [];
  const seen = new Set<string>();
  for (const scenario of scenarios) {
    if (seen.has(scenario.name)) continue; // named twice: its trials run once
    seen.add(scenario.name);
    for (let t = 0; t < trials; t++) {
      const key = trialKey(scenario.name, t, config);
      if (shard && shardOf(key, shard.count) !== shard.index) continue;
      plan.push({ scenario, key });
    }
  }
  return plan;
}

export async function runTrials(opts: RunOptions): Promise<RunSummary> {
  const plan = planTrials(opts.scenarios, opts.trials, opts.configHash, opts.shard);
  let done = new Set<string>();
  let sink: TrialSink | undefined;
  if (opts.out) {
    sink = await TrialSink.open(opts.out);
    if (opts.resume) done = sink.existing;
  }
  const todo = plan.filter((p) => !done.has(keyId(p.key)));
  const summary: RunSummary = {
    planned: plan.length,
    skipped: plan.length - todo.length,
    run: 0,
    errors: 0,
  };
  opts.onProgress?.(0, todo.length);
  let next = 0;
  const worker = async () => {
    while (next < todo.length) {
      const item = todo[next++]!;
      const record = await runTrial({
        scenario: item.scenario,
        key: item.key,
        root: opts.root,
        participants: opts.participants,
        limits: opts.limits,
        ...(opts.minAgentTurns !== undefined ? { minAgentTurns: opts.minAgentTurns } : {}),
        ...(opts.agentWorld === "self" ? { agentWorld: "self" as const } : {}),
      });
      summary.run++;
      if (record.status === "error") summary.errors++;
      await sink?.write(record);
      await opts.onRecord(record);
      opts.onProgress?.(summary.run, todo.length, record);
    }
  };
  try {
    await Promise.all(
      Array.from({ length: Math.max(1, Math.min(opts.concurrency, todo.length)) }, worker),
    );
  } finally {
    sink?.close();
  }
  return summary;
}

/**
 * A transcript's file name: readable, safe, and short enough for any file system
 * (scenario names can be long), made unique by a hash of the trial key.
 */
export function transcriptName(record: TrialRecord): string {
  const safe = record.key.scenario.replace(/[^A-Za-z0-9_.-]+/g, "_").slice(0, 120);
  return `${safe}__t${record.key.trial}__${sha256Hex(keyId(record.key)).slice(0, 12)}.txt`;
}

/** `<out>/trials.jsonl` (append-only, one write per record) and `<out>/transcripts/`. */
export class TrialSink {
  readonly existing: Set<string>;
  readonly #file: Deno.FsFile;
  readonly #dir: string;

  private constructor(dir: string, file: Deno.FsFile, existing: Set<string>) {
    this.#dir = dir;
    this.#file = file;
    this.existing = existing;
  }

  static async open(dir: string): Promise<TrialSink> {
    try {
      await Deno.mkdir(join(dir, "transcripts"), { recursive: true });
    } catch (e) {
      throw new InputError({
        field: "--out",
        file: dir,
        message: `cannot use as an output folder: ${(e as Error).message}`,
      });
    }
    const path = join(dir, "trials.jsonl");
    const existing = new Set<string>();
    let text = "";
    try {
      text = await Deno.readTextFile(path);
    } catch { /* a fresh folder */ }
    // A run killed mid-write may leave a partial last line: cut it off (truncation
    // cannot lose the complete lines before it). Lines that are not trial records
    // are left out by writing a clean copy and renaming it over the file.
    const complete = text.endsWith("\n") ? text : text.slice(0, text.lastIndexOf("\n") + 1);
    if (complete.length !== text.length) {
      await Deno.truncate(path, new TextEncoder().encode(complete).length);
    }
    const kept: string[] = [];
    let dropped = 0;
    for (const line of complete.split("\n")) {
      if (!line.trim()) continue;
      try {
        const r = JSON.parse(line) as TrialRecord;
        if (!r?.key) throw new Error("not a trial record");
        existing.add(keyId(r.key));
        kept.push(line);
      } catch {
        dropped++; // re-run: its trial key is not in `existing`
      }
    }
    if (dropped > 0) {
      await Deno.writeTextFile(`${path}.tmp`, kept.map((l) => l + "\n").join(""));
      await Deno.rename(`${path}.tmp`, path);
    }
    const file = await Deno.open(path, { append: true, create: true });
    return new TrialSink(dir, file, existing);
  }

  async write(record: TrialRecord): Promise<void> {
    // The record first: it is what resume and scoring read.
    const bytes = new TextEncoder().encode(JSON.stringify(record) + "\n");
    let off = 0;
    while (off < bytes.length) off += this.#file.writeSync(bytes.subarray(off));
    this.#file.syncDataSync();
    try {
      await Deno.writeTextFile(
        join(this.#dir, "transcripts", transcriptName(record)),
        formatTranscript(record),
      );
    } catch {
      // A transcript is a convenience; never lose the run over one.
    }
  }

  close(): void {
    this.#file.close();
  }
}

/**
 * Many trials: every (scenario, trial) of a selection, filtered to this shard, minus
 * what an output folder already holds, run with bounded concurrency. For each trial
 * its transcript is written first, then its record is appended to `<out>/trials.jsonl`
 * with one write, so a run killed at any moment loses at most the trials in flight
 * (and a transcript missing for a recorded trial is rewritten when the folder is
 * opened again).
 *
 * An output folder holds one configuration (config hash, which includes the label):
 * opening it for another is refused unless `append` is set. With `retryErrors`, a
 * trial whose newest line is an infrastructure error is run again; its new line
 * supersedes the old one (the newest line of a key wins, and the file is compacted to
 * one line per key when the run ends).
 *
 * @module
 */
import { join } from "node:path";
import type { DataRoot } from "../scenario/data_root.ts";
import type { Scenario } from "../scenario/scenario.ts";
import type { ParticipantFactory } from "../participants/participant_factory.ts";
import { runTrial, type TrialPlan } from "./run_trial.ts";
import { keyId, shardOf, trialKey } from "./trial_key.ts";
import {
  type RunConcurrency,
  type TrialKey,
  type TrialRecord,
  TrialRecordSchema,
} from "./trial_record.ts";
import type { CallLimits } from "../bridge/bridge.ts";
import { formatTranscript } from "./transcript.ts";
import { fieldText, InputError } from "../problem/problem.ts";
import { clip, quoteInput } from "../problem/quote.ts";
import { ensureFolder, openRecordsForAppend, recordLines, writeNoFollow } from "./out_files.ts";
import { sha256Hex } from "../canonical/hash.ts";
import type { ParticipantOptions } from "../participants/registry.ts";
import type { TrialPool } from "./worker_pool.ts";
import { defaultWorkerCount, loadAverage } from "./worker_count.ts";
import type { SpeechOptions } from "../speech/speech_options.ts";
import type { ToolsRegistry } from "./served_tools.ts";

/**
 * Trials on a pool of Workers, each with its own event loop (see `worker_pool.ts`).
 * Each Worker is sent the scenarios to run (structured-cloned, expected hashes
 * included) and builds its participants from `participants`, so
 * `RunOptions.participants` must be the factory of these options. It reads the
 * worlds from the data root at `root.path`.
 */
export interface WorkerOptions {
  /** Workers to start; 0 or 1 runs the trials in-process. Never more than the concurrency. */
  count: number;
  /**
   * `count` is the most to use, and the run uses them only when its deterministic
   * trials are enough to pay back their start-up (`worker_count.ts`); else in-process.
   */
  auto?: boolean;
  /** Serializable participant options, as given to `participantFactory`. */
  participants: ParticipantOptions;
  /** Module URLs each Worker imports first (to register a library's own domains). */
  modules?: string[];
  /** Replacements for Workers that break, in all (default 2 per Worker). */
  maxRestarts?: number;
  /** Each Worker's heap limit, MB (default `DEFAULT_WORKER_HEAP_MB`, `worker_pool.ts`). */
  heapLimitMb?: number;
}

/** What `runTrials` runs, where it writes, and how it reports. */
export interface RunOptions {
  /** The scenarios to run; a name given twice runs once. */
  scenarios: Scenario[];
  /** The data root the scenarios' files and DBs are read from. */
  root: DataRoot;
  /** Builds both participants of each trial. */
  participants: ParticipantFactory;
  /** Identifies this configuration: part of every trial key and seed, and checked against `out`. */
  configHash: string;
  /** `eval --label`: recorded in each record (the caller puts it in `configHash` too). */
  label?: string;
  /** Trials per scenario (trial indexes 0 to `trials - 1`). */
  trials: number;
  /** Trials run at once (at least 1). */
  concurrency: number;
  /**
   * What the run was asked for when `concurrency` is already below it (a real-time
   * run's table of what the machine holds), and why: records and `onConcurrency` say it.
   */
  requestedConcurrency?: { trials: number; why: string };
  /**
   * Run exactly the asked concurrency or refuse: fewer at once (fewer trials to run,
   * or `requestedConcurrency` over `concurrency`) is an `InputError` before any trial.
   */
  strictConcurrency?: boolean;
  /** Told once, before any trial, when the run makes fewer trials at once than asked. */
  onConcurrency?: (c: RunConcurrency) => void;
  /**
   * Resolves when the next trial may start (real-time audio runs hold new calls while
   * the pacers are late: `realtime_concurrency.ts`). Called before each trial.
   */
  admit?: (signal?: AbortSignal) => Promise<void>;
  /** Run only the trials of shard `index` (0-based) out of `count`, chosen by trial key. */
  shard?: { index: number; count: number };
  /** Output folder: `trials.jsonl` and one transcript per trial (nothing written without it). */
  out?: string;
  /** Skip the trials `out` already holds a record of. */
  resume?: boolean;
  /**
   * With `out`: told the record line of each planned trial the folder already holds
   * and this run skips (`resume`), before any trial runs, so that a pipe downstream
   * sees the whole run.
   */
  onExisting?: (line: string) => void | Promise<void>;
  /**
   * With `out`: told the lines of its `trials.jsonl` that are not whole, valid trial
   * records (the first {@link MAX_DROPPED_SAID}, and how many in all), once, before
   * any trial runs; they are left out of the file, and their trials run again.
   */
  onDropped?: (lines: DroppedLine[], total: number) => void;
  /** With `resume`: run again the trials whose newest record is an infrastructure error. */
  retryErrors?: boolean;
  /** Allow `out` to hold trials of other configurations. */
  append?: boolean;
  /** Silence and turn limits of each call (the duration limit comes from the scenario). */
  limits: Omit<CallLimits, "maxDurationMs">;
  /** Recorded in each trial's expectations for `score`. */
  minAgentTurns?: number;
  /** `eval --agent-world`: who holds the agent's world (default the harness). */
  agentWorld?: "harness" | "self";
  /** `eval --audio`: how both sides sound (serializable); recordings go to `<out>/audio/`. */
  speech?: SpeechOptions;
  /**
   * Stops the run: no trial starts after it is aborted, and a trial that ends after it
   * is neither written nor passed to `onRecord` (a later `resume` runs it again).
   */
  signal?: AbortSignal;
  /** Called with each finished record, in completion order, after it is written. */
  onRecord: (record: TrialRecord) => void | Promise<void>;
  /** Called with `(0, total)` first, then after each `onRecord` with the count run so far. */
  onProgress?: (done: number, total: number, record?: TrialRecord) => void;
  /** Run the trials on Workers (default: in-process, on this event loop). */
  workers?: WorkerOptions;
  /** `eval --tools-server`: serve each agent's tools over MCP (the trials run in-process). */
  toolsServer?: ToolsRegistry;
}

/** What `runTrials` did. */
export interface RunSummary {
  /** Trials in this shard's plan. */
  planned: number;
  /** Planned trials skipped because `out` already held them (`resume`). */
  skipped: number;
  /** Trials run and recorded. */
  run: number;
  /** Of those run, the trials whose record has status `error`. */
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

/** Runs every planned trial not already done and reports what it did (see the module doc). */
export async function runTrials(opts: RunOptions): Promise<RunSummary> {
  const plan = planTrials(opts.scenarios, opts.trials, opts.configHash, opts.shard);
  let done = new Set<string>();
  let sink: TrialSink | undefined;
  if (opts.out) {
    sink = await TrialSink.open(opts.out, {
      configHash: opts.configHash,
      append: opts.append ?? false,
      resume: opts.resume ?? false,
      keepLines: opts.onExisting !== undefined,
    });
    if (opts.resume) done = opts.retryErrors ? sink.completed : sink.existing;
    if (sink.droppedCount > 0) opts.onDropped?.(sink.dropped, sink.droppedCount);
  }
  const todo = plan.filter((p) => !done.has(keyId(p.key)));
  if (sink && opts.onExisting) {
    // The planned trials the folder already holds, in plan order, before any new one.
    for (const p of plan) {
      const line = done.has(keyId(p.key)) ? sink.lines.get(keyId(p.key)) : undefined;
      if (line !== undefined) await opts.onExisting(line);
    }
  }
  const summary: RunSummary = {
    planned: plan.length,
    skipped: plan.length - todo.length,
    run: 0,
    errors: 0,
  };
  const lanes = Math.max(1, Math.min(opts.concurrency, todo.length));
  let concurrency: RunConcurrency;
  try {
    concurrency = _concurrency(opts, lanes, todo.length);
  } catch (e) {
    sink?.close();
    throw e;
  }
  const stopped = () => opts.signal?.aborted === true;
  let pool: TrialPool | undefined;
  const stopPool = () => pool?.close();
  try {
    const count = _workerCount(opts, lanes, todo);
    if (opts.workers && count > 1 && !stopped() && !opts.toolsServer) {
      pool = await _startPool(opts, opts.workers, count, todo);
      opts.signal?.addEventListener("abort", stopPool);
    }
  } catch (e) {
    sink?.close();
    throw e;
  }
  const trial = _localTrialOptions(opts);
  const execute = pool
    ? (item: { scenario: Scenario; key: TrialKey }) => pool!.run(item)
    : (item: { scenario: Scenario; key: TrialKey }) =>
      runTrial({
        scenario: item.scenario,
        key: item.key,
        root: opts.root,
        participants: opts.participants,
        ...trial,
      });
  opts.onProgress?.(0, todo.length);
  let next = 0;
  const worker = async () => {
    while (next < todo.length && !stopped()) {
      if (opts.admit) {
        await opts.admit(opts.signal);
        if (next >= todo.length || stopped()) return;
      }
      const item = todo[next++]!;
      let record: TrialRecord;
      try {
        record = await execute(item);
      } catch (e) {
        if (stopped()) return; // the pool was closed on abort
        throw e;
      }
      if (stopped()) return;
      record = { ...record, concurrency };
      await sink?.writeTranscript(record);
      // From here on, nothing waits: an abort lands either before the record's line
      // (neither written nor passed on) or after `onRecord` has seen it.
      if (stopped()) return;
      summary.run++;
      if (record.status === "error") summary.errors++;
      sink?.append(record);
      await opts.onRecord(record);
      opts.onProgress?.(summary.run, todo.length, record);
    }
  };
  try {
    await Promise.all(Array.from({ length: lanes }, worker));
  } finally {
    opts.signal?.removeEventListener("abort", stopPool);
    pool?.close();
    sink?.close();
  }
  if (sink && opts.retryErrors && !stopped()) await sink.compact();
  return summary;
}

/**
 * The run's concurrency as asked and as used (`lanes`); told to `onConcurrency` when
 * fewer, refused when fewer and strict.
 */
function _concurrency(opts: RunOptions, lanes: number, todo: number): RunConcurrency {
  const requested = opts.requestedConcurrency?.trials ?? opts.concurrency;
  const why = lanes < opts.concurrency
    ? `only ${todo} trial(s) to run`
    : lanes < requested
    ? opts.requestedConcurrency?.why
    : undefined;
  const c: RunConcurrency = { requested, used: lanes, ...(why !== undefined ? { why } : {}) };
  if (lanes >= requested || todo === 0) return c;
  if (opts.strictConcurrency) {
    throw new InputError({
      message: `cannot run ${requested} trials at once as asked: ${why ?? "fewer"}; ` +
        `at most ${lanes} would run`,
    });
  }
  opts.onConcurrency?.(c);
  return c;
}

/**
 * What every trial of the run is given besides its scenario, key, root and
 * participants: the same in-process and on Workers (where it is sent as it is).
 */
function _trialOptions(
  opts: RunOptions,
): Omit<TrialPlan, "scenario" | "key" | "root" | "participants"> {
  return {
    limits: { maxTurns: opts.limits.maxTurns, silenceMs: opts.limits.silenceMs },
    ...(opts.minAgentTurns !== undefined ? { minAgentTurns: opts.minAgentTurns } : {}),
    ...(opts.label !== undefined ? { label: opts.label } : {}),
    ...(opts.agentWorld === "self" ? { agentWorld: "self" as const } : {}),
    ...(opts.speech ? { speech: opts.speech } : {}),
    ...(opts.speech && opts.out ? { audioDir: join(opts.out, "audio") } : {}),
  };
}

/** The in-process trials' options: the Workers' plus what cannot cross to a Worker. */
function _localTrialOptions(opts: RunOptions) {
  return { ..._trialOptions(opts), ...(opts.toolsServer ? { toolsServer: opts.toolsServer } : {}) };
}

/** Workers for this run: `workers.count` (at most `lanes`), or the default rule's. */
function _workerCount(
  opts: RunOptions,
  lanes: number,
  todo: { scenario: Scenario; key: TrialKey }[],
): number {
  const w = opts.workers;
  if (!w) return 0;
  if (!w.auto) return Math.min(w.count, lanes);
  const deterministic = new Map<Scenario, boolean>();
  let n = 0;
  for (const t of todo) {
    let d = deterministic.get(t.scenario);
    if (d === undefined) {
      deterministic.set(t.scenario, d = opts.participants.deterministic(t.scenario));
    }
    if (d) n++;
  }
  const load = loadAverage();
  return defaultWorkerCount({
    max: w.count,
    concurrency: lanes,
    deterministicTrials: n,
    ...(load !== undefined ? { loadAverage: load } : {}),
  });
}

/** Starts the Workers for the trials to do and waits until each is ready. */
async function _startPool(
  opts: RunOptions,
  workers: WorkerOptions,
  count: number,
  todo: { scenario: Scenario; key: TrialKey }[],
): Promise<TrialPool> {
  const { TrialPool } = await import("./worker_pool.ts");
  const scenarios = new Map(todo.map((t) => [t.scenario.name, t.scenario]));
  const pool = new TrialPool({
    count,
    ...(workers.maxRestarts !== undefined ? { maxRestarts: workers.maxRestarts } : {}),
    ...(workers.heapLimitMb !== undefined ? { heapLimitMb: workers.heapLimitMb } : {}),
    setup: {
      dataRoot: opts.root.path,
      scenarios: [...scenarios.values()],
      participants: workers.participants,
      trial: _trialOptions(opts),
      modules: workers.modules ?? [],
    },
  });
  const aborted = new Promise<void>((resolve) => {
    if (opts.signal?.aborted) resolve();
    opts.signal?.addEventListener("abort", () => resolve(), { once: true });
  });
  const ready = pool.ready();
  ready.catch(() => {}); // rethrown below unless the run was stopped first
  try {
    await Promise.race([ready, aborted]);
  } catch (e) {
    pool.close();
    throw e;
  }
  return pool;
}

/**
 * A transcript's file name: readable, safe, and short enough for any file system
 * (scenario names can be long), made unique by a hash of the trial key.
 */
export function transcriptName(record: Pick<TrialRecord, "key">): string {
  const safe = record.key.scenario.replace(/[^A-Za-z0-9_.-]+/g, "_").slice(0, 120);
  return `${safe}__t${record.key.trial}__${sha256Hex(keyId(record.key)).slice(0, 12)}.txt`;
}

/** How a `TrialSink` treats the folder's existing records. */
export interface SinkOptions {
  /** The run's configuration: records of another one are refused unless `append`. */
  configHash: string;
  append: boolean;
  /**
   * The run continues the folder's (skipping what it holds). A folder holding records
   * is refused unless this or `append` is set: running again would add duplicates.
   */
  resume?: boolean;
  /** Keep each key's newest line (`TrialSink.lines`) for re-emitting; else it stays empty. */
  keepLines?: boolean;
}

/** `<out>/trials.jsonl` (append-only, one write per record) and `<out>/transcripts/`. */
export class TrialSink {
  /** Trial keys with a record in the folder. */
  readonly existing: Set<string>;
  /** Trial keys whose newest record is not an infrastructure error. */
  readonly completed: Set<string>;
  /**
   * The newest line of each key in the folder, as written (for re-emitting on resume);
   * empty unless `keepLines` was asked: records can be megabytes each.
   */
  readonly lines: Map<string, string>;
  readonly #file: Deno.FsFile;
  readonly #dir: string;
  /**
   * The lines of the folder's `trials.jsonl` that were not whole, valid trial records
   * when it was opened: they are left out of the file, and their trials run again.
   */
  dropped: DroppedLine[] = [];
  /** How many lines were left out in all ({@link dropped} holds the first few). */
  droppedCount = 0;
  /** Some key has more than one line: `compact` rewrites the file. */
  #duplicates: boolean;
  #closed = false;

  private constructor(
    dir: string,
    file: Deno.FsFile,
    existing: Set<string>,
    completed: Set<string>,
    lines: Map<string, string>,
    duplicates: boolean,
  ) {
    this.#dir = dir;
    this.#file = file;
    this.existing = existing;
    this.completed = completed;
    this.lines = lines;
    this.#duplicates = duplicates;
  }

  static async open(dir: string, options?: SinkOptions): Promise<TrialSink> {
    const transcripts = join(dir, "transcripts");
    try {
      await ensureFolder(transcripts);
    } catch (e) {
      throw new InputError({
        option: "out",
        file: dir,
        message: `cannot use as an output folder: ${(e as Error).message}`,
      });
    }
    const path = join(dir, "trials.jsonl");
    const existing = new Set<string>();
    const completed = new Set<string>();
    const newest = new Map<string, string>();
    const present = new Set<string>();
    for await (const e of Deno.readDir(transcripts)) present.add(e.name);
    // Read one line at a time: the file may be large, and only lines that are whole,
    // valid trial records count. Any other line is left out (its trial runs again):
    // a run killed mid-write leaves a partial last line, and a line may have been
    // edited or written by something else.
    const dropped: DroppedLine[] = [];
    const droppedLines = new Set<number>();
    const drop = (d: DroppedLine) => {
      droppedLines.add(d.line);
      if (dropped.length < MAX_DROPPED_SAID) dropped.push(d);
    };
    let records = 0;
    let duplicates = false;
    let partialAt: number | undefined;
    const others = new Map<string, string | undefined>();
    // Records without a transcript (a run killed between the two): written once accepted.
    const untranscribed: TrialRecord[] = [];
    for await (const { line, text, offset, terminated } of recordLines(path)) {
      if (!text.trim()) continue;
      if (!terminated) {
        partialAt = offset;
        drop({ line, reason: "cut off before its end (a run stopped mid-write)" });
        continue;
      }
      const r = parseRecordLine(text);
      if (!r.ok) {
        drop({ line, reason: r.reason });
        continue;
      }
      const record = r.record;
      const id = keyId(record.key);
      if (existing.has(id)) duplicates = true;
      existing.add(id);
      if (options?.keepLines) newest.set(id, text);
      // The newest line of a key decides whether it still needs a run.
      if (record.status === "error") completed.delete(id);
      else completed.add(id);
      if (options && record.key.config_hash !== options.configHash) {
        others.set(record.key.config_hash, record.label);
      }
      records++;
      if (!present.has(transcriptName(record))) untranscribed.push(record);
    }
    if (options && !options.append && !(options.resume ?? true) && records > 0) {
      throw new InputError({
        option: "out",
        code: "out_not_empty",
        file: dir,
        message: `holds ${records} trial record(s) already; running into it again ` +
          "would record those trials twice",
        hint: "continue the run in it, add to it, or use a new folder",
      });
    }
    if (others.size > 0 && options && !options.append) {
      const [hash, label] = [...others][0]!;
      throw new InputError({
        option: "out",
        code: "out_other_config",
        file: dir,
        message: `holds trials of another configuration (config ${hash}${
          label !== undefined ? `, label ${quoteInput(label)}` : ""
        }${others.size > 1 ? ` and ${others.size - 1} more` : ""}); a report would pool them`,
        hint: "use a new folder, or append this configuration to it",
      });
    }
    if (droppedLines.size === 1 && partialAt !== undefined) {
      // Only a partial last line: cutting it off cannot lose the lines before it.
      await Deno.truncate(path, partialAt);
    } else if (droppedLines.size > 0) {
      await _rewriteWithout(path, droppedLines);
    }
    for (const r of untranscribed) await _restoreTranscript(transcripts, present, r);
    const file = await openRecordsForAppend(path);
    const sink = new TrialSink(dir, file, existing, completed, newest, duplicates);
    sink.dropped = dropped;
    sink.droppedCount = droppedLines.size;
    return sink;
  }

  /**
   * The transcript, then the record's line. The transcript comes first: a kill
   * between the two leaves no record without its transcript (an orphan transcript is
   * overwritten when the trial runs again).
   */
  async write(record: TrialRecord): Promise<void> {
    await this.writeTranscript(record);
    this.append(record);
  }

  /** A record's transcript (first half of `write`). */
  async writeTranscript(record: TrialRecord): Promise<void> {
    if (this.#closed) return;
    try {
      await writeNoFollow(
        join(this.#dir, "transcripts", transcriptName(record)),
        formatTranscript(record),
      );
    } catch {
      // A transcript is a convenience; never lose the run over one.
    }
  }

  /** A record's line, in one synchronous write (second half of `write`). */
  append(record: TrialRecord): void {
    if (this.#closed) return;
    const id = keyId(record.key);
    if (this.existing.has(id)) this.#duplicates = true;
    const bytes = new TextEncoder().encode(JSON.stringify(record) + "\n");
    let off = 0;
    while (off < bytes.length) off += this.#file.writeSync(bytes.subarray(off));
    this.#file.syncDataSync();
    this.existing.add(id);
    if (record.status === "error") this.completed.delete(id);
    else this.completed.add(id);
  }

  /** Rewrites `trials.jsonl` with only the newest line of each key (after a retry). */
  async compact(): Promise<void> {
    if (!this.#duplicates) return;
    const path = join(this.#dir, "trials.jsonl");
    const newest = new Map<string, number>();
    for await (const { line, text } of recordLines(path)) {
      try {
        newest.set(keyId((JSON.parse(text) as TrialRecord).key), line);
      } catch { /* kept as it is: only complete records are written */ }
    }
    const keep = new Set(newest.values());
    const older = new Set<number>();
    for await (const { line, text } of recordLines(path)) {
      if (!keep.has(line) && _isRecordLine(text)) older.add(line);
    }
    await _rewriteWithout(path, older);
    this.#duplicates = false;
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#file.close();
  }
}

function _isRecordLine(line: string): boolean {
  try {
    return (JSON.parse(line) as TrialRecord)?.key !== undefined;
  } catch {
    return false;
  }
}

/** Lines left out that a sink keeps to say (the rest are counted). */
export const MAX_DROPPED_SAID = 20;

/** A line of `trials.jsonl` left out when the folder was opened, and why. */
export interface DroppedLine {
  /** 1-based line number in the file as it was. */
  line: number;
  /** Why it is not a whole, valid trial record (bounded). */
  reason: string;
}

/** A line as a trial record, or why it is not one. */
function parseRecordLine(
  text: string,
): { ok: true; record: TrialRecord } | { ok: false; reason: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, reason: "not JSON" };
  }
  const parsed = TrialRecordSchema.safeParse(value);
  if (parsed.success) return { ok: true, record: parsed.data };
  const issue = parsed.error.issues[0]!;
  const field = fieldText(issue.path);
  return {
    ok: false,
    reason: clip(`not a whole trial record (${field ? `${field}: ` : ""}${issue.message})`, 300),
  };
}

/** Rewrites `path` without the given lines (1-based), through a new file renamed over it. */
async function _rewriteWithout(path: string, lines: Set<number>): Promise<void> {
  if (lines.size === 0) return;
  const tmp = `${path}.${crypto.randomUUID()}.tmp`;
  const out = await Deno.open(tmp, { write: true, createNew: true });
  try {
    const encoder = new TextEncoder();
    for await (const { line, text, terminated } of recordLines(path)) {
      if (lines.has(line) || !terminated) continue;
      const bytes = encoder.encode(text + "\n");
      let off = 0;
      while (off < bytes.length) off += await out.write(bytes.subarray(off));
    }
    out.close();
    await Deno.rename(tmp, path);
  } catch (e) {
    try {
      out.close();
    } catch { /* closed */ }
    await Deno.remove(tmp).catch(() => {});
    throw e;
  }
}

/** Writes a record's transcript if the folder has none (a run killed between the two). */
async function _restoreTranscript(
  dir: string,
  present: Set<string>,
  r: TrialRecord,
): Promise<void> {
  const name = transcriptName(r);
  if (present.has(name)) return;
  try {
    await writeNoFollow(join(dir, name), formatTranscript(r));
    present.add(name);
  } catch { /* a transcript is a convenience */ }
}

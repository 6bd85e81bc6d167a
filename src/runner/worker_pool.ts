/**
 * A pool of trial Workers (`trial_worker.ts`), each with its own event loop, so trials
 * use every core. The runner keeps the plan, the output folder and the callbacks; the
 * pool only turns a trial into its record. A trial goes to the Worker with the fewest
 * trials in flight, so the runner's concurrency is spread across the Workers.
 *
 * A Worker that breaks (an uncaught error) fails only the trials it was running, as
 * `harness_error` records; it is replaced by a new one (up to a bound on restarts) and
 * the trials it had not started go to the others. `close` stops every Worker at once:
 * the trials in flight are dropped (their promises reject with an `AbortError`).
 *
 * Each Worker has its own heap limit ({@link DEFAULT_WORKER_HEAP_MB}): a trial that
 * runs away with memory ends its Worker (`ERR_WORKER_OUT_OF_MEMORY`), which fails only
 * that Worker's trials, instead of ending the process. That is why the Workers are
 * `node:worker_threads` Workers: Deno's web `Worker` takes no heap limit, and a web
 * Worker that reaches V8's limit aborts the whole process.
 *
 * Each Worker is sent the scenarios themselves (`WorkerSetup.scenarios`), so it
 * needs no selection, scenario file or gold of its own: what it runs is the runner's
 * scenario by construction, and no identity check is needed. Its start-up is its
 * module graph and its own parse of the worlds (`startups`).
 *
 * The Workers share one TTS cache (`shared_tts.ts`): an utterance one Worker made is
 * given to the others, so more Workers do not synthesize it again.
 *
 * @module
 */
import { Worker } from "node:worker_threads";
import type { Scenario } from "../scenario/scenario.ts";
import { failedRecord } from "./run_trial.ts";
import type { TrialKey, TrialRecord } from "./trial_record.ts";
import type { FromWorker, ToWorker, WorkerSetup } from "./worker_protocol.ts";
import { SharedTtsBoard } from "./shared_tts.ts";

/** One trial for the pool. */
export interface PoolTask {
  scenario: Scenario;
  key: TrialKey;
}

interface Pending {
  task: PoolTask;
  resolve: (r: TrialRecord) => void;
  reject: (e: unknown) => void;
  /** Sent to the Worker (else it may go to another one). */
  sent: boolean;
}

/** Where one Worker's start-up went, in ms of wall time. */
export interface WorkerStartup {
  /** From `new Worker` until its module graph had loaded. */
  moduleMs: number;
  /** Its `init`: the setup's modules and its parse of the worlds. */
  initMs: number;
  /** From `new Worker` until it was ready for trials. */
  readyMs: number;
}

interface Slot {
  /** Its number in the pool (a replacement gets a new one). */
  n: number;
  worker: Worker;
  state: "starting" | "ready" | "dead";
  /** Settles when the Worker is ready for trials (rejects if it could not start). */
  ready: Promise<void>;
  inflight: Map<number, Pending>;
}

/** How the pool runs. */
export interface PoolOptions {
  /** Workers to start (at least 1). */
  count: number;
  /** Sent to each Worker (structured-cloned): the scenarios it may run, and how. */
  setup: WorkerSetup;
  /** Replacements for broken Workers, in all (default 2 per Worker). */
  maxRestarts?: number;
  /** Each Worker's heap limit, MB (default {@link DEFAULT_WORKER_HEAP_MB}). */
  heapLimitMb?: number;
}

/**
 * A Worker's heap limit, MB: far above what its trials need (a 2.8 MB world shared,
 * bounded turns and tool values; audio lives outside the heap), far below what would
 * take the machine down with it.
 */
export const DEFAULT_WORKER_HEAP_MB = 2048;

const WORKER_URL = new URL("./trial_worker.ts", import.meta.url);

export class TrialPool {
  readonly #opts: PoolOptions;
  readonly #slots: Slot[] = [];
  #nextId = 0;
  #restarts = 0;
  #closed = false;
  readonly #startups: WorkerStartup[] = [];
  #spawned = 0;
  readonly #tts = new SharedTtsBoard((n, answer) => {
    const slot = this.#slots.find((s) => s.n === n);
    if (slot && slot.state !== "dead") slot.worker.postMessage(answer satisfies ToWorker);
  });

  constructor(opts: PoolOptions) {
    this.#opts = opts;
    for (let i = 0; i < Math.max(1, opts.count); i++) this.#slots.push(this.#spawn());
  }

  /** Broken Workers replaced so far. */
  get restarts(): number {
    return this.#restarts;
  }

  /** The start-up of each Worker that became ready, in the order they did. */
  get startups(): readonly WorkerStartup[] {
    return this.#startups;
  }

  /** Settles when every Worker is ready; rejects if one could not start. */
  async ready(): Promise<void> {
    await Promise.all(this.#slots.map((s) => s.ready));
  }

  /** The record of one trial, from the least busy Worker. */
  run(task: PoolTask): Promise<TrialRecord> {
    return new Promise((resolve, reject) => {
      this.#dispatch({ task, resolve, reject, sent: false });
    });
  }

  /** Stops every Worker; trials in flight reject with an `AbortError`. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const slot of this.#slots) {
      slot.state = "dead";
      void slot.worker.terminate();
      for (const p of slot.inflight.values()) {
        p.reject(new DOMException("the trial pool was closed", "AbortError"));
      }
      slot.inflight.clear();
    }
  }

  #dispatch(p: Pending): void {
    if (this.#closed) {
      p.reject(new DOMException("the trial pool was closed", "AbortError"));
      return;
    }
    let best: Slot | undefined;
    for (const s of this.#slots) {
      if (s.state === "dead") continue;
      if (!best || s.inflight.size < best.inflight.size) best = s;
    }
    if (!best) {
      p.resolve(this.#failed(p.task, "no trial worker left (each one broke)"));
      return;
    }
    const slot = best;
    const id = this.#nextId++;
    slot.inflight.set(id, p);
    const send = () => {
      if (slot.state === "dead" || slot.inflight.get(id) !== p) return;
      p.sent = true;
      const msg: ToWorker = { type: "trial", id, key: p.task.key };
      slot.worker.postMessage(msg);
    };
    if (slot.state === "ready") send();
    else slot.ready.then(send, () => {});
  }

  #spawn(): Slot {
    const spawnedAt = performance.timeOrigin + performance.now();
    const heapMb = this.#opts.heapLimitMb ?? DEFAULT_WORKER_HEAP_MB;
    const worker = new Worker(WORKER_URL, { resourceLimits: { maxOldGenerationSizeMb: heapMb } });
    let settle!: { resolve: () => void; reject: (e: Error) => void };
    const ready = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
    ready.catch(() => {}); // a replacement's failure is handled by `#kill`
    const slot: Slot = {
      n: this.#spawned++,
      worker,
      state: "starting",
      ready,
      inflight: new Map(),
    };
    worker.on("message", (msg: FromWorker) => {
      if (msg.type === "tts_lookup" || msg.type === "tts_put") {
        this.#tts.receive(slot.n, msg);
      } else if (msg.type === "ready") {
        this.#startups.push({
          moduleMs: msg.loadedAt - spawnedAt,
          initMs: msg.initMs,
          readyMs: performance.timeOrigin + performance.now() - spawnedAt,
        });
        slot.state = "ready";
        settle.resolve();
      } else if (msg.type === "crashed") {
        broke(`the trial worker broke: ${msg.message}`);
      } else if (msg.type === "init_error") {
        this.#kill(
          slot,
          `a trial worker could not start: ${msg.message}`,
          settle.reject,
        );
      } else {
        const p = slot.inflight.get(msg.id);
        if (!p) return;
        slot.inflight.delete(msg.id);
        p.resolve(
          msg.type === "record" ? msg.record : this.#failed(p.task, `trial worker: ${msg.message}`),
        );
      }
    });
    const broke = (message: string) => {
      const wasReady = slot.state === "ready";
      this.#kill(slot, message, settle.reject);
      if (wasReady && !this.#closed && this.#restarts < this.#maxRestarts()) {
        this.#restarts++;
        const i = this.#slots.indexOf(slot);
        if (i >= 0) this.#slots[i] = this.#spawn();
      }
    };
    worker.on("error", (error: Error & { code?: string }) => {
      broke(
        error.code === "ERR_WORKER_OUT_OF_MEMORY"
          ? `the trial worker ran out of memory (its heap limit is ${heapMb} MB)`
          : `the trial worker broke: ${error.message}`,
      );
    });
    worker.on("exit", (code: number) => broke(`the trial worker exited (code ${code})`));
    worker.on(
      "messageerror",
      () => broke("the trial worker sent a message that could not be read"),
    );
    const init: ToWorker = { type: "init", setup: this.#opts.setup };
    worker.postMessage(init);
    return slot;
  }

  /** Stops a Worker: its started trials fail, the others go to another Worker. */
  #kill(slot: Slot, message: string, rejectReady: (e: Error) => void): void {
    if (slot.state === "dead") return;
    slot.state = "dead";
    void slot.worker.terminate();
    this.#tts.release(slot.n);
    rejectReady(new Error(message));
    const pending = [...slot.inflight.values()];
    slot.inflight.clear();
    for (const p of pending) {
      if (p.sent) p.resolve(this.#failed(p.task, message));
      else this.#dispatch(p);
    }
  }

  #maxRestarts(): number {
    return this.#opts.maxRestarts ?? 2 * Math.max(1, this.#opts.count);
  }

  #failed(task: PoolTask, message: string): TrialRecord {
    const { label, minAgentTurns } = this.#opts.setup.trial;
    return failedRecord({
      scenario: task.scenario,
      key: task.key,
      ...(label !== undefined ? { label } : {}),
      ...(minAgentTurns !== undefined ? { minAgentTurns } : {}),
    }, { kind: "harness_error", message });
  }
}

/**
 * A trial Worker: its own event loop, its own frozen worlds. `init` gives it the
 * runner's scenarios themselves, so it selects nothing and replays no gold; it opens
 * the data root only to read and freeze the worlds those scenarios name (once, at
 * `init`). Then it runs every `trial` it is sent at once (the pool bounds how many)
 * and answers each with its record.
 *
 * @module
 */
import { parentPort } from "node:worker_threads";
import { DataRoot } from "../scenario/data_root.ts";
import type { Scenario } from "../scenario/scenario.ts";
import { participantFactory } from "../participants/registry.ts";
import type { ParticipantFactory } from "../participants/participant_factory.ts";
import { runTrial, type TrialPlan } from "./run_trial.ts";
import type { TrialKey } from "./trial_record.ts";
import { type FromWorker, ToWorkerSchema, type WorkerSetup } from "./worker_protocol.ts";
import { shareTtsAcrossThreads } from "../speech/tts_cache.ts";
import { PortTtsStore } from "./shared_tts.ts";

/** When this Worker's module graph had loaded (its first line runs after its imports). */
const loadedAt = performance.timeOrigin + performance.now();

type TrialOptions = Omit<TrialPlan, "scenario" | "key" | "root" | "participants">;

interface Loaded {
  setup: WorkerSetup;
  root: DataRoot;
  scenarios: Map<string, Scenario>;
  participants: ParticipantFactory;
  onTrialStart: ((key: TrialKey) => void)[];
}

let loaded: Loaded | undefined;

function post(message: FromWorker): void {
  parentPort!.postMessage(message);
}

// A remote TTS's cache here shares the pool's: each utterance is asked for once a run.
const ttsStore = new PortTtsStore(post);
shareTtsAcrossThreads(ttsStore);

async function init(setup: WorkerSetup): Promise<Loaded> {
  const onTrialStart: ((key: TrialKey) => void)[] = [];
  for (const url of setup.modules) {
    const mod = await import(url) as { onTrialStart?: (key: TrialKey) => void };
    if (typeof mod.onTrialStart === "function") onTrialStart.push(mod.onTrialStart);
  }
  const root = new DataRoot(setup.dataRoot);
  const scenarios = new Map(setup.scenarios.map((s) => [s.name, s]));
  // Every world now, so the trials find them parsed; one that does not open fails
  // only its own trials, when they open it, as in-process.
  for (const s of scenarios.values()) {
    for (const w of [s.world.db, s.world.user_db]) {
      if (!w || !("path" in w)) continue;
      try {
        root.db(w.path);
      } catch { /* reported by the trial */ }
    }
  }
  return {
    setup,
    root,
    scenarios,
    participants: participantFactory(setup.participants),
    onTrialStart,
  };
}

/** An uncaught error ends this Worker: the pool is told (and fails the trials it ran). */
function crash(error: unknown): void {
  post({ type: "crashed", message: error instanceof Error ? error.message : String(error) });
}
globalThis.addEventListener("error", (event) => {
  event.preventDefault();
  crash(event.error ?? event.message);
});
globalThis.addEventListener("unhandledrejection", (event) => {
  event.preventDefault();
  crash(event.reason);
});

parentPort!.on("message", (data: unknown) => {
  const msg = ToWorkerSchema.parse(data);
  if (msg.type === "tts_answer") return ttsStore.answer(msg);
  if (msg.type === "init") {
    const t0 = performance.now();
    init(msg.setup).then((l) => {
      loaded = l;
      post({ type: "ready", loadedAt, initMs: performance.now() - t0 });
    }, (e) => post({ type: "init_error", message: e instanceof Error ? e.message : String(e) }));
    return;
  }
  const { id, key } = msg;
  const l = loaded;
  const scenario = l?.scenarios.get(key.scenario);
  if (!l || !scenario) {
    post({ type: "trial_error", id, message: `this worker has no scenario "${key.scenario}"` });
    return;
  }
  // Not caught: a hook that throws stands for a Worker that breaks (the pool's test).
  for (const hook of l.onTrialStart) hook(key);
  runTrial({
    scenario,
    key,
    root: l.root,
    participants: l.participants,
    ...(l.setup.trial as TrialOptions),
  }).then(
    (record) => post({ type: "record", id, record }),
    (e) => post({ type: "trial_error", id, message: e instanceof Error ? e.message : String(e) }),
  );
});

import { z } from "zod";
import type { Command, Io } from "../cli/io.ts";
import { formatProblem, InputError } from "../cli/problem.ts";
import { intFlag, parseFlags } from "../cli/args.ts";
import { readJsonl } from "../cli/jsonl.ts";
import { DEFAULT_LIMITS } from "../bridge/bridge.ts";
import { openDataRoot } from "../scenario/data_root.ts";
import {
  type Selection,
  SELECTION_FLAGS,
  selectionFromFlags,
  selectScenarios,
} from "../scenario/suites.ts";
import {
  type LlmSettings,
  participantFactory,
  type ParticipantOptions,
} from "../participants/registry.ts";
import { runTrials } from "../runner/runner.ts";
import { workersPayOffAt } from "../runner/worker_count.ts";
import { configHash } from "../runner/trial_key.ts";
import { sha256Hex } from "../canonical/hash.ts";
import { envWithKey } from "../cli/secret_env.ts";
import { MODEL_ENV, type ModelRole, modelSettings } from "../llm/model_settings.ts";
import { progressBar } from "../runner/progress.ts";
import { isWireFraming, WIRE_FRAMINGS } from "../transport/mapping.ts";
import { checkIdentities, type RefIdentity } from "../scenario/identity.ts";
import { join } from "node:path";

const help = `eval: run trials and print one trial record per line

Usage: cli.ts eval [selection] [--agent A] [--user U] [--trials N] [--concurrency C]
                   [--workers W] [--shard i/n] [--label NAME] [--out DIR [--resume [--retry-errors]]]

Selection (else scenario references from stdin, as "list" prints them; stdin that is a
pipe or file with no reference is an error, exit 2; from a terminal, every scenario):
  --data-root DIR     data laid out as <domain>/... (else EVAL_DATA_ROOT, else bundled fixtures)
  --domain X          a suite (repeatable)           --scenarios a,b   exact names
  FILE|DIR            scenario or flow files (validated before any call)
  --all               every scenario of the data root (stdin is not read)

Participants:
  --agent A           oracle | noop | llm | navigator | script:FILE | ws://HOST:PORT/PATH
                      (default: llm when an agent model is configured, else oracle)
  --user U            auto (scripted; flow callee for flows) | scripted | llm | flow | ws://...
  --agent-model M     model of the llm agent (else CALLBENCH_AGENT_MODEL)
  --user-model M      model of the llm caller or flow persona (else CALLBENCH_USER_MODEL)
  --base-url URL      OpenAI-compatible base URL (else OPENAI_BASE_URL)
  --api-key-env NAME  environment variable holding the API key (default OPENAI_API_KEY)
  --temperature T     sampling temperature of LLM participants
  --connect-attempts N  tries to reach a ws:// participant before the trial fails (default 3)
  --kick TEXT         text sent to a ws:// agent when the call starts (reference-style bots)
  --framing F         the ws:// agent's wire: json (default; RTVI JSON text frames) |
                      protobuf (RTVI in pipecat protobuf frames) | twilio (Twilio Media
                      Streams: callbench plays Twilio; audio only). Else the URL's ?framing=
  --agent-world W     harness (default): callbench holds the world and runs every tool |
                      self: the ws:// agent is a reference-style bot that holds its own world
                      (configured as the reference runner does; it sends "Hello" unless --kick;
                      the final hash is the bot's own claim: world_owner "agent")

Exit status: 0 when the trials ran (whatever their verdicts), 1 when every trial ended in an
infrastructure error (e.g. the agent was unreachable) or stdout closed without --out (the run
stops), 2 for usage or input errors, 130 on Ctrl-C (it says what was recorded; --resume
continues). With --out, a closed stdout does not stop the run.

Run:
  --label NAME        names this configuration: recorded in each record, part of the
                      config hash, shown by report (which never pools configurations)
  --trials N          trials per scenario, each with its own seed (default 1)
  --concurrency C     trials at once (default 4), spread across the workers
  --workers W         Workers running trials, each with its own event loop and its own
                      copy of the worlds (never more than C); 0 or 1 runs them here.
                      Default: one per core (${defaultWorkers()}) when the run has at least ${
  workersPayOffAt(Math.max(2, defaultWorkers()))
}
                      simulated-clock trials (they pay back the Workers' start-up) and
                      the load average leaves cores idle, else none; real-clock calls
                      (ws://, llm) run here unless W is given
  --shard i/n         run only shard i of n (0-based; by a hash of the trial key)
  --out DIR           append records to DIR/trials.jsonl, transcripts to DIR/transcripts/;
                      a folder holding another configuration is refused (see --append)
  --append            allow --out DIR to hold other configurations too
  --resume            skip trials already in DIR/trials.jsonl
  --retry-errors      with --resume: run infrastructure-error trials again (their new
                      record supersedes the old one)
  --max-turns N       turn guard per call (default ${DEFAULT_LIMITS.maxTurns})
  --min-agent-turns N recorded for score: a trial whose agent spoke fewer turns fails
                      (counts spoken agent turns, not LLM calls as the reference does)
  --silence S         seconds of silence that end a call (default ${
  DEFAULT_LIMITS.silenceMs / 1000
})`;

const ScenarioRef = z.object({
  name: z.string().min(1),
  source: z.string().optional(),
  data_root: z.string().optional(),
  scenario_sha256: z.string().optional(),
}).passthrough();

export const command: Command = {
  summary: "run trials and print one trial record per line",
  help,
  async main(args, io) {
    const { values, positionals } = parseFlags(args, {
      ...SELECTION_FLAGS,
      agent: { type: "string" },
      user: { type: "string" },
      "agent-model": { type: "string" },
      "user-model": { type: "string" },
      "base-url": { type: "string" },
      "api-key-env": { type: "string" },
      temperature: { type: "string" },
      "connect-attempts": { type: "string" },
      kick: { type: "string" },
      framing: { type: "string" },
      "agent-world": { type: "string" },
      trials: { type: "string" },
      concurrency: { type: "string" },
      workers: { type: "string" },
      shard: { type: "string" },
      out: { type: "string" },
      resume: { type: "boolean" },
      "retry-errors": { type: "boolean" },
      append: { type: "boolean" },
      label: { type: "string" },
      all: { type: "boolean" },
      "max-turns": { type: "string" },
      "min-agent-turns": { type: "string" },
      silence: { type: "string" },
    });
    if (values.resume && !values.out) {
      throw new InputError({ field: "--resume", message: "needs --out DIR" });
    }
    if (values["retry-errors"] && !values.resume) {
      throw new InputError({ field: "--retry-errors", message: "needs --resume (and --out DIR)" });
    }
    if (values.append && !values.out) {
      throw new InputError({ field: "--append", message: "needs --out DIR" });
    }
    const label = values.label;
    if (label !== undefined && (label.trim() === "" || /[\r\n]/.test(label))) {
      throw new InputError({ field: "--label", message: "expected a name on one line" });
    }
    const agentWorld = values["agent-world"] ?? "harness";
    if (agentWorld !== "harness" && agentWorld !== "self") {
      throw new InputError({ field: "--agent-world", message: "expected harness or self" });
    }
    if (agentWorld === "self" && !/^wss?:\/\//.test(values.agent ?? "")) {
      throw new InputError({
        field: "--agent-world",
        message: "self needs a ws:// agent (a bot that holds its own world)",
      });
    }
    const framing = values.framing;
    if (framing !== undefined && !isWireFraming(framing)) {
      throw new InputError({
        field: "--framing",
        message: `unknown framing "${framing}"`,
        hint: `one of ${WIRE_FRAMINGS.join(", ")}`,
      });
    }
    if (framing !== undefined && !/^wss?:\/\//.test(values.agent ?? "")) {
      throw new InputError({ field: "--framing", message: "needs a ws:// agent" });
    }
    const trials = intFlag("trials", values.trials, 1);
    const concurrency = intFlag("concurrency", values.concurrency, 4);
    // Omitted: up to one per core, used only when the run pays their start-up back.
    const autoWorkers = values.workers === undefined;
    const workers = intFlag("workers", values.workers, defaultWorkers(), 0);
    const shard = parseShard(values.shard);
    const silence = values.silence === undefined
      ? DEFAULT_LIMITS.silenceMs / 1000
      : Number(values.silence);
    if (!(silence > 0)) {
      throw new InputError({ field: "--silence", message: "expected seconds > 0" });
    }
    const limits = {
      maxTurns: intFlag("max-turns", values["max-turns"], DEFAULT_LIMITS.maxTurns),
      silenceMs: silence * 1000,
    };

    const minAgentTurns = values["min-agent-turns"] === undefined
      ? undefined
      : intFlag("min-agent-turns", values["min-agent-turns"], 0, 0);
    const participants = {
      ...participantOptions({ ...values, agent: values.agent ?? defaultAgent(values, io) }, io),
      connectAttempts: intFlag("connect-attempts", values["connect-attempts"], 3),
      ...(values.kick !== undefined ? { kick: values.kick } : {}),
      ...(framing !== undefined ? { framing } : {}),
    };
    // A script agent is read and checked before any call; its text shapes the calls.
    let script: string | undefined;
    if (participants.agent.startsWith("script:")) {
      const path = participants.agent.slice("script:".length);
      const { ScriptAgent } = await import("../participants/script.ts");
      await ScriptAgent.fromFile(path);
      script = sha256Hex(await Deno.readTextFile(path));
    }
    const factory = participantFactory(participants);
    const selection = await selectionFrom(values, positionals, io);
    // References from `list` carry their data root; a flag or EVAL_DATA_ROOT wins.
    const root = openDataRoot(
      values["data-root"] ?? (io.env("EVAL_DATA_ROOT") ? undefined : selection.dataRoot),
      io,
    );
    const sel = await selectScenarios(root, selection);
    if (sel.fileProblems.length > 0) throw new InputError(sel.fileProblems);
    // A reference listed from another data root must not run that root's namesake.
    if (selection.refs) checkIdentities(selection.refs, sel.scenarios, root);
    for (const p of sel.problems) io.err(`warning: ${formatProblem(p)}`);
    if (sel.scenarios.length === 0) throw new InputError("no scenarios selected");
    if (participants.user === "llm" && sel.scenarios.some((s) => s.domain === "flow")) {
      throw new InputError({
        field: "--user",
        message: "flow scenarios are played by the flow callee, not an llm caller",
        hint: "use --user auto (the default); --user-model gives the flow's persona nodes a model",
      });
    }

    const config = configHash({
      agent: participants.agent,
      user: participants.user,
      agent_model: modelConfig(participants.agentModel),
      user_model: modelConfig(participants.userModel),
      limits,
      ...(script ? { script } : {}),
      ...(participants.kick !== undefined ? { kick: participants.kick } : {}),
      ...(framing !== undefined ? { framing } : {}),
      ...(label !== undefined ? { label } : {}),
      ...(agentWorld === "self" ? { agent_world: agentWorld } : {}),
    });
    const bar = io.errIsTerminal ? progressBar(io) : undefined;
    const out = values.out;
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
    const unlisten = io.onInterrupt?.(() => {
      why ??= "interrupt";
      stop.abort();
    });
    const run = runTrials({
      scenarios: sel.scenarios,
      root,
      participants: factory,
      configHash: config,
      ...(label !== undefined ? { label } : {}),
      trials,
      concurrency,
      ...(workers > 1
        ? {
          workers: { count: workers, participants, ...(autoWorkers ? { auto: true } : {}) },
        }
        : {}),
      shard,
      out,
      resume: values.resume,
      retryErrors: values["retry-errors"] ?? false,
      append: values.append ?? false,
      limits,
      signal: stop.signal,
      onRecord: (r) => {
        written++;
        if (r.status === "error") {
          const kind = r.error?.kind ?? "harness_error";
          const seen = errors.get(kind);
          if (seen) seen.count++;
          else errors.set(kind, { count: 1, message: r.error?.message ?? "" });
        }
        if (!stdoutOpen) return;
        try {
          io.out(JSON.stringify(r));
          printed++;
        } catch (e) {
          if (!(e instanceof Deno.errors.BrokenPipe)) throw e;
          // The reader went away (`eval --out D | head -1`): the folder keeps the run.
          stdoutOpen = false;
          if (!out) {
            why ??= "stdout";
            stop.abort();
          }
        }
      },
      ...(minAgentTurns !== undefined ? { minAgentTurns } : {}),
      ...(agentWorld === "self" ? { agentWorld: "self" as const } : {}),
      onProgress: (done, total, record) => {
        if (done === 0) toRun = total;
        bar?.(done, total, record);
      },
    });
    run.catch(() => {}); // awaited below unless the run is stopped
    let summary: Awaited<typeof run> | undefined;
    try {
      summary = await Promise.race([run, stopped]);
    } finally {
      unlisten?.();
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
    io.err(
      `eval: ${summary.run} trial(s) run, ${summary.skipped} already done, ${summary.errors} infrastructure error(s)` +
        (shard ? ` [shard ${shard.index}/${shard.count}]` : ""),
    );
    for (const [kind, { count, message }] of [...errors].sort(([a], [b]) => a < b ? -1 : 1)) {
      const first = message.length > 300 ? message.slice(0, 297) + "..." : message;
      io.err(`  ${kind}: ${count} trial(s); first: ${first}`);
    }
    if (!stdoutOpen && out) {
      io.err(`eval: stdout closed during the run; every record is in ${join(out, "trials.jsonl")}`);
    }
    // Failed trials are results; a run in which every trial broke is not.
    return summary.run > 0 && summary.errors === summary.run ? 1 : 0;
  },
};

/** `--workers` omitted: at most one per core (`worker_count.ts` decides how many). */
function defaultWorkers(): number {
  return Math.max(1, navigator.hardwareConcurrency || 1);
}

/** `--agent` omitted: the llm agent when a model is configured, else the oracle baseline. */
function defaultAgent(values: { "agent-model"?: string }, io: Io): string {
  const model = values["agent-model"] ?? io.env(MODEL_ENV.agent);
  if (model) {
    io.err(`eval: no --agent given: running the llm agent with model "${model}"`);
    return "llm";
  }
  io.err(
    "eval: no --agent given and no agent model configured (--agent-model or " +
      "CALLBENCH_AGENT_MODEL): running the oracle baseline",
  );
  return "oracle";
}

function parseShard(v: string | undefined): { index: number; count: number } | undefined {
  if (v === undefined) return undefined;
  const m = /^(\d+)\/(\d+)$/.exec(v);
  const index = Number(m?.[1]);
  const count = Number(m?.[2]);
  if (!m || count < 1 || index >= count) {
    throw new InputError({
      field: "--shard",
      message: `expected i/n with 0 <= i < n, got ${JSON.stringify(v)}`,
    });
  }
  return { index, count };
}

function participantOptions(values: Record<string, unknown>, io: Io): ParticipantOptions {
  const apiKeyEnv = values["api-key-env"] as string | undefined;
  const env = envWithKey(io, apiKeyEnv, "--api-key-env");
  const flags = { baseUrl: values["base-url"] as string | undefined, apiKeyEnv };
  const temperature = values.temperature === undefined ? undefined : Number(values.temperature);
  if (temperature !== undefined && !(temperature >= 0)) {
    throw new InputError({ field: "--temperature", message: "expected a number >= 0" });
  }
  const model = (role: ModelRole): LlmSettings => ({
    ...modelSettings(role, { ...flags, model: values[`${role}-model`] as string | undefined }, env),
    temperature,
  });
  return {
    agent: values.agent as string,
    user: (values.user as string | undefined) ?? "auto",
    agentModel: model("agent"),
    userModel: model("user"),
  };
}

/** What shapes a call, without secrets. */
function modelConfig(m: LlmSettings): Record<string, unknown> {
  return {
    model: m.model ?? null,
    base_url: m.model ? m.baseUrl ?? null : null,
    temperature: m.temperature ?? null,
  };
}

async function selectionFrom(
  values: { domain?: string[]; scenarios?: string[]; all?: boolean },
  files: string[],
  io: Io,
): Promise<Selection & { dataRoot?: string; refs?: RefIdentity[] }> {
  const flags = selectionFromFlags(values, files);
  const named = flags.domains!.length > 0 || flags.scenarios!.length > 0 || files.length > 0;
  if (values.all && named) {
    throw new InputError({
      field: "--all",
      message: "selects every scenario; it does not go with --domain, --scenarios or files",
    });
  }
  // A terminal is no input: every scenario, as with --all.
  if (named || values.all || io.stdinIsTerminal) return flags;
  // Scenario references on stdin (`list | eval`).
  const names: string[] = [];
  const refFiles = new Set<string>();
  const roots = new Set<string>();
  const refs: RefIdentity[] = [];
  for await (const { line, value } of readJsonl(io.stdin)) {
    const ref = ScenarioRef.safeParse(value);
    if (!ref.success) {
      throw new InputError({
        file: "<stdin>",
        line,
        field: "name",
        message: 'expected a scenario reference {"name": ...}',
      });
    }
    names.push(ref.data.name);
    refs.push({ ...ref.data, line });
    if (ref.data.source?.startsWith("file:")) refFiles.add(ref.data.source.slice(5));
    if (typeof ref.data.data_root === "string") roots.add(ref.data.data_root);
  }
  if (roots.size > 1) {
    throw new InputError({
      file: "<stdin>",
      field: "data_root",
      message: `references from ${roots.size} data roots; run one eval per data root`,
    });
  }
  // An empty pipe is a selection that matched nothing (`list` failed, a jq filter
  // matched nothing): running everything instead could spend a paid model's budget.
  if (names.length === 0) {
    throw new InputError({
      file: "<stdin>",
      message: "no scenario references on stdin",
      hint: "pass --all to run every scenario, or select with --domain, --scenarios or files",
    });
  }
  return { scenarios: names, files: [...refFiles], dataRoot: [...roots][0], refs };
}

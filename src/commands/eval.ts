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
import { configHash } from "../runner/trial_key.ts";
import { sha256Hex } from "../canonical/hash.ts";
import { readKeyEnv } from "../cli/secret_env.ts";
import { progressBar } from "../runner/progress.ts";
import { checkIdentities, type RefIdentity } from "../scenario/identity.ts";

const help = `eval: run trials and print one trial record per line

Usage: cli.ts eval [selection] --agent A [--user U] [--trials N] [--concurrency C]
                   [--shard i/n] [--out DIR [--resume]]

Selection (else scenario references from stdin, as "list" prints them):
  --data-root DIR     data laid out as <domain>/... (else EVAL_DATA_ROOT, else bundled fixtures)
  --domain X          a suite (repeatable)           --scenarios a,b   exact names
  FILE|DIR            scenario or flow files (validated before any call)

Participants:
  --agent A           oracle | noop | llm | navigator | script:FILE | ws://HOST:PORT/PATH
  --user U            auto (scripted; flow callee for flows) | scripted | llm | flow | ws://...
  --agent-model M     model of the llm agent (else CALLBENCH_AGENT_MODEL)
  --user-model M      model of the llm caller or flow persona (else CALLBENCH_USER_MODEL)
  --base-url URL      OpenAI-compatible base URL (else OPENAI_BASE_URL)
  --api-key-env NAME  environment variable holding the API key (default OPENAI_API_KEY)
  --temperature T     sampling temperature of LLM participants
  --connect-attempts N  tries to reach a ws:// participant before the trial fails (default 3)
  --kick TEXT         text sent to a ws:// agent when the call starts (reference-style bots)
  --agent-world W     harness (default): callbench holds the world and runs every tool |
                      self: the ws:// agent is a reference-style bot that holds its own world
                      (configured as the reference runner does; it sends "Hello" unless --kick;
                      the final hash is the bot's own claim: world_owner "agent")

Exit status: 0 when the trials ran (whatever their verdicts), 1 when every trial ended in an
infrastructure error (e.g. the agent was unreachable), 2 for usage or input errors.

Run:
  --trials N          trials per scenario, each with its own seed (default 1)
  --concurrency C     trials at once (default 4)
  --shard i/n         run only shard i of n (0-based; by a hash of the trial key)
  --out DIR           append records to DIR/trials.jsonl, transcripts to DIR/transcripts/
  --resume            skip trials already in DIR/trials.jsonl
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
  summary: "run trials (scenario x agent x user) and print trial records",
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
      "agent-world": { type: "string" },
      trials: { type: "string" },
      concurrency: { type: "string" },
      shard: { type: "string" },
      out: { type: "string" },
      resume: { type: "boolean" },
      "max-turns": { type: "string" },
      "min-agent-turns": { type: "string" },
      silence: { type: "string" },
    });
    if (!values.agent) {
      throw new InputError({ field: "--agent", message: "required", hint: "e.g. --agent oracle" });
    }
    if (values.resume && !values.out) {
      throw new InputError({ field: "--resume", message: "needs --out DIR" });
    }
    const agentWorld = values["agent-world"] ?? "harness";
    if (agentWorld !== "harness" && agentWorld !== "self") {
      throw new InputError({ field: "--agent-world", message: "expected harness or self" });
    }
    if (agentWorld === "self" && !/^wss?:\/\//.test(values.agent)) {
      throw new InputError({
        field: "--agent-world",
        message: "self needs a ws:// agent (a bot that holds its own world)",
      });
    }
    const trials = intFlag("trials", values.trials, 1);
    const concurrency = intFlag("concurrency", values.concurrency, 4);
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
      ...participantOptions(values, io),
      connectAttempts: intFlag("connect-attempts", values["connect-attempts"], 3),
      ...(values.kick !== undefined ? { kick: values.kick } : {}),
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
    if (selection.refs) checkIdentities(selection.refs, sel.scenarios, root.path);
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
      ...(agentWorld === "self" ? { agent_world: agentWorld } : {}),
    });
    const bar = io.errIsTerminal ? progressBar(io) : undefined;
    const summary = await runTrials({
      scenarios: sel.scenarios,
      root,
      participants: factory,
      configHash: config,
      trials,
      concurrency,
      shard,
      out: values.out,
      resume: values.resume,
      limits,
      onRecord: (r) => io.out(JSON.stringify(r)),
      ...(minAgentTurns !== undefined ? { minAgentTurns } : {}),
      ...(agentWorld === "self" ? { agentWorld: "self" as const } : {}),
      onProgress: bar,
    });
    io.err(
      `eval: ${summary.run} trial(s) run, ${summary.skipped} already done, ${summary.errors} infrastructure error(s)` +
        (shard ? ` [shard ${shard.index}/${shard.count}]` : ""),
    );
    // Failed trials are results; a run in which every trial broke is not.
    return summary.run > 0 && summary.errors === summary.run ? 1 : 0;
  },
};

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
  const baseUrl = (values["base-url"] as string | undefined) ?? io.env("OPENAI_BASE_URL");
  const keyEnv = values["api-key-env"] as string | undefined;
  const apiKey = keyEnv ? readKeyEnv(io, keyEnv, "--api-key-env") : io.env("OPENAI_API_KEY");
  const temperature = values.temperature === undefined ? undefined : Number(values.temperature);
  if (temperature !== undefined && !(temperature >= 0)) {
    throw new InputError({ field: "--temperature", message: "expected a number >= 0" });
  }
  const model = (m: string | undefined): LlmSettings => ({
    baseUrl,
    apiKey,
    model: m,
    temperature,
  });
  return {
    agent: values.agent as string,
    user: (values.user as string | undefined) ?? "auto",
    agentModel: model(
      (values["agent-model"] as string | undefined) ?? io.env("CALLBENCH_AGENT_MODEL"),
    ),
    userModel: model(
      (values["user-model"] as string | undefined) ?? io.env("CALLBENCH_USER_MODEL"),
    ),
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
  values: { domain?: string[]; scenarios?: string[] },
  files: string[],
  io: Io,
): Promise<Selection & { dataRoot?: string; refs?: RefIdentity[] }> {
  const flags = selectionFromFlags(values, files);
  if (flags.domains!.length || flags.scenarios!.length || files.length || io.stdinIsTerminal) {
    return flags;
  }
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
  // Nothing on stdin (a job with no input): every scenario of the data root.
  if (names.length === 0) return flags;
  return { scenarios: names, files: [...refFiles], dataRoot: [...roots][0], refs };
}

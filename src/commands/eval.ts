import {
  REALTIME_AUDIO_FORMATS,
  REALTIME_TURN_DETECTIONS,
  type RealtimeAudioFormat,
  type RealtimeTurnDetection,
} from "../protocol/openai_realtime.ts";
import { redactUrl } from "../transport/redact_url.ts";
import { z } from "zod";
import type { Command, Io } from "../cli/io.ts";
import { formatProblem, InputError } from "../cli/problem.ts";
import { flagRows, type FlagTable, intFlag, parseFlags } from "../cli/args.ts";
import { readJsonl } from "../jsonl/jsonl.ts";
import { DEFAULT_LIMITS } from "../bridge/bridge.ts";
import { openDataRoot } from "../cli/data_root.ts";
import { type Selection, selectScenarios } from "../scenario/suites.ts";
import { SELECTION_FLAGS, selectionFromFlags } from "../cli/selection_flags.ts";
import {
  type LlmSettings,
  participantFactory,
  type ParticipantOptions,
} from "../participants/registry.ts";
import { runTrials } from "../runner/runner.ts";
import { loadAverage, workersPayOffAt } from "../runner/worker_count.ts";
import { RealClock } from "../clock/clock.ts";
import { configHash } from "../runner/trial_key.ts";
import { sha256Hex } from "../canonical/hash.ts";
import { envWithKey } from "../cli/secret_env.ts";
import { MODEL_ENV, type ModelRole, modelSettings } from "../llm/model_settings.ts";
import { progressBar, progressLines } from "../cli/progress.ts";
import { scoreTrial } from "../score/score_trial.ts";
import {
  isWireFraming,
  type RealtimeOptions,
  WIRE_FRAMINGS,
  type WireFraming,
} from "../transport/mapping.ts";
import { checkIdentities, type RefIdentity } from "../scenario/identity.ts";
import { join } from "node:path";
import {
  closeSpeech,
  defaultSpeechOptions,
  speechConfig,
  type SpeechOptions,
} from "../speech/speech_options.ts";
import { FLITE_PERSONAS, isFliteVoice } from "../speech/_flite_wasi.ts";
import { LINE_TERMS, lineText, parseLine } from "../audio/line/spec.ts";
import { parseBehaviour } from "../speech/behaviour.ts";

/** Which scenarios run (else references from stdin). */
const EVAL_SELECTION_FLAGS = {
  ...SELECTION_FLAGS,
  "data-root": {
    ...SELECTION_FLAGS["data-root"],
    description: "data laid out as <domain>/... (else EVAL_DATA_ROOT, else bundled fixtures)",
  },
  all: {
    type: "boolean",
    description: "every scenario of the data root (stdin is not read)",
  },
} as const satisfies FlagTable;

/** Who is on the call. */
const PARTICIPANT_FLAGS = {
  agent: {
    type: "string",
    value: "A",
    description: "oracle | vad-oracle (turns by VAD; needs --audio) | noop | llm | navigator\n" +
      "| script:FILE | ws://HOST:PORT/PATH\n" +
      "| sip:USER@HOST[:PORT] (a phone agent over SIP/RTP, UDP; needs --audio)\n" +
      "(default: llm when an agent model is configured, else oracle)",
  },
  user: {
    type: "string",
    value: "U",
    description: "auto (scripted; flow callee for flows) | scripted | llm | flow | ws://...",
  },
  "agent-model": {
    type: "string",
    value: "M",
    description: "model of the llm agent (else CALLBENCH_AGENT_MODEL)",
  },
  "user-model": {
    type: "string",
    value: "M",
    description: "model of the llm caller or flow persona (else CALLBENCH_USER_MODEL)",
  },
  "base-url": {
    type: "string",
    value: "URL",
    description: "OpenAI-compatible base URL (else OPENAI_BASE_URL)",
  },
  "api-key-env": {
    type: "string",
    value: "NAME",
    description: "environment variable holding the API key (default OPENAI_API_KEY)",
  },
  temperature: {
    type: "string",
    value: "T",
    description: "sampling temperature of LLM participants",
  },
  "connect-attempts": {
    type: "string",
    value: "N",
    description: "tries to reach a ws:// participant before the trial fails",
    default: "3",
  },
  kick: {
    type: "string",
    value: "TEXT",
    description: "text sent to a ws:// agent when the call starts (reference-style bots)",
  },
  framing: {
    type: "string",
    value: "F",
    description: "the ws:// agent's wire: json (default; RTVI JSON text frames) |\n" +
      "protobuf (RTVI in pipecat protobuf frames) | twilio (Twilio Media\n" +
      "Streams: callbench plays Twilio; audio only) | openai-realtime (the\n" +
      "OpenAI Realtime API: callbench is the client; needs --audio). Else the\n" +
      "URL's ?framing=",
  },
  "tools-server": {
    type: "boolean",
    description: "also serve each call's agent tools over MCP (Streamable HTTP) for agents\n" +
      "that call their tools themselves: the endpoint reaches the agent in the\n" +
      "RTVI update_system_prompt data, the realtime session's tools or the SIP\n" +
      "INVITE's X-Callbench-Tools header, and the record; the calls run in the\n" +
      "trial's world (trials run in-process)",
  },
  "tools-host": {
    type: "string",
    value: "HOST",
    description: "where --tools-server listens (default 127.0.0.1)",
  },
  "agent-key": {
    type: "string",
    value: "KEY",
    description: "openai-realtime: the API key, sent as Authorization: Bearer (else the\n" +
      "key variable, OPENAI_API_KEY or --api-key-env); never recorded",
  },
  "realtime-audio": {
    type: "string",
    value: "F",
    description: "openai-realtime: pcm16 (default; 24 kHz) | g711_ulaw (8 kHz), both ways",
  },
  "turn-detection": {
    type: "string",
    value: "T",
    description: "openai-realtime: server_vad (default) | semantic_vad | none (callbench\n" +
      "commits each utterance and asks for the response)",
  },
  "agent-world": {
    type: "string",
    value: "W",
    description: "harness (default): callbench holds the world and runs every tool |\n" +
      "self: the ws:// agent is a reference-style bot that holds its own world\n" +
      '(configured as the reference runner does; it sends "Hello" unless --kick;\n' +
      'the final hash is the bot\'s own claim: world_owner "agent")',
  },
} as const satisfies FlagTable;

/** How the trials run and where they go. */
const RUN_FLAGS = {
  label: {
    type: "string",
    value: "NAME",
    description: "names this configuration: recorded in each record, part of the\n" +
      "config hash, shown by report (which never pools configurations)",
  },
  trials: {
    type: "string",
    value: "N",
    description: "trials per scenario, each with its own seed",
    default: "1",
  },
  concurrency: {
    type: "string",
    value: "C",
    description: "trials at once, spread across the workers (--audio with a ws:// agent:\n" +
      "as many as the machine holds at the pacers' lateness bound, at most C)",
    default: "4",
  },
  workers: {
    type: "string",
    value: "W",
    description: "Workers running trials, each with its own event loop and its own\n" +
      "copy of the worlds (never more than C); 0 or 1 runs them here.\n" +
      `Default: one per core (${defaultWorkers()}) when the run has at least ${
        workersPayOffAt(Math.max(2, defaultWorkers()))
      }\n` +
      "simulated-clock trials (they pay back the Workers' start-up) and\n" +
      "the load average leaves cores idle, else none; real-clock calls\n" +
      "(ws://, llm) run here unless W is given",
  },
  shard: {
    type: "string",
    value: "i/n",
    description: "run only shard i of n (0-based; by a hash of the trial key)",
  },
  out: {
    type: "string",
    value: "DIR",
    description: "append records to DIR/trials.jsonl, transcripts to DIR/transcripts/;\n" +
      "a folder holding another configuration is refused (see --append)",
  },
  append: { type: "boolean", description: "allow --out DIR to hold other configurations too" },
  resume: {
    type: "boolean",
    description: "skip trials already in DIR/trials.jsonl (printed first when stdout\n" +
      "is not a terminal, so score | report see the whole run)",
  },
  "retry-errors": {
    type: "boolean",
    description: "with --resume: run infrastructure-error trials again (their new\n" +
      "record supersedes the old one)",
  },
  "max-turns": {
    type: "string",
    value: "N",
    description: "turn guard per call",
    default: String(DEFAULT_LIMITS.maxTurns),
  },
  "min-agent-turns": {
    type: "string",
    value: "N",
    description: "recorded for score: a trial whose agent spoke fewer turns fails\n" +
      "(counts spoken agent turns, not LLM calls as the reference does)",
  },
  silence: {
    type: "string",
    value: "S",
    description: "seconds of silence that end a call",
    default: String(DEFAULT_LIMITS.silenceMs / 1000),
  },
} as const satisfies FlagTable;

/** Audio calls. */
const AUDIO_FLAGS = {
  audio: {
    type: "boolean",
    description: "synthesize every utterance; the record gets an audio block, and with\n" +
      "--out each trial's stereo recording goes to DIR/audio/<trial>.wav",
  },
  tts: {
    type: "string",
    value: "P",
    description: "flite (default, offline) | openai (POST /v1/audio/speech)",
  },
  "tts-model": { type: "string", value: "M", description: "the openai TTS model" },
  "tts-base-url": {
    type: "string",
    value: "URL",
    description: "its base URL (else OPENAI_BASE_URL)",
  },
  "agent-voice": {
    type: "string",
    value: "V",
    description: "the agent's voice (flite: slt rms awb kal16 kal; default rms)",
  },
  "user-voice": {
    type: "string",
    value: "V",
    description: "the caller's voice (default slt; flite: NAME[:rate=R][:pitch=HZ])",
  },
  voices: {
    type: "string",
    value: "N",
    description: "spread the trials over N caller voices (flite personas, 1-12),\n" +
      "one per trial from its seed; the report breaks success down by voice",
  },
  stt: {
    type: "string",
    value: "P",
    description: "transcript (default: the listener gets the speaker's own text) |\n" +
      "openai (the agent's audio is transcribed for the caller)",
  },
  "stt-model": { type: "string", value: "M", description: "the openai STT model" },
  "stt-base-url": {
    type: "string",
    value: "URL",
    description: "its base URL (else OPENAI_BASE_URL)",
  },
  dtmf: {
    type: "string",
    value: "M",
    description:
      "inband (default: keys and beeps are tones, heard by detectors) | event | info (SIP INFO)",
  },
  "barge-in": {
    type: "string",
    value: "P",
    description: "chance per agent utterance that the scripted caller cuts in (seeded)",
  },
  hints: {
    type: "string",
    value: "H",
    description: "transcript: also give a ws:// agent the caller's words and turn ends\n" +
      '(debugging; off, it gets only the audio; the report says "agent given transcripts")',
  },
  "caller-behaviour": {
    type: "string",
    value: "B",
    description: "the caller's full-duplex behaviours, each a chance per opportunity:\n" +
      "backchannel=R,filler=R,pause=R,side=R,interrupt=R,late=R (seeded; else the\n" +
      "scenario's user.behaviour); each one acted out is in the record's audio.caller_events",
  },
  line: {
    type: "string",
    value: "L",
    description: "the phone line the caller's audio crosses (default clean, or the\n" +
      "scenario's user.line): clean phone noisy-cafe street car office babble\n" +
      "white@SNR loss@P[/BURST][/repeat] jitter@MS volume@dB muffled clip,\n" +
      "joined by + (phone+street@10+loss@3%); seeded from each trial's seed. A sweep,\n" +
      "clean,phone,street@10, runs each line as its own configuration, labelled by\n" +
      "its line (LABEL/line with --label), one after the other into the same output",
  },
  "line-both": {
    type: "boolean",
    description: "the agent's audio crosses the line too, as callbench hears it",
  },
} as const satisfies FlagTable;

/** Every flag of eval: the sections above. */
const FLAGS = {
  ...EVAL_SELECTION_FLAGS,
  ...PARTICIPANT_FLAGS,
  ...RUN_FLAGS,
  ...AUDIO_FLAGS,
} as const satisfies FlagTable;

const help = `eval: run trials and print one trial record per line

Usage: cli.ts eval [selection] [--agent A] [--user U] [--trials N] [--concurrency C]
                   [--workers W] [--shard i/n] [--label NAME] [--out DIR [--resume [--retry-errors]]]

Selection (else scenario references from stdin, as "list" prints them; stdin that is a
pipe or file with no reference is an error, exit 2; from a terminal, every scenario):
${
  flagRows(EVAL_SELECTION_FLAGS, {
    extra: [["FILE|DIR", "scenario or flow files (validated before any call)"]],
  })
}

Participants:
${flagRows(PARTICIPANT_FLAGS)}

Audio (--audio: both sides speak; deterministic ends run on the simulated clock):
${flagRows(AUDIO_FLAGS)}

Exit status: 0 when the trials ran (whatever their verdicts), 1 when every trial ended in an
infrastructure error (e.g. the agent was unreachable) or stdout closed without --out (the run
stops), 2 for usage or input errors, 130 on Ctrl-C (it says what was recorded; --resume
continues). With --out, a closed stdout does not stop the run.

Run:
${flagRows(RUN_FLAGS)}`;

const ScenarioRef = z.object({
  name: z.string().min(1),
  source: z.string().optional(),
  data_root: z.string().optional(),
  scenario_sha256: z.string().optional(),
}).passthrough();

export const command: Command = {
  summary: "run trials and print one trial record per line",
  help,
  flags: FLAGS,
  async main(args, io) {
    const { values, positionals } = parseFlags(args, FLAGS);
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
    const realtime = realtimeFromFlags(values, framing);
    if (/^sips?:/i.test(values.agent ?? "")) await checkSipAgent(values.agent!, values.audio);
    if (values["tools-host"] !== undefined && !values["tools-server"]) {
      throw new InputError({ field: "--tools-host", message: "needs --tools-server" });
    }
    const trials = intFlag("trials", values.trials, Number(FLAGS.trials.default));
    let concurrency = intFlag(
      "concurrency",
      values.concurrency,
      Number(FLAGS.concurrency.default),
    );
    // Omitted: up to one per core, used only when the run pays their start-up back.
    const autoWorkers = values.workers === undefined;
    const workers = intFlag("workers", values.workers, defaultWorkers(), 0);
    const shard = parseShard(values.shard);
    const silence = values.silence === undefined
      ? DEFAULT_LIMITS.silenceMs / 1000
      : Number(values.silence);
    // A timer longer than 2^31-1 ms fires at once, and Infinity does not survive JSON.
    if (!(silence > 0 && silence * 1000 <= 2 ** 31 - 1)) {
      throw new InputError({
        field: "--silence",
        message: `expected seconds > 0 (at most ${Math.floor((2 ** 31 - 1) / 1000)})`,
      });
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
      connectAttempts: intFlag(
        "connect-attempts",
        values["connect-attempts"],
        Number(FLAGS["connect-attempts"].default),
      ),
      ...(values.kick !== undefined ? { kick: values.kick } : {}),
      ...(framing !== undefined ? { framing } : {}),
      ...(realtime ? { realtime } : {}),
    };
    if (framing === "openai-realtime") {
      const key = values["agent-key"] ?? participants.agentModel.apiKey;
      if (key !== undefined) participants.agentKey = key;
    }
    // A script agent is read and checked before any call; its text shapes the calls.
    let script: string | undefined;
    if (participants.agent.startsWith("script:")) {
      const path = participants.agent.slice("script:".length);
      const { ScriptAgent } = await import("../participants/script.ts");
      await ScriptAgent.fromFile(path);
      script = sha256Hex(await Deno.readTextFile(path));
    }
    // A --line sweep (clean,phone,street@10): one configuration per line, run one after
    // the other into the same output, each labelled by its line (LABEL/line with --label).
    const sweep = lineSweep(values.line);
    const speech = speechFromFlags({ ...values, line: sweep?.[0] ?? values.line }, io);
    // The same options in-process and on Workers (audio, barge-in and behaviours included).
    const participantOpts = {
      ...participants,
      ...(speech && speech.barge_in > 0 ? { bargeIn: speech.barge_in } : {}),
      ...(speech ? { audio: true } : {}),
      ...(speech?.hints?.includes("transcript") ? { transcripts: true } : {}),
      ...(speech?.behaviour ? { behaviour: speech.behaviour } : {}),
    };
    const factory = participantFactory(participantOpts);
    const selection = await selectionFrom(values, positionals, io);
    // References from `list` carry their data root; a flag or EVAL_DATA_ROOT wins.
    const root = openDataRoot(values["data-root"], io, selection.dataRoot);
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

    const configurations = (sweep ?? [undefined]).map((line) => {
      const l = line === undefined ? label : label !== undefined ? `${label}/${line}` : line;
      const s = line === undefined ? speech : speechFromFlags({ ...values, line }, io);
      const hash = configHash({
        // Without secrets: a rotated key is the same configuration, and no hash is taken of it.
        agent: redactUrl(participants.agent),
        user: redactUrl(participants.user),
        agent_model: modelConfig(participants.agentModel),
        user_model: modelConfig(participants.userModel),
        limits,
        ...(script ? { script } : {}),
        ...(participants.kick !== undefined ? { kick: participants.kick } : {}),
        ...(framing !== undefined ? { framing } : {}),
        ...(realtime ? { realtime } : {}),
        ...(l !== undefined ? { label: l } : {}),
        ...(agentWorld === "self" ? { agent_world: agentWorld } : {}),
        ...(s ? { speech: speechConfig(s) } : {}),
      });
      return { label: l, speech: s, configHash: hash };
    });
    // Real-time audio calls to a remote agent: as many at once as the machine holds at
    // the pacers' lateness bound (at most --concurrency), and none started while late.
    const realTime = speech !== undefined && /^(wss?:\/\/|sip:)/.test(participants.agent)
      ? await realTimeRun(
        // SIP's RTP is Twilio's 20 ms G.711 frames both ways: its row of the table.
        participants.agent.startsWith("sip:")
          ? "twilio"
          : framing ?? urlFraming(participants.agent),
        values.concurrency === undefined ? undefined : concurrency,
      )
      : undefined;
    if (realTime) concurrency = realTime.concurrency;
    const bar = io.errIsTerminal ? progressBar(io) : undefined;
    // Not a terminal (CI): plain lines, with how many completed trials fail their score.
    const lines = io.errIsTerminal ? undefined : progressLines(io, "eval");
    let failedTrials = 0;
    let errorTrials = 0;
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
    const toolsServer = values["tools-server"]
      ? (await loadToolsServer()).ToolsServer.start({
        ...(values["tools-host"] !== undefined ? { hostname: values["tools-host"] } : {}),
      })
      : undefined;
    let before = 0;
    let lastDone = 0;
    const runOne = (
      c: (typeof configurations)[number],
      index: number,
    ) =>
      runTrials({
        scenarios: sel.scenarios,
        root,
        participants: factory,
        configHash: c.configHash,
        ...(c.label !== undefined ? { label: c.label } : {}),
        trials,
        concurrency,
        ...(realTime ? { admit: realTime.admit } : {}),
        ...(workers > 1
          ? {
            workers: {
              count: workers,
              participants: participantOpts,
              ...(autoWorkers ? { auto: true } : {}),
            },
          }
          : {}),
        shard,
        out,
        resume: values.resume,
        retryErrors: values["retry-errors"] ?? false,
        // A sweep's later lines join the folder its first one opened (resumed: all of them).
        append: (values.append ?? false) || index > 0 || (sweep !== undefined && !!values.resume),
        // A pipe downstream (score | report) sees the whole run, not only what ran now
        // (each line of a sweep re-emits its own planned trials).
        ...(values.resume && !io.outIsTerminal
          ? {
            onExisting: (line: string) => void emit(line),
          }
          : {}),
        limits,
        ...(toolsServer ? { toolsServer } : {}),
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
        ...(minAgentTurns !== undefined ? { minAgentTurns } : {}),
        ...(agentWorld === "self" ? { agentWorld: "self" as const } : {}),
        ...(c.speech ? { speech: c.speech } : {}),
        // A sweep's progress counts on over its lines (each plans as many trials).
        onProgress: (done, total, record) => {
          if (done === 0) toRun = before + total * (configurations.length - index);
          lastDone = done;
          bar?.(before + done, toRun, record);
          if (lines) {
            if (record?.status === "error") errorTrials++;
            else if (record && scoreTrial(record).is_successful === false) failedTrials++;
            lines.update({
              done: before + done,
              total: toRun,
              failed: failedTrials,
              errors: errorTrials,
            });
          }
        },
      });
    const run = (async () => {
      const total = { planned: 0, skipped: 0, run: 0, errors: 0 };
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
    let summary: Awaited<typeof run> | undefined;
    try {
      summary = await Promise.race([run, stopped]);
    } finally {
      unlisten?.();
      lines?.stop();
      await toolsServer?.close();
      // The flite Worker would keep the process alive.
      if (speech) await closeSpeech();
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

/** The framing a ws:// URL names (`?framing=`), else json. */
function urlFraming(url: string): WireFraming {
  const named = new URL(url).searchParams.get("framing");
  return isWireFraming(named) ? named : "json";
}

/**
 * A real-time audio run's concurrency (the table of `realtime_concurrency.ts` times
 * the idle cores, at most `requested`) and its gate on the pacers' lateness.
 */
async function realTimeRun(
  framing: WireFraming,
  requested: number | undefined,
): Promise<{ concurrency: number; admit: (signal?: AbortSignal) => Promise<void> }> {
  const { realTimeConcurrency, RealTimeGate } = await import("../runner/realtime_concurrency.ts");
  const { realTimeLateness } = await import("../audio/pacer.ts");
  const load = loadAverage();
  const gate = new RealTimeGate({ meter: realTimeLateness, clock: new RealClock() });
  return {
    concurrency: realTimeConcurrency({
      framing,
      cores: navigator.hardwareConcurrency,
      ...(load !== undefined ? { loadAverage: load } : {}),
      ...(requested !== undefined ? { requested } : {}),
    }),
    admit: (signal) => gate.admit(signal),
  };
}

/** `--agent sip:...`: a SIP URI over UDP, in an audio call (a phone line carries audio only). */
async function checkSipAgent(agent: string, audio: boolean | undefined): Promise<void> {
  const { parseSipAgent } = await import("../transport/sip.ts");
  const read = parseSipAgent(agent);
  if (!read.ok) throw new InputError({ field: "--agent", message: read.message });
  if (!audio) {
    throw new InputError({
      field: "--agent",
      message: "a SIP agent carries audio only",
      hint: "add --audio",
    });
  }
}

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

/**
 * The tools server's module, by a path built at run time: a literal `import()` is
 * fetched at start-up, and the MCP SDK would be downloaded by every command.
 */
function loadToolsServer(): Promise<typeof import("../tools_server/tools_server.ts")> {
  const path = ["..", "tools_server", "tools_server.ts"].join("/");
  return import(path);
}

/** `--realtime-audio` and `--turn-detection`: only with `--framing openai-realtime` (and `--audio`). */
function realtimeFromFlags(
  values: Record<string, unknown>,
  framing: string | undefined,
): RealtimeOptions | undefined {
  const audio = values["realtime-audio"] as string | undefined;
  const turn = values["turn-detection"] as string | undefined;
  if (framing !== "openai-realtime") {
    for (const flag of ["realtime-audio", "turn-detection", "agent-key"]) {
      if (values[flag] !== undefined) {
        throw new InputError({ field: `--${flag}`, message: "needs --framing openai-realtime" });
      }
    }
    return undefined;
  }
  if (!values.audio) {
    throw new InputError({
      field: "--framing",
      message: "openai-realtime carries audio only",
      hint: "add --audio",
    });
  }
  if (audio !== undefined && !(REALTIME_AUDIO_FORMATS as readonly string[]).includes(audio)) {
    throw new InputError({
      field: "--realtime-audio",
      message: `unknown format "${audio}"`,
      hint: REALTIME_AUDIO_FORMATS.join(" or "),
    });
  }
  if (turn !== undefined && !(REALTIME_TURN_DETECTIONS as readonly string[]).includes(turn)) {
    throw new InputError({
      field: "--turn-detection",
      message: `unknown turn detection "${turn}"`,
      hint: "server_vad, semantic_vad or none",
    });
  }
  return {
    audio: (audio ?? "pcm16") as RealtimeAudioFormat,
    turnDetection: (turn ?? "server_vad") as RealtimeTurnDetection,
  };
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

const AUDIO_ONLY = [
  "tts",
  "tts-model",
  "tts-base-url",
  "agent-voice",
  "user-voice",
  "stt",
  "stt-model",
  "stt-base-url",
  "dtmf",
  "barge-in",
  "hints",
  "line",
  "caller-behaviour",
  "voices",
] as const;

/**
 * The lines of a `--line` sweep (`clean,phone,street@10`), each its own configuration;
 * undefined for one line (or none).
 */
export function lineSweep(line: string | undefined): string[] | undefined {
  if (line === undefined || !line.includes(",")) return undefined;
  const lines = line.split(",").map((l) => l.trim());
  if (lines.some((l) => l === "")) {
    throw new InputError({
      field: "--line",
      message: `empty line in the sweep "${line}"`,
      hint: "lines joined by commas: clean,phone,street@10",
    });
  }
  const twice = lines.find((l, i) => lines.indexOf(l) !== i);
  if (twice !== undefined) {
    throw new InputError({ field: "--line", message: `"${twice}" is in the sweep twice` });
  }
  return lines;
}

/** `--audio` and its flags as speech options (undefined without `--audio`). */
export function speechFromFlags(
  values: Partial<Record<(typeof AUDIO_ONLY)[number], string>> & {
    audio?: boolean;
    "line-both"?: boolean;
  },
  io: Pick<Io, "env">,
): SpeechOptions | undefined {
  if (!values.audio) {
    const given = AUDIO_ONLY.find((f) => values[f] !== undefined) ??
      (values["line-both"] ? "line-both" : undefined);
    if (given) throw new InputError({ field: `--${given}`, message: "needs --audio" });
    return undefined;
  }
  const o = defaultSpeechOptions();
  const tts = values.tts ?? "flite";
  if (tts !== "flite" && tts !== "openai") {
    throw new InputError({ field: "--tts", message: "expected flite or openai" });
  }
  /** `--tts openai` or `--stt openai`: its endpoint (its flag, else OPENAI_BASE_URL) and model. */
  const openai = (flag: "tts" | "stt") => {
    const base = values[`${flag}-base-url`] ?? io.env("OPENAI_BASE_URL");
    if (!base) {
      throw new InputError({
        field: `--${flag}`,
        message: `openai needs --${flag}-base-url or OPENAI_BASE_URL`,
      });
    }
    const model = values[`${flag}-model`];
    return { provider: "openai" as const, base_url: base, ...(model ? { model } : {}) };
  };
  if (tts === "openai") {
    o.tts = openai("tts");
    o.voices = {};
  }
  for (const [flag, side] of [["agent-voice", "agent"], ["user-voice", "user"]] as const) {
    const v = values[flag];
    if (v === undefined) continue;
    if (tts === "flite" && !isFliteVoice(v)) {
      throw new InputError({
        field: `--${flag}`,
        message: `unknown flite voice "${v}"`,
        hint: "slt, rms, awb, kal16 or kal, optionally :rate=R (0.5-2) and :pitch=HZ (50-400)",
      });
    }
    o.voices[side] = v;
  }
  const stt = values.stt ?? "transcript";
  if (stt !== "transcript" && stt !== "openai") {
    throw new InputError({ field: "--stt", message: "expected transcript or openai" });
  }
  if (stt === "openai") {
    o.stt = openai("stt");
  }
  const dtmf = values.dtmf ?? "inband";
  if (dtmf !== "inband" && dtmf !== "event" && dtmf !== "info") {
    throw new InputError({ field: "--dtmf", message: "expected inband, event or info" });
  }
  o.dtmf = dtmf;
  if (values["barge-in"] !== undefined) {
    const p = Number(values["barge-in"]);
    if (!(p >= 0 && p <= 1)) {
      throw new InputError({ field: "--barge-in", message: "expected a chance from 0 to 1" });
    }
    o.barge_in = p;
  }
  if (values.hints !== undefined) {
    if (values.hints !== "transcript") {
      throw new InputError({ field: "--hints", message: "expected transcript" });
    }
    o.hints = ["transcript"];
  }
  if (values.voices !== undefined) {
    const n = Number(values.voices);
    if (!(Number.isInteger(n) && n >= 1 && n <= FLITE_PERSONAS.length) || tts !== "flite") {
      throw new InputError({
        field: "--voices",
        message: `expected a count from 1 to ${FLITE_PERSONAS.length} (flite voices)`,
      });
    }
    o.voice_spread = n;
  }
  if (values["caller-behaviour"] !== undefined) {
    try {
      o.behaviour = parseBehaviour(values["caller-behaviour"]);
    } catch (e) {
      throw new InputError({
        field: "--caller-behaviour",
        message: e instanceof Error ? e.message : String(e),
      });
    }
  }
  const line = values.line;
  if (line !== undefined || values["line-both"]) {
    let text: string | undefined;
    if (line !== undefined) {
      try {
        text = lineText(parseLine(line));
      } catch (e) {
        throw new InputError({
          field: "--line",
          message: e instanceof Error ? e.message : String(e),
          hint: `terms: ${LINE_TERMS.join(" ")}, joined by +`,
        });
      }
    }
    o.line = {
      ...(line !== undefined ? { preset: line, text } : {}),
      both: values["line-both"] ?? false,
    };
  }
  return o;
}

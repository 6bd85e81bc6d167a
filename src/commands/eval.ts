/**
 * `eval`: reads its flags into a plan (each kind of option is built beside its flags in
 * `src/cli/`: run, participants, speech, selection), checks it, and hands it to `runEval`.
 */
import { redactUrl } from "../transport/redact_url.ts";
import type { Command } from "../cli/io.ts";
import { formatProblem, InputError } from "../cli/problem.ts";
import { intFlag, parseFlags } from "../cli/args.ts";
import { openDataRoot, sayBundled } from "../cli/data_root.ts";
import { selectScenarios } from "../scenario/suites.ts";
import { participantFactory } from "../participants/registry.ts";
import { configHash } from "../runner/trial_key.ts";
import { sha256Hex } from "../canonical/hash.ts";
import { isWireFraming, WIRE_FRAMINGS } from "../transport/mapping.ts";
import { checkIdentities } from "../scenario/identity.ts";
import { speechConfig } from "../speech/speech_options.ts";
import { EVAL_FLAGS, EVAL_HELP } from "../cli/eval_flags.ts";
import { runFromFlags } from "../cli/run_flags.ts";
import {
  checkSipAgent,
  defaultAgent,
  modelConfig,
  participantOptions,
  realtimeFromFlags,
  urlFraming,
} from "../cli/participant_flags.ts";
import { lineSweep, speechFromFlags } from "../cli/speech_flags.ts";
import { selectionFrom } from "../cli/scenario_refs.ts";
import { realTimeRun } from "../cli/realtime_run.ts";
import { runEval } from "../cli/eval_run.ts";
import { retrievalFromFlags } from "../cli/retrieval_flag.ts";

export const command: Command = {
  summary: "run trials and print one trial record per line",
  help: EVAL_HELP,
  flags: EVAL_FLAGS,
  async main(args, io) {
    const { values, positionals } = parseFlags(args, EVAL_FLAGS);
    const run = runFromFlags(values);
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
    if (framing !== undefined && !/^(wss?|https?):\/\//.test(values.agent ?? "")) {
      throw new InputError({ field: "--framing", message: "needs a ws:// or http:// agent" });
    }
    const realtime = realtimeFromFlags(values, framing);
    if (/^sips?:/i.test(values.agent ?? "")) await checkSipAgent(values.agent!, values.audio);

    const participants = {
      ...participantOptions({ ...values, agent: values.agent ?? defaultAgent(values, io) }, io),
      connectAttempts: intFlag(
        "connect-attempts",
        values["connect-attempts"],
        Number(EVAL_FLAGS["connect-attempts"].default),
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
      ...(speech?.caller_timing ? { callerTiming: speech.caller_timing } : {}),
    };
    const factory = participantFactory(participantOpts);
    const selection = await selectionFrom(values, positionals, io);
    // References from `list` carry their data root; a flag or EVAL_DATA_ROOT wins.
    const root = openDataRoot(values["data-root"], io, selection.dataRoot);
    const retrieval = retrievalFromFlags(values);
    const sel = await selectScenarios(root, selection);
    if (sel.fileProblems.length > 0) throw new InputError(sel.fileProblems);
    sayBundled(root, sel.scenarios, io);
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

    const label = run.label;
    const configurations = (sweep ?? [undefined]).map((line) => {
      const l = line === undefined ? label : label !== undefined ? `${label}/${line}` : line;
      const s = line === undefined ? speech : speechFromFlags({ ...values, line }, io);
      const hash = configHash({
        // Without secrets: a rotated key is the same configuration, and no hash is taken of it.
        agent: redactUrl(participants.agent),
        user: redactUrl(participants.user),
        agent_model: modelConfig(participants.agentModel),
        user_model: modelConfig(participants.userModel),
        limits: run.limits,
        ...(script ? { script } : {}),
        ...(participants.kick !== undefined ? { kick: participants.kick } : {}),
        ...(framing !== undefined ? { framing } : {}),
        ...(realtime ? { realtime } : {}),
        ...(l !== undefined ? { label: l } : {}),
        ...(selection.language !== undefined ? { language: selection.language } : {}),
        ...(agentWorld === "self" ? { agent_world: agentWorld } : {}),
        ...(s ? { speech: speechConfig(s) } : {}),
        ...(retrieval !== undefined ? { retrieval } : {}),
      });
      return {
        ...(l !== undefined ? { label: l } : {}),
        ...(s ? { speech: s } : {}),
        configHash: hash,
      };
    });
    // Real-time audio calls to a remote agent: as many at once as the machine holds at
    // the pacers' lateness bound (at most --concurrency), and none started while late.
    const realTime = speech !== undefined && /^(wss?|https?|sip):/.test(participants.agent)
      ? await realTimeRun(
        // SIP's RTP is Twilio's 20 ms G.711 frames both ways: its row of the table.
        participants.agent.startsWith("sip:")
          ? "twilio"
          : framing ?? urlFraming(participants.agent),
        run.concurrencyGiven ? run.concurrency : undefined,
        run.strictConcurrency,
      )
      : undefined;
    return await runEval({
      run: {
        scenarios: sel.scenarios,
        root,
        participants: factory,
        trials: run.trials,
        concurrency: realTime ? realTime.concurrency : run.concurrency,
        ...(realTime?.admit ? { admit: realTime.admit } : {}),
        ...(realTime?.requested ? { requestedConcurrency: realTime.requested } : {}),
        ...(run.strictConcurrency ? { strictConcurrency: true } : {}),
        ...(run.workers > 1
          ? {
            workers: {
              count: run.workers,
              participants: participantOpts,
              ...(run.autoWorkers ? { auto: true } : {}),
            },
          }
          : {}),
        ...(run.shard ? { shard: run.shard } : {}),
        ...(values.out !== undefined ? { out: values.out } : {}),
        ...(values.resume !== undefined ? { resume: values.resume } : {}),
        retryErrors: values["retry-errors"] ?? false,
        limits: run.limits,
        ...(run.minAgentTurns !== undefined ? { minAgentTurns: run.minAgentTurns } : {}),
        ...(agentWorld === "self" ? { agentWorld: "self" as const } : {}),
      },
      configurations,
      append: values.append ?? false,
      concurrencyGiven: run.concurrencyGiven,
      sweep: sweep !== undefined,
      ...(values["tools-server"]
        ? {
          toolsServer: values["tools-host"] !== undefined ? { hostname: values["tools-host"] } : {},
        }
        : {}),
      audio: speech !== undefined,
    }, io);
  },
};

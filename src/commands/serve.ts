/**
 * `serve`: a WebSocket bot server speaking RTVI 2.1 at `/ws`, hosting built-in
 * participants, one per session. Runs until SIGINT or SIGTERM.
 *
 * @module
 */
import type { Command, Io } from "../cli/io.ts";
import { flagRows, type FlagTable, intFlag, parseFlags } from "../cli/args.ts";
import { cliError, InputError } from "../cli/problem.ts";
import { quoteInput } from "../problem/quote.ts";
import { findKind, kindsOf } from "../participants/kinds.ts";
import type { DataRoot } from "../scenario/data_root.ts";
import { openDataRoot } from "../cli/data_root.ts";
import type { Scenario } from "../scenario/scenario.ts";
import { selectScenarios } from "../scenario/suites.ts";
import { dataRootLabel, scenarioSha256 } from "../scenario/identity.ts";
import { DEFAULT_AGENT } from "../server/app.ts";
import { DEFAULT_CONNECTION_LIMITS } from "../server/connection_guard.ts";
import { checkToken, isLoopback, serve } from "../server/serve.ts";
import { DEFAULT_MAX_SIP_CALLS, SipServer } from "../server/sip_server.ts";
import type { Side } from "../domains/domain.ts";
import { DEFAULT_MAX_KEPT_SESSIONS, DEFAULT_SESSION_IDLE_MS } from "../server/session_store.ts";
import type { HostedParticipantFactory } from "../server/session.ts";
import { envWithKey } from "../cli/secret_env.ts";
import { type ModelSettings, modelSettings } from "../llm/model_settings.ts";
import { AUDIO_SAMPLE_RATES } from "../protocol/audio_payload.ts";
import type { AppAudio } from "../server/app.ts";
import { DEFAULT_OUTPUT_RATE } from "../server/session_audio.ts";
import type { SttProvider, TtsProvider } from "../speech/speech.ts";
import { FLITE_VOICES, FliteTts, isFliteVoice } from "../speech/tts_flite.ts";
import { OpenAiTts } from "../speech/tts_openai.ts";
import { OpenAiStt } from "../speech/stt_openai.ts";

const FLAGS = {
  host: {
    type: "string",
    value: "H",
    description: "address to bind (default 127.0.0.1); any non-loopback address\nneeds a token",
  },
  port: { type: "string", value: "N", description: "port (default 8765; 0 picks a free one)" },
  token: {
    type: "string",
    value: "T",
    description: "bearer token required on /ws, and for /health to show more than\n" +
      "its status (default: CALLBENCH_TOKEN; a blank one is refused)",
  },
  agent: {
    type: "string",
    value: "NAME",
    description: `participant hosted when the URL names none (default ${DEFAULT_AGENT}): noop,\n` +
      "oracle (plays the named scenario's reference actions), navigator or llm",
  },
  "agent-model": {
    type: "string",
    value: "M",
    description: "model of a hosted llm agent (else CALLBENCH_AGENT_MODEL)",
  },
  "user-model": {
    type: "string",
    value: "M",
    description: "model of a hosted llm caller (else CALLBENCH_USER_MODEL)",
  },
  "base-url": {
    type: "string",
    value: "URL",
    description: "OpenAI-compatible base URL of those models (else OPENAI_BASE_URL)",
  },
  "api-key-env": {
    type: "string",
    value: "N",
    description: "environment variable holding its API key (default OPENAI_API_KEY)",
  },
  "data-root": {
    type: "string",
    value: "D",
    description: "where the oracle finds scenarios and apply_initialization finds\n" +
      "db_path (default EVAL_DATA_ROOT, else the bundled fixtures)",
  },
  "max-sessions": {
    type: "string",
    value: "N",
    description: "sessions with a client at once",
    default: "10000",
  },
  "session-idle": {
    type: "string",
    value: "S",
    description:
      "seconds a session without a client is kept for its next\nconnection (0 frees it at once)",
    default: String(DEFAULT_SESSION_IDLE_MS / 1000),
  },
  "kept-sessions": {
    type: "string",
    value: "N",
    description: "sessions kept without a client at once (past it the longest idle\nis freed)",
    default: String(DEFAULT_MAX_KEPT_SESSIONS),
  },
  "handshake-timeout": {
    type: "string",
    value: "S",
    description: "seconds a client may take to send client-ready (0: no limit)",
    default: String(DEFAULT_CONNECTION_LIMITS.handshakeTimeoutMs / 1000),
  },
  "idle-timeout": {
    type: "string",
    value: "S",
    description: "seconds a client may send no frame before it is closed (0: no\nlimit)",
    default: String(DEFAULT_CONNECTION_LIMITS.idleTimeoutMs / 1000),
  },
  audio: {
    type: "boolean",
    description: "hosted participants speak and hear audio: each utterance is\n" +
      "synthesized and sent in real time (pipecat AudioRawFrames to a\n" +
      "protobuf client, RTVI bot-tts-audio to a JSON one) between\n" +
      "bot-started-speaking and bot-stopped-speaking; the client's audio\n" +
      "(AudioRawFrame or raw-audio, any rate) is heard through a VAD, and the\n" +
      "end of its speech is a turn. ?audio=1 or ?audio=0 chooses per session",
  },
  voice: {
    type: "string",
    value: "V",
    description: `TTS voice (flite: ${Object.keys(FLITE_VOICES).join(", ")}; default slt)`,
  },
  "audio-rate": {
    type: "string",
    value: "HZ",
    description: "rate of the audio sent (what the reference expects)",
    default: String(DEFAULT_OUTPUT_RATE),
  },
  tts: {
    type: "string",
    value: "P",
    description: "flite (offline, default) or openai (--base-url, --tts-model)",
  },
  "tts-model": {
    type: "string",
    value: "M",
    description: "model of --tts openai (default gpt-4o-mini-tts)",
  },
  stt: {
    type: "string",
    value: "P",
    description: "openai: transcribe the client's turns (--base-url, --stt-model) when\n" +
      "the client sends no text for them; without it their words are\n" +
      'unknown ("") and the participant is told it heard speech',
  },
  "stt-model": {
    type: "string",
    value: "M",
    description: "model of --stt openai (default whisper-1)",
  },
  sip: {
    type: "string",
    value: "PORT",
    description: "also answer SIP calls on this UDP port (0: a free one) with the\n" +
      "hosted participants, in audio (G.711, RFC 4733 keys): the Request-URI's\n" +
      "user part names the participant (sip:flow@HOST:PORT;scenario=NAME)",
  },
  "sip-host": {
    type: "string",
    value: "H",
    description: "address of the SIP and RTP sockets (default 127.0.0.1; any other\n" +
      "needs a token, sent as X-Callbench-Token or ;token=)",
  },
  "sip-max-calls": {
    type: "string",
    value: "N",
    description: "SIP calls at once (more get 486 Busy Here)",
    default: String(DEFAULT_MAX_SIP_CALLS),
  },
  "tools-server": {
    type: "boolean",
    description: "also serve each session's tools over MCP (Streamable HTTP), for a\n" +
      "client whose agent calls its tools itself: bot-ready names the session's\n" +
      "own endpoint; the calls run as the hosted participant's own do",
  },
  "tools-host": {
    type: "string",
    value: "HOST",
    description: "where --tools-server listens (default 127.0.0.1)",
  },
} as const satisfies FlagTable;

const HELP = `callbench serve: a WebSocket bot server (RTVI 2.1) at /ws

Usage: cli.ts serve [FILE.yaml...] [--host 127.0.0.1] [--port 8765] [--token T] [--agent NAME] [--data-root D]
                    [--audio [--voice V] [--audio-rate HZ] [--tts flite|openai] [--stt openai]]
                    [--tools-server [--tools-host H]] [--sip PORT [--sip-host H]]

Each session hosts one participant: ?agent=NAME (noop, oracle, navigator, llm) or
?user=NAME (scripted, llm, flow) picks it, else --agent; ?scenario=NAME is the scenario it
plays when update_system_prompt names none, found in the scenario files given
(flow files, say) or else in the data root. A session outlives its client: the next
connection with the same ?session=NAME, or without one the same URL (its token left
out), resumes its prompt, tools, world, context and actions, as the reference's bots
keep theirs across reconnects. JSON text and pipecat protobuf frames are both
understood and answered in kind. Tool calls go back to the client
(llm-function-call-in-progress), unless the client loaded a world into the session
with apply_initialization. With --tools-server each session also gets its own MCP
endpoint for its tools, named in bot-ready (tools_server: {url, token}).

With --sip PORT it also answers SIP calls (UDP, G.711, RFC 4733 keys) with the same
participants in audio: the Request-URI's user part names the participant (flow,
navigator, oracle, noop, scripted, llm; callbench: --agent), its ;scenario=NAME
parameter or an X-Callbench-Scenario header the scenario, e.g.
sip:flow@127.0.0.1:5060;scenario=NAME. The participant answers and speaks first;
its hangup is a BYE. With --tools-server the 200 OK names the call's MCP endpoint in
X-Callbench-Tools.

Flags:
${flagRows(FLAGS)}

Prints the bound URL on stderr; stops cleanly on SIGINT or SIGTERM. A port in use, an
address it cannot bind or a bad token is one line on stderr and exit 2. Each session
holds at most 8 MiB of context history and 4 MiB of shared state: a frame past either
gets an error-response and the session goes on. A connection is closed, after a fatal
error naming why, when it sends no client-ready in time, no frame for the idle
timeout, more than 100 refused frames at once (then 20/s), or audio faster than 4x
real time; frames over 1 MiB are refused from their header (close 1009).`;

type ServeFlags = ReturnType<typeof parseFlags<typeof FLAGS>>["values"];

/**
 * The audio `serve` offers (`--audio`, or `?audio=1` per session): the TTS (and STT)
 * providers the flags name, made on the first audio session and shared by all.
 */
export function audioServing(
  values: ServeFlags,
  speech: ModelSettings,
): { audio: AppAudio; close(): Promise<void> } {
  const rate = intFlag("audio-rate", values["audio-rate"], DEFAULT_OUTPUT_RATE);
  if (!AUDIO_SAMPLE_RATES.includes(rate)) {
    throw new InputError({
      field: "--audio-rate",
      message: `unsupported rate ${rate} Hz`,
      hint: `one of ${AUDIO_SAMPLE_RATES.join(", ")}`,
    });
  }
  const provider = values.tts ?? "flite";
  if (provider !== "flite" && provider !== "openai") {
    throw new InputError({
      field: "--tts",
      message: `unknown TTS "${provider}"`,
      hint: "flite or openai",
    });
  }
  if (values.stt !== undefined && values.stt !== "openai") {
    throw new InputError({
      field: "--stt",
      message: `unknown STT ${quoteInput(values.stt)}`,
      hint: "openai",
    });
  }
  const voice = values.voice;
  if (provider === "flite" && voice !== undefined && !isFliteVoice(voice)) {
    throw new InputError({
      field: "--voice",
      message: `unknown flite voice ${quoteInput(voice)}`,
      hint: Object.keys(FLITE_VOICES).join(", "),
    });
  }
  const needsUrl = provider === "openai" || values.stt === "openai";
  if (needsUrl && !speech.baseUrl) {
    throw new InputError({
      field: provider === "openai" ? "--tts" : "--stt",
      message: "openai speech needs --base-url (or OPENAI_BASE_URL)",
    });
  }
  let tts: TtsProvider | undefined;
  let stt: SttProvider | undefined;
  const makeTts = (): TtsProvider =>
    tts ??= provider === "openai"
      ? new OpenAiTts({
        baseUrl: speech.baseUrl!,
        ...(speech.apiKey ? { apiKey: speech.apiKey } : {}),
        ...(values["tts-model"] ? { model: values["tts-model"] } : {}),
        ...(voice ? { voice } : {}),
        sampleRate: rate,
      })
      : new FliteTts({ ...(voice && isFliteVoice(voice) ? { voice } : {}), sampleRate: rate });
  const makeStt = (): SttProvider | undefined => {
    if (values.stt !== "openai") return undefined;
    return stt ??= new OpenAiStt({
      baseUrl: speech.baseUrl!,
      ...(speech.apiKey ? { apiKey: speech.apiKey } : {}),
      ...(values["stt-model"] ? { model: values["stt-model"] } : {}),
    });
  };
  return {
    audio: {
      enabled: values.audio === true,
      options: () => {
        const s = makeStt();
        return { tts: makeTts(), outputRate: rate, ...(s ? { stt: s } : {}) };
      },
    },
    close: async () => {
      await tts?.close();
    },
  };
}

/** Model settings for a hosted `llm` agent. */
export interface HostedLlm {
  baseUrl?: string;
  apiKey?: string;
  model?: string;
}

/**
 * Hosted participants by name, from the participant kinds `serve` can host
 * (src/participants/kinds.ts): the `noop`, `oracle`, `navigator` and `llm` agents and
 * the `scripted` caller. The oracle plays the reference actions, and the caller the
 * opening and known facts, of the scenario named in `update_system_prompt`, looked up
 * in this server's own data root (the client never sends them).
 */
export function builtinFactory(
  root: DataRoot,
  llm: HostedLlm = {},
  userLlm: HostedLlm = llm,
  lookUp: (name: string, language?: string) => Promise<Scenario> = scenarioLookup(root),
): HostedParticipantFactory {
  return async (name, setup) => {
    let kind;
    try {
      kind = findKind(name, setup.side, { hosted: true });
    } catch (e) {
      if (!(e instanceof InputError)) throw e;
      throw new Error(
        e.problems.map((p) => p.hint ? `${p.message}: ${p.hint}` : p.message).join("; "),
      );
    }
    const model = setup.side === "user" ? userLlm : llm;
    if (kind.needs.includes("model") && (!model.model || !model.baseUrl)) {
      throw new Error(
        `the llm ${setup.side} needs --${setup.side}-model and --base-url (or OPENAI_BASE_URL)`,
      );
    }
    let scenario: Scenario | undefined;
    if (kind.needs.includes("scenario")) {
      if (!setup.scenario) {
        throw new Error(`${name} needs a scenario name (update_system_prompt \`scenario\`)`);
      }
      scenario = await lookUp(setup.scenario, setup.language).catch((e) => {
        // Name our root without its path: the client names its own.
        if (setup.scenario_sha256 === undefined) throw e;
        throw new Error(
          `no scenario "${setup.scenario}" in this server's data root (${
            dataRootLabel(root.path)
          })`,
        );
      });
      // The same name in another data root is another scenario (the bundled fixtures reuse
      // real names): refuse it rather than play the wrong one.
      if (
        setup.scenario_sha256 !== undefined &&
        setup.scenario_sha256 !== scenarioSha256(scenario, root)
      ) {
        throw new Error(
          `scenario "${setup.scenario}" differs from the one of that name in this server's data root (${
            dataRootLabel(root.path)
          }): serve the data root the client runs (serve --data-root)`,
        );
      }
    }
    return kind.make({ spec: name, setup, scenario, model });
  };
}

/**
 * Finds a scenario by name, in the scenario files given (`serve FILE.yaml...`: flow
 * files, say) and else in the data root; each name is looked up once.
 */
export function scenarioLookup(
  root: DataRoot,
  files: readonly string[] = [],
): (name: string, language?: string) => Promise<Scenario> {
  const scenarios = new Map<string, Promise<Scenario>>();
  return (name: string, language?: string) => {
    // The same name in another culture is another scenario (EVA-Bench's release).
    const key = language === undefined ? name : `${name}\n${language}`;
    let found = scenarios.get(key);
    if (!found) {
      found = selectScenarios(root, {
        scenarios: [name],
        ...(files.length ? { files: [...files] } : {}),
        ...(language !== undefined ? { language } : {}),
      }).then((r) => r.scenarios[0]!);
      found.catch(() => scenarios.delete(key));
      scenarios.set(key, found);
    }
    return found;
  };
}

/** Runs the server until `stop` is aborted (SIGINT or SIGTERM, in the command). */
export async function runServe(
  args: string[],
  io: Io,
  factory: (
    root: DataRoot,
    llm: HostedLlm,
    userLlm: HostedLlm,
    lookUp: (name: string, language?: string) => Promise<Scenario>,
  ) => HostedParticipantFactory,
  stop: AbortSignal,
): Promise<number> {
  const { values, positionals: files } = parseFlags(args, FLAGS);
  const port = intFlag("port", values.port, 8765, 0);
  if (port > 65535) {
    throw new InputError({ field: "--port", message: `port out of range: ${port}` });
  }
  const agent = values.agent ?? DEFAULT_AGENT;
  findKind(agent, "agent", { hosted: true });
  const token = values.token ?? io.env("CALLBENCH_TOKEN");
  try {
    checkToken(token);
  } catch (e) {
    throw cliError(e, { token: values.token !== undefined ? "--token" : "CALLBENCH_TOKEN" });
  }
  const dataRoot = openDataRoot(values["data-root"], io);
  if (files.length > 0) {
    // The files are the user's own input: a problem in one is an error now, not on a call.
    const loaded = await selectScenarios(dataRoot, { files });
    if (loaded.fileProblems.length > 0) throw new InputError(loaded.fileProblems);
  }
  const lookUp = scenarioLookup(dataRoot, files);
  const env = envWithKey(io, values["api-key-env"], "--api-key-env");
  const speechModel = modelSettings("agent", {
    baseUrl: values["base-url"],
    apiKeyEnv: values["api-key-env"],
  }, env);
  const speech = audioServing(values, speechModel);
  if (values["tools-host"] !== undefined && !values["tools-server"]) {
    throw new InputError({ field: "--tools-host", message: "needs --tools-server" });
  }
  const idle = values["session-idle"] === undefined
    ? DEFAULT_SESSION_IDLE_MS / 1000
    : Number(values["session-idle"]);
  if (!Number.isFinite(idle) || idle < 0) {
    throw new InputError({ field: "--session-idle", message: "expected seconds >= 0" });
  }
  const limits = {
    handshakeTimeoutMs: seconds(values["handshake-timeout"], "--handshake-timeout") ??
      DEFAULT_CONNECTION_LIMITS.handshakeTimeoutMs,
    idleTimeoutMs: seconds(values["idle-timeout"], "--idle-timeout") ??
      DEFAULT_CONNECTION_LIMITS.idleTimeoutMs,
  };
  if (values.sip === undefined) {
    for (const flag of ["sip-host", "sip-max-calls"] as const) {
      if (values[flag] !== undefined) {
        throw new InputError({ field: `--${flag}`, message: "needs --sip" });
      }
    }
  }
  const sipPort = values.sip === undefined ? undefined : intFlag("sip", values.sip, 0, 0);
  if (sipPort !== undefined && sipPort > 65535) {
    throw new InputError({ field: "--sip", message: `port out of range: ${sipPort}` });
  }
  const sipHost = values["sip-host"] ?? "127.0.0.1";
  if (sipPort !== undefined && !isLoopback(sipHost) && !token) {
    throw new InputError({
      field: "--sip-host",
      message: `binding ${sipHost} (not loopback) needs a token`,
      hint: "give --token; callers send it as X-Callbench-Token or ;token= on the URI",
    });
  }
  const toolsServer = values["tools-server"]
    ? (await loadToolsServer()).ToolsServer.start({
      ...(values["tools-host"] !== undefined ? { hostname: values["tools-host"] } : {}),
    })
    : undefined;
  // One factory for the WebSocket sessions and the SIP calls: both host the same participants.
  const participants = factory(
    dataRoot,
    modelSettings("agent", {
      model: values["agent-model"],
      baseUrl: values["base-url"],
      apiKeyEnv: values["api-key-env"],
    }, env),
    modelSettings("user", {
      model: values["user-model"],
      baseUrl: values["base-url"],
      apiKeyEnv: values["api-key-env"],
    }, env),
    lookUp,
  );
  const server = await serve({
    hostname: values.host ?? "127.0.0.1",
    port,
    token,
    defaultAgent: agent,
    dataRoot,
    maxSessions: intFlag(
      "max-sessions",
      values["max-sessions"],
      Number(FLAGS["max-sessions"].default),
    ),
    keep: {
      idleMs: idle * 1000,
      maxKept: intFlag("kept-sessions", values["kept-sessions"], DEFAULT_MAX_KEPT_SESSIONS, 0),
    },
    factory: participants,
    audio: speech.audio,
    session: { limits, ...(toolsServer ? { tools: toolsServer } : {}) },
    log: (line) => io.err(line),
  }).catch(async (e) => {
    await toolsServer?.close();
    throw e;
  });
  let sip: SipServer | undefined;
  if (sipPort !== undefined) {
    try {
      sip = await SipServer.start({
        hostname: sipHost,
        port: sipPort,
        factory: participants,
        lookUp,
        participantOf: hostedParticipant,
        defaultAgent: agent,
        audio: () => speech.audio.options(),
        maxCalls: intFlag("sip-max-calls", values["sip-max-calls"], DEFAULT_MAX_SIP_CALLS),
        session: {
          dataRoot,
          limits,
          ...(toolsServer ? { tools: toolsServer } : {}),
        },
        ...(token ? { token } : {}),
        log: (line) => io.err(line),
      });
    } catch (e) {
      await server.shutdown();
      await toolsServer?.close();
      const code = (e as { code?: string }).code;
      if (code === "EADDRINUSE") {
        throw new InputError({
          field: "--sip",
          message: `UDP port ${sipPort} on ${sipHost} is already in use`,
          hint: "stop what holds it or pick another port; 0 picks a free one",
        });
      }
      if (code === "EADDRNOTAVAIL" || code === "EINVAL") {
        throw new InputError({
          field: "--sip-host",
          message: `cannot listen on ${sipHost}: no such address on this machine`,
        });
      }
      throw e;
    }
    io.err(`callbench serve: answering SIP calls at ${sip.uri}`);
  }
  io.err(
    `callbench serve: listening on ${server.url}${speech.audio.enabled ? " (audio)" : ""}${
      toolsServer ? ` (session tools over MCP at ${toolsServer.baseUrl})` : ""
    }`,
  );
  const stopped = new Promise<void>((resolve) => {
    if (stop.aborted) resolve();
    stop.addEventListener("abort", () => resolve(), { once: true });
  });
  await Promise.race([stopped, server.finished]);
  io.err("callbench serve: stopping");
  await sip?.close();
  await server.shutdown();
  await toolsServer?.close();
  await speech.close();
  return 0;
}

/**
 * The hosted participant a SIP Request-URI's user part names: `agent.NAME` or
 * `user.NAME`, else a bare NAME, an agent before a caller (`llm` is the agent).
 */
export function hostedParticipant(
  user: string,
): { name: string; side: Side; needsScenario: boolean } | undefined {
  const m = /^(agent|user)\.(.+)$/.exec(user);
  const sides: Side[] = m ? [m[1] as Side] : ["agent", "user"];
  const name = m ? m[2]! : user;
  for (const side of sides) {
    const kind = kindsOf(side, { hosted: true }).find((k) => k.name === name);
    if (kind) return { name, side, needsScenario: kind.needs.includes("scenario") };
  }
  return undefined;
}

/** The MCP tools server, loaded only when asked for (its package is large). */
function loadToolsServer(): Promise<typeof import("../tools_server/tools_server.ts")> {
  const path = ["..", "tools_server", "tools_server.ts"].join("/");
  return import(path);
}

/** A flag of seconds >= 0 as ms; undefined when not given. */
function seconds(value: string | undefined, field: string): number | undefined {
  if (value === undefined) return undefined;
  const s = Number(value);
  if (value.trim() === "" || !Number.isFinite(s) || s < 0) {
    throw new InputError({ field, message: "expected seconds >= 0" });
  }
  return s * 1000;
}

/** Runs `fn` with a signal aborted by the first SIGINT or SIGTERM. */
async function untilSignalled<T>(fn: (stop: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const signals: Deno.Signal[] = Deno.build.os === "windows" ? ["SIGINT"] : ["SIGINT", "SIGTERM"];
  const onSignal = () => controller.abort();
  for (const s of signals) Deno.addSignalListener(s, onSignal);
  try {
    return await fn(controller.signal);
  } finally {
    for (const s of signals) Deno.removeSignalListener(s, onSignal);
  }
}

export const command: Command = {
  summary: "serve built-in agents over RTVI WebSocket",
  help: HELP,
  flags: FLAGS,
  main: (args: string[], io: Io) =>
    untilSignalled((stop) => runServe(args, io, builtinFactory, stop)),
};

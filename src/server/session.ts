/**
 * One bot-server session: RTVI 2.1 dispatch for one client at a time, over a
 * two-method socket (so it is tested without any network). Its parts live apart:
 * the hosted participant and its line (src/server/participant_line.ts), the world a
 * reference-style client loads (src/server/hosted_world.ts), the context history
 * (src/server/context_history.ts). Each client message is parsed with zod and checked
 * against the value limits before a handler sees it.
 *
 * Tool calls are executed by the client (the harness owns the world) unless a
 * reference-style client loaded a world into this session with
 * `apply_initialization`; then the session runs them on its own Environment.
 *
 * @module
 */
import type { CallEvent, CallSetup, Clock, ToolCallReply, ToolSpec } from "../bridge/call.ts";
import { RealClock } from "../clock/clock.ts";
import type { Domain, Side } from "../domains/domain.ts";
import type { DataRoot } from "../scenario/data_root.ts";
import { type Framing, MAX_FRAME_BYTES, readFrame, writeFrame } from "../protocol/framing.ts";
import {
  ApplyInitializationArgsSchema,
  ApplySyncDeltaArgsSchema,
  CallEventSchema,
  GetContextHistoryArgsSchema,
  GetScenarioSummaryArgsSchema,
  type HandlerName,
  isHandlerName,
  ResetArgsSchema,
  UpdateSystemPromptArgsSchema,
} from "../protocol/handlers.ts";
import { checkValueLimits } from "../protocol/limits.ts";
import type { AudioProblem, PcmAudio } from "../protocol/audio_payload.ts";
import { decodePipecatFrame, encodeAudioFrame } from "../protocol/protobuf.ts";
import { pcm16ToBytes } from "../audio/pcm.ts";
import type { SpeechError } from "../speech/speech.ts";
import {
  botTtsAudioMessage,
  ClientMessageDataSchema,
  ClientReadyDataSchema,
  decodeRawAudio,
  decodeRawAudioBatch,
  DtmfDataSchema,
  FunctionCallResultDataSchema,
  issues,
  parseMessage,
  PROTOCOL_VERSION,
  rtvi,
  type RtviMessage,
  SendTextDataSchema,
} from "../protocol/messages.ts";
import { checkClientVersion } from "../protocol/version.ts";
import { clientText } from "./client_text.ts";
import { ContextHistory, jsonBytes } from "./context_history.ts";
import { describe, HostedWorld } from "./hosted_world.ts";
import { HostedParticipant, type HostedParticipantFactory } from "./participant_line.ts";
import { SessionAudio, type SessionAudioOptions } from "./session_audio.ts";
import { ConnectionGuard, type ConnectionLimits, type Violation } from "./connection_guard.ts";

export type { HostedParticipantFactory };

/** All a session needs of its socket. */
export interface SessionSocket {
  /** Sends one frame to the client (text: JSON framing; bytes: protobuf). */
  send(data: string | Uint8Array<ArrayBuffer>): void;
  /** Closes the socket with a WebSocket close code and reason. */
  close(code?: number, reason?: string): void;
  /** Bytes sent and not yet taken by the network (absent: unknown, taken as 0). */
  bufferedAmount?(): number;
}

/**
 * Serves a session's tools over MCP (`serve --tools-server`;
 * `src/tools_server/tools_server.ts`'s `ToolsServer` is one): one registration per
 * session, its endpoint told to the client in `bot-ready`, closed with the session.
 */
export interface SessionToolsRegistry {
  /** Registers one session: its tools now (they change with its setup), and how a call runs. */
  register(session: {
    readonly tools: readonly ToolSpec[];
    callTool(name: string, args: unknown): Promise<ToolCallReply>;
  }): { url: string; token: string; close(): void };
}

/** How a session is made: what it hosts and its limits. */
export interface SessionOptions {
  /** Makes the hosted participant when a call starts. */
  factory: HostedParticipantFactory;
  /**
   * Which participant this session hosts, on which side of the call, and the scenario
   * it plays when `update_system_prompt` names none (the URL's `scenario`).
   */
  participant: { name: string; side: Side; scenario?: string };
  /** Where `apply_initialization` finds `db_path`; without it, paths are refused. */
  dataRoot?: DataRoot;
  /** Domain lookup (tests inject their own). */
  domains?: (id: string) => Promise<Domain>;
  /** The call clock of the hosted participant (default: the wall clock). */
  clock?: Clock;
  /** How long a tool call waits for the client's result. */
  toolTimeoutMs?: number;
  /** Largest frame accepted from the client, bytes (default `MAX_FRAME_BYTES`, 1 MiB). */
  maxFrameBytes?: number;
  /**
   * Bytes (UTF-8 JSON) the context history may hold; a frame that would take the
   * conversation past it gets an `error-response` and changes nothing.
   */
  maxHistoryBytes?: number;
  /** Bytes (UTF-8 JSON) of `apply_initialization` shared state kept per scenario. */
  maxSharedStateBytes?: number;
  /**
   * Audio (`serve --audio`): the participant speaks synthesized audio and hears the
   * client's audio (VAD turn-taking). Absent: text only, and audio frames are ignored.
   */
  audio?: SessionAudioOptions;
  /**
   * What one connection may cost (refused frames, audio speed, time to `client-ready`,
   * time without a frame); past a bound the client is told why and its socket closed.
   */
  limits?: ConnectionLimits;
  /**
   * The session's tools over MCP (`serve --tools-server`): `tools/list` gives the tools
   * of the session's setup, `tools/call` runs as the hosted participant's own calls do.
   */
  tools?: SessionToolsRegistry;
  /** Diagnostics (never protocol data). */
  log?: (line: string) => void;
}

/** Frames waiting to be handled (only while a Blob is read); more are refused. */
export const MAX_QUEUED_FRAMES = 256;
/** Messages waiting for the one before them to be handled; more are refused. */
export const MAX_PENDING_MESSAGES = 256;

/** Bytes of a user turn's history entry besides its words. */
const ENTRY_OVERHEAD = jsonBytes({ role: "user", content: "" });

/** `about` in `bot-ready`. */
export const SERVER_ABOUT = { library: "callbench", library_version: "0.1.0" } as const;

type Handler = (d: unknown) => unknown;

const BEFORE_HANDSHAKE = "audio before the handshake: send client-ready first";
/** The reference runner's kick: its fixed first text to the agent bot. */
const REFERENCE_KICK = "Hello";

/** A refused protobuf frame, for the client. */
function frameProblem(problem: AudioProblem): string {
  return problem.message.startsWith("invalid protobuf frame")
    ? problem.message
    : `invalid audio frame (${problem.code}): ${problem.message}`;
}

/** A refused RTVI audio message, for the client. */
function audioProblemText(problem: AudioProblem): string {
  return `invalid audio (${problem.code}): ${problem.message}`;
}

/** One hosted participant's session; it outlives its client and can be attached again. */
export class Session {
  readonly #options: SessionOptions;
  readonly #clock: Clock;
  /** The client connected now; none between a disconnect and the next connection. */
  #socket?: SessionSocket;
  #framing: Framing = "json";
  #legacy = false;
  /** The connection sent `client-ready` (audio before it is refused). */
  #handshaken = false;
  /** Freed: nothing more is handled or sent. */
  #closed = false;
  /** The call has had a `send-text` (a first "Hello" is the reference runner's kick). */
  #heardText = false;

  /**
   * Frames waiting, in arrival order: only while a Blob is read (a frame that is not
   * a Blob is handled as it comes when none waits), and at most `MAX_QUEUED_FRAMES`.
   */
  #queue: (string | ArrayBufferLike | ArrayBufferView | Blob)[] = [];
  /** Reading the queue (a Blob at a time); settles once it is empty. */
  #inbox: Promise<void> = Promise.resolve();
  #draining = false;
  /** Messages handled one at a time, in order; tool results bypass it. */
  #work: Promise<void> = Promise.resolve();
  /** Messages on `#work` not yet handled. */
  #pendingWork = 0;
  /** The bounds of the connection now; none between clients. */
  #guard?: ConnectionGuard;
  /** Size of the last reply sent, bytes (the next is taken to be as large). */
  #lastReplyBytes = 0;
  /** The socket was closed for a violation: its further frames are dropped unread. */
  #cut = false;

  readonly #world: HostedWorld;
  readonly #history: ContextHistory;
  readonly #host: HostedParticipant;
  readonly #audio?: SessionAudio;
  /** The session's MCP endpoint (`serve --tools-server`). */
  readonly #tools?: { url: string; token: string; close(): void };

  /** A session on `socket` (or none yet: `attach` one later). */
  constructor(socket: SessionSocket | undefined, options: SessionOptions) {
    this.#socket = socket;
    this.#options = options;
    this.#clock = options.clock ?? new RealClock();
    if (socket) this.#guard = this.#newGuard();
    const log = (line: string) => this.#log(line);
    this.#world = new HostedWorld({
      dataRoot: options.dataRoot,
      domains: options.domains,
      maxSharedStateBytes: options.maxSharedStateBytes,
      log,
    });
    this.#history = new ContextHistory(options.maxHistoryBytes);
    if (options.audio) {
      this.#audio = new SessionAudio(options.audio, {
        clock: this.#clock,
        sendAudio: (samples, rate) => this.#sendAudio(samples, rate),
        speechStarted: (at) => this.#heard({ type: "speech_start", at }),
        turn: (text, at) => this.#heard({ type: "speech", at, text }),
        speechError: (e) => this.#speechError(e),
        log,
      });
    }
    const audio = this.#audio;
    this.#host = new HostedParticipant(options.participant.side, {
      factory: options.factory,
      name: options.participant.name,
      clock: this.#clock,
      world: this.#world,
      history: this.#history,
      toolTimeoutMs: options.toolTimeoutMs,
      outlet: {
        send: (m) => this.#send(m),
        clientText: (t) => this.#clientText(t),
        legacy: () => this.#legacy,
        schedule: (fn) =>
          this.#schedule(fn, (e) => this.#log(`releasing a failed participant: ${describe(e)}`)),
        ...(audio
          ? {
            speak: (text, hooks) => audio.speak(text, hooks),
            interrupt: () => audio.interrupt(),
            afterSpeech: (fn) => audio.afterSpeech(fn),
            afterSpeechStarted: (fn) => audio.afterSpeechStarted(fn),
          }
          : {}),
        // After the end has gone out; the session is kept for the next connection.
        closeEnded: () => {
          const socket = this.#socket;
          this.#clock.timer(0, () => {
            try {
              socket?.close(1000, "call ended");
            } catch { /* already closed */ }
          });
        },
        log,
      },
    });
    const host = this.#host;
    this.#tools = options.tools?.register({
      get tools() {
        return host.setup?.tools ?? [];
      },
      callTool: (name, args) => host.servedToolCall(name, args),
    });
  }

  /** The session's own MCP endpoint (`serve --tools-server`), as `bot-ready` tells it. */
  get toolsServer(): { url: string; token: string } | undefined {
    return this.#tools && { url: this.#tools.url, token: this.#tools.token };
  }

  /** Whether the hosted participant speaks and hears audio. */
  get audio(): boolean {
    return this.#audio !== undefined;
  }

  /** The framing of the last frame received (replies use it). */
  get framing(): Framing {
    return this.#framing;
  }

  /** Tool calls waiting for the client's result. */
  get pendingToolCalls(): number {
    return this.#host.pendingToolCalls;
  }

  /** Whether a client is connected now. */
  get attached(): boolean {
    return this.#socket !== undefined && !this.#closed;
  }

  /** Whether the session was freed (it handles nothing more). */
  get isClosed(): boolean {
    return this.#closed;
  }

  /** The participant kind and side this session hosts. */
  get participant(): Readonly<SessionOptions["participant"]> {
    return this.#options.participant;
  }

  /** Handles one frame as received. Never throws; bad frames are answered with errors. */
  receive(data: string | ArrayBufferLike | ArrayBufferView | Blob): void {
    if (this.#closed || this.#cut) return;
    const bytes = typeof data === "string"
      ? data.length
      : data instanceof Blob
      ? data.size
      : data.byteLength;
    const flood = this.#guard?.frame(bytes);
    if (flood) return this.#cutOff(this.#socket, flood);
    if (!this.#draining && !(data instanceof Blob)) return this.#dispatchSafely(data);
    if (this.#queue.length >= MAX_QUEUED_FRAMES) {
      return this.#error(`too many frames waiting (${MAX_QUEUED_FRAMES}); frame dropped`);
    }
    this.#queue.push(data);
    if (!this.#draining) this.#inbox = this.#drain();
  }

  /** Handles the queued frames in order, reading each Blob first. */
  async #drain(): Promise<void> {
    this.#draining = true;
    try {
      while (this.#queue.length > 0 && !this.#closed && !this.#cut) {
        const data = this.#queue.shift()!;
        try {
          this.#dispatchSafely(
            data instanceof Blob ? new Uint8Array(await data.arrayBuffer()) : data,
          );
        } catch (e) {
          this.#log(`reading a frame failed: ${describe(e)}`);
        }
        // A message just scheduled is handled before the next frame, as when frames come apart.
        await null;
      }
    } finally {
      this.#queue = [];
      this.#draining = false;
    }
  }

  #dispatchSafely(data: string | ArrayBufferLike | ArrayBufferView): void {
    try {
      this.#dispatch(data);
    } catch (e) {
      this.#log(`frame handling failed: ${(e as Error)?.stack ?? e}`);
    }
  }

  /** Runs `fn` after the messages before it; at most `MAX_PENDING_MESSAGES` wait. */
  #schedule(fn: () => unknown, failed: (e: unknown) => void): void {
    this.#pendingWork++;
    this.#work = this.#work.then(async () => {
      await fn();
    }).catch(failed).finally(() => this.#pendingWork--);
  }

  /** Resolves once every frame received so far has been handled (tests, shutdown). */
  async idle(): Promise<void> {
    let inbox, work;
    do {
      inbox = this.#inbox;
      work = this.#work;
      await Promise.all([inbox, work]);
    } while (inbox !== this.#inbox || work !== this.#work);
  }

  /** Resolves once the VAD has loaded and the turns heard so far are delivered (tests). */
  async audioIdle(): Promise<void> {
    await this.#audio?.idle();
    await this.idle();
  }

  /**
   * A new client takes this session over (the reference's bots keep their state across
   * reconnects): prompt, tools, world, context and actions are as the last one left them.
   */
  attach(socket: SessionSocket): void {
    if (this.#closed) throw new Error("the session was freed");
    this.#socket = socket;
    this.#framing = "json";
    this.#legacy = false;
    this.#handshaken = false;
    this.#cut = false;
    this.#queue = [];
    this.#guard?.stop();
    this.#guard = this.#newGuard();
    // A finished call is not resumed: the next thing heard starts a new one.
    this.#schedule(
      () => this.#host.newCallIfEnded(),
      (e) => this.#log(`starting a new call failed: ${describe(e)}`),
    );
  }

  /**
   * The client went away but the session is kept: tool calls waiting on it get an
   * error result, and nothing is sent until the next client attaches.
   */
  detach(socket?: SessionSocket): void {
    if (socket !== undefined && socket !== this.#socket) return;
    this.#socket = undefined;
    this.#handshaken = false;
    this.#queue = [];
    this.#guard?.stop();
    this.#guard = undefined;
    this.#audio?.reset();
    this.#host.failPending("disconnected", "The client disconnected.");
  }

  /** The session is freed: the participant's call ends and it is released. */
  async closed(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#tools?.close();
    this.#guard?.stop();
    this.#audio?.close();
    this.#host.failPending("disconnected", "The client disconnected.");
    await this.#host.end("client disconnected");
  }

  /** Closes the socket from the server side (shutdown, disconnect-bot) and frees the session. */
  async close(code = 1001, reason = "server shutting down"): Promise<void> {
    try {
      this.#socket?.close(code, reason);
    } catch { /* already closed */ }
    await this.closed();
  }

  // ---- incoming -----------------------------------------------------------------

  #dispatch(data: string | ArrayBufferLike | ArrayBufferView): void {
    const maxBytes = this.#options.maxFrameBytes ?? MAX_FRAME_BYTES;
    let text: string;
    if (this.#audio && typeof data !== "string") {
      const bytes = ArrayBuffer.isView(data)
        ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
        : new Uint8Array(data);
      this.#framing = "protobuf";
      if (bytes.length > maxBytes) {
        return this.#error(`frame too large: ${bytes.length} bytes (limit ${maxBytes})`);
      }
      const decoded = decodePipecatFrame(bytes);
      if (!decoded.ok) return this.#error(frameProblem(decoded.problem));
      const frame = decoded.frame;
      switch (frame.kind) {
        case "audio":
          return this.#onAudio(frame, undefined);
        case "text":
        case "transcription":
          if (!this.#handshaken) return this.#error(BEFORE_HANDSHAKE);
          return this.#pendingWords(frame.text, undefined);
        case "interruption":
          return;
        case "message":
          text = frame.data;
      }
    } else {
      const frame = readFrame(data, maxBytes);
      this.#framing = frame.framing;
      if (!frame.ok) return this.#error(frame.error);
      if ("skipped" in frame) return;
      text = frame.text;
    }
    const parsed = parseMessage(text);
    if (!parsed.ok) {
      return parsed.id !== undefined
        ? this.#errorResponse(parsed.id, parsed.error)
        : this.#error(parsed.error);
    }
    const msg = parsed.message;
    if (!msg) return; // another label: not ours to answer
    const problem = checkValueLimits(msg.data);
    if (problem) return this.#reply(msg, undefined, `Invalid message: data ${problem}`);
    if (msg.type === "llm-function-call-result") return this.#onFunctionCallResult(msg);
    if (msg.type === "client-ready") {
      this.#handshaken = true;
      this.#guard?.handshaken();
    }
    if (this.#audio && (msg.type === "raw-audio" || msg.type === "raw-audio-batch")) {
      const audio = msg.type === "raw-audio"
        ? decodeRawAudio(msg.data)
        : decodeRawAudioBatch(msg.data);
      if (!audio.ok) return this.#errorResponse(msg.id, audioProblemText(audio.problem));
      return this.#onAudio(audio.value, msg.id);
    }
    if (this.#pendingWork >= MAX_PENDING_MESSAGES) {
      return this.#errorResponse(msg.id, `too many messages waiting (${MAX_PENDING_MESSAGES})`);
    }
    this.#schedule(() => this.#handle(msg), (e) => this.#fault(msg, e));
  }

  async #handle(msg: RtviMessage): Promise<void> {
    if (this.#closed) return;
    switch (msg.type) {
      case "client-ready":
        return this.#onClientReady(msg);
      case "client-message":
        return await this.#onClientMessage(msg);
      case "send-text":
        return await this.#onSendText(msg);
      case "dtmf":
        return await this.#onDtmf(msg);
      case "disconnect-bot":
        await this.close(1000, "disconnect-bot");
        return;
      default:
        return this.#reply(msg, undefined, `Unsupported type ${msg.type}`);
    }
  }

  #onClientReady(msg: RtviMessage): void {
    const data = ClientReadyDataSchema.safeParse(msg.data ?? {});
    const check = checkClientVersion(data.success ? data.data.version : undefined);
    if (!check.ok) this.#reply(msg, undefined, check.error);
    this.#legacy = check.ok && check.legacy;
    const version = check.ok && check.legacy ? check.version : PROTOCOL_VERSION;
    const tools = this.toolsServer;
    this.#send(
      rtvi("bot-ready", {
        version,
        about: SERVER_ABOUT,
        ...(tools ? { tools_server: tools } : {}),
      }, msg.id),
    );
  }

  async #onClientMessage(msg: RtviMessage): Promise<void> {
    const tooMuch = this.#replyRefusal();
    if (tooMuch) return this.#reply(msg, undefined, tooMuch);
    const data = ClientMessageDataSchema.safeParse(msg.data);
    if (!data.success) return this.#reply(msg, undefined, `Invalid message: ${issues(data.error)}`);
    const { t, d } = data.data;
    if (!isHandlerName(t)) return this.#reply(msg, undefined, `unknown message type: ${t}`);
    let result: unknown;
    try {
      result = await this.#handlers[t](d ?? {});
    } catch (e) {
      return this.#reply(msg, undefined, describe(e));
    }
    this.#reply(msg, { t, d: result });
  }

  async #onSendText(msg: RtviMessage): Promise<void> {
    const data = SendTextDataSchema.safeParse(msg.data);
    if (!data.success) return this.#reply(msg, undefined, `Invalid message: ${issues(data.error)}`);
    const { content, voice, interrupted } = data.data;
    if (this.#audio && data.data.options?.run_immediately === false) {
      // Words for the turn the client is speaking: they go with its end (VAD).
      return this.#pendingWords(content, msg.id);
    }
    const entry = { role: "user", content };
    const bytes = jsonBytes(entry);
    if (!this.#history.hasRoom(bytes)) {
      return this.#reply(msg, undefined, this.#history.fullMessage(bytes));
    }
    if (!(await this.#ensureCall(msg))) return;
    this.#history.remember(entry, bytes);
    // The kick: marked so by callbench's client, or the reference runner's fixed
    // "Hello" as the call's first text.
    const kick = data.data.kick === true || (!this.#heardText && content === REFERENCE_KICK);
    this.#heardText = true;
    this.#host.deliver({
      type: "speech",
      at: this.#clock.now(),
      text: content,
      ...(voice ? { voice } : {}),
      ...(interrupted ? { interrupted } : {}),
      ...(kick ? { kick: true } : {}),
    });
  }

  async #onDtmf(msg: RtviMessage): Promise<void> {
    const data = DtmfDataSchema.safeParse(msg.data);
    if (!data.success) return this.#reply(msg, undefined, `Invalid message: ${issues(data.error)}`);
    const keys = "buttons" in data.data ? data.data.buttons.join("") : data.data.button;
    if (!(await this.#ensureCall(msg))) return;
    this.#host.deliver({ type: "dtmf", at: this.#clock.now(), keys });
  }

  #onFunctionCallResult(msg: RtviMessage): void {
    const data = FunctionCallResultDataSchema.safeParse(msg.data);
    if (!data.success) return this.#reply(msg, undefined, `Invalid message: ${issues(data.error)}`);
    const taken = this.#host.toolResult(data.data.tool_call_id, data.data.result);
    if (!taken.ok) this.#reply(msg, undefined, taken.error);
  }

  /**
   * Words the client sent for the turn it is speaking: kept for the turn's end only
   * while they, with the words kept already, fit the history budget.
   */
  #pendingWords(text: string, id: string | undefined): void {
    const audio = this.#audio!;
    const own = jsonBytes(text);
    const bytes = ENTRY_OVERHEAD + audio.pendingWordBytes + own;
    if (!this.#history.hasRoom(bytes)) {
      return this.#errorResponse(
        id,
        `words for the turn in progress refused: ${this.#history.fullMessage(bytes)}`,
      );
    }
    audio.words(text, own);
  }

  /** One chunk of the client's audio: heard once the connection has shaken hands. */
  #onAudio(audio: PcmAudio, id: string | undefined): void {
    if (!this.#handshaken) return this.#errorResponse(id, BEFORE_HANDSHAKE);
    const guard = this.#guard;
    const ms = (audio.pcm.byteLength / (2 * audio.numChannels * audio.sampleRate)) * 1000;
    const fast = guard?.audio(ms);
    if (fast) return this.#cutOff(this.#socket, fast, id);
    const t0 = performance.now();
    this.#audio!.hear(audio);
    const slow = guard?.cpu(performance.now() - t0);
    if (slow) this.#cutOff(this.#socket, slow, id);
  }

  /** What the VAD heard, delivered in order with the other messages, once the call is on. */
  #heard(event: CallEvent): void {
    this.#schedule(async () => {
      if (this.#closed) return;
      try {
        if (!(await this.#ensureParticipant())) return;
      } catch (e) {
        return this.#error(describe(e));
      }
      this.#host.startCall();
      if (event.type === "speech" && event.text) {
        const entry = { role: "user", content: event.text };
        const bytes = jsonBytes(entry);
        if (!this.#history.hasRoom(bytes)) return this.#error(this.#history.fullMessage(bytes));
        this.#history.remember(entry, bytes);
      }
      this.#host.deliver(event);
    }, (e) => this.#log(`delivering what was heard failed: ${describe(e)}`));
  }

  // ---- client-message handlers ----------------------------------------------------

  /** By `t`, one per `HandlerName`; looked up only after `isHandlerName`. */
  readonly #handlers: { readonly [K in HandlerName]: Handler } = {
    reset: (d) => {
      ResetArgsSchema.parse(d);
      return this.#reset();
    },
    update_system_prompt: (d) => this.#updateSystemPrompt(d),
    apply_initialization: async (d) => {
      const args = ApplyInitializationArgsSchema.parse(d);
      const setup = this.#host.setup;
      const result = await this.#world.applyInitialization(args, {
        side: this.#host.side,
        domain: setup?.domain,
        seed: setup?.seed ?? "0",
      });
      return this.#cleanResult(result);
    },
    apply_sync_delta: (d) => {
      const args = ApplySyncDeltaArgsSchema.parse(d);
      return this.#cleanResult(this.#world.applySyncDelta(args, this.#host.side));
    },
    get_scenario_summary: (d) => {
      const { include_db } = GetScenarioSummaryArgsSchema.parse(d);
      return this.#world.summary(include_db, this.#host.side);
    },
    get_context_history: (d) => {
      GetContextHistoryArgsSchema.parse(d);
      return this.#history.reply();
    },
    call_event: (d) => this.#callEvent(d),
  };

  async #reset(): Promise<boolean> {
    this.#heardText = false;
    const setup = this.#host.setup;
    if (!setup) return true;
    await this.#host.start(setup);
    this.#history.restart(setup.prompt);
    return true;
  }

  async #updateSystemPrompt(d: unknown): Promise<boolean> {
    const args = UpdateSystemPromptArgsSchema.parse(d);
    if (args.prompt === "") return false;
    const side = args.side ?? this.#host.side;
    const tools = await this.#world.toolSpecs(args.tools, args.tool_domain, side);
    // As the reference: a new system prompt starts a new scenario (shared state cleared).
    this.#host.side = side;
    this.#world.clear();
    const setup: CallSetup = {
      side,
      // A client that never names the scenario (the reference runner) plays the URL's.
      scenario: args.scenario ?? this.#options.participant.scenario ?? "",
      domain: args.tool_domain,
      prompt: args.prompt,
      tools,
      ...(args.userdata ? { userdata: args.userdata } : {}),
      seed: args.seed ?? "0",
      ...(args.scenario_sha256 ? { scenario_sha256: args.scenario_sha256 } : {}),
      ...(args.language ? { language: args.language } : {}),
    };
    await this.#host.start(setup);
    this.#history.restart(args.prompt);
    return true;
  }

  async #callEvent(d: unknown): Promise<boolean> {
    const event = CallEventSchema.parse(d);
    if (!(await this.#ensureParticipant())) throw new Error("no participant could be started");
    if (event.type === "call_start") this.#host.markCallStarted();
    this.#host.deliver({ ...event, at: this.#clock.now() });
    return true;
  }

  #ensureParticipant(): Promise<boolean> {
    return this.#host.ensureParticipant({ scenario: this.#options.participant.scenario });
  }

  /** Makes sure the call has started before the participant hears the far end. */
  async #ensureCall(msg: RtviMessage): Promise<boolean> {
    try {
      if (!(await this.#ensureParticipant())) return false;
    } catch (e) {
      this.#reply(msg, undefined, describe(e));
      return false;
    }
    this.#host.startCall();
    return true;
  }

  // ---- outgoing ------------------------------------------------------------------

  /** Speech as the client speaks: AudioRawFrames (protobuf) or `bot-tts-audio` (JSON). */
  #sendAudio(samples: Int16Array, sampleRate: number): void {
    if (this.#closed || !this.#socket || this.#cut) return;
    const queued = this.#socket.bufferedAmount?.() ?? 0;
    if (this.#guard && !this.#guard.roomToSend(queued, 0)) {
      return this.#cutOff(this.#socket, this.#guard.notReading(queued));
    }
    const audio = { pcm: pcm16ToBytes(samples), sampleRate, numChannels: 1 };
    try {
      this.#socket.send(
        this.#framing === "protobuf"
          ? encodeAudioFrame(audio)
          : writeFrame(botTtsAudioMessage(audio), "json"),
      );
    } catch (e) {
      this.#log(`send failed: ${describe(e)}`);
    }
  }

  /** A TTS or STT failure: a non-fatal `error` of that kind; the call goes on. */
  #speechError(e: SpeechError): void {
    this.#send(rtvi("error", {
      error: this.#clientText(
        `${e.provider} ${e.kind === "tts_error" ? "TTS" : "STT"} failed: ${e.message}`,
      ),
      fatal: false,
      kind: e.kind,
    }));
  }

  /**
   * Sends one message. A client that lets more than the queued-bytes bound wait
   * unread is cut off; a reply that would take it past the bound, or past the reply
   * byte rate, is refused with an `error-response` instead.
   */
  #send(message: RtviMessage): void {
    const socket = this.#socket;
    if (this.#closed || !socket || this.#cut) return;
    try {
      const frame = writeFrame(message, this.#framing);
      const guard = this.#guard;
      if (guard) {
        const queued = socket.bufferedAmount?.() ?? 0;
        const bytes = typeof frame === "string" ? frame.length : frame.byteLength;
        if (message.type === "server-response") {
          if (!guard.roomToSend(queued, bytes)) {
            return this.#errorResponse(
              message.id,
              `reply of ${bytes} bytes refused: ${queued} bytes wait for the client to read them`,
            );
          }
          guard.replied(bytes);
          this.#lastReplyBytes = bytes;
        }
        if (!guard.roomToSend(queued, 0)) return this.#cutOff(socket, guard.notReading(queued));
      }
      socket.send(frame);
    } catch (e) {
      this.#log(`send failed: ${describe(e)}`);
    }
  }

  /**
   * Why a request is refused before any work: the client leaves too much unread, or
   * the replies of late are past the reply byte rate; undefined when it may be answered.
   */
  #replyRefusal(): string | undefined {
    const guard = this.#guard;
    if (!guard) return undefined;
    const queued = this.#socket?.bufferedAmount?.() ?? 0;
    // The next reply is taken to be as large as the last.
    if (!guard.roomToSend(queued, this.#lastReplyBytes)) {
      return `${queued} bytes wait for the client to read them`;
    }
    if (!guard.mayReply()) return "too many reply bytes asked for of late; ask again later";
    return undefined;
  }

  /** `server-response` (or `error-response` when `error` is set) echoing the request id. */
  #reply(request: RtviMessage, data: { t: string; d: unknown } | undefined, error?: string): void {
    if (error !== undefined) return this.#errorResponse(request.id, error);
    this.#send(rtvi("server-response", data, request.id));
  }

  /** A refused request's answer, unless refusals are past their bound (then: cut off). */
  #errorResponse(id: string | undefined, error: string): void {
    if (id === undefined) return this.#error(error);
    if (this.#guard && !this.#guard.refuse()) return;
    this.#send(rtvi("error-response", { error: this.#clientText(error) }, id));
  }

  /** A refused frame's `error`, unless refusals are past their bound (then: cut off). */
  #error(error: string): void {
    if (this.#guard && !this.#guard.refuse()) return;
    this.#send(rtvi("error", { error: this.#clientText(error), fatal: false }));
  }

  #newGuard(): ConnectionGuard {
    const socket = this.#socket;
    return new ConnectionGuard(
      this.#clock,
      this.#options.limits ?? {},
      (v) => this.#cutOff(socket, v),
    );
  }

  /**
   * A bound of the connection was passed: the client is told (an `error-response` to
   * the request `id` that passed it, else a fatal `error`) and closed.
   */
  #cutOff(socket: SessionSocket | undefined, v: Violation, id?: string): void {
    if (!socket || socket !== this.#socket || this.#closed || this.#cut) return;
    this.#cut = true;
    this.#queue = [];
    this.#log(`closing the connection: ${v.reason}`);
    const last = id !== undefined
      ? rtvi("error-response", { error: v.reason }, id)
      : rtvi("error", { error: v.reason, fatal: true });
    try {
      socket.send(writeFrame(last, this.#framing));
      socket.close(v.code, v.reason);
    } catch { /* already closed */ }
  }

  /** An apply result whose error texts are fit for the client. */
  #cleanResult<T extends { errors: string[] }>(result: T): T {
    return { ...result, errors: result.errors.map((e) => this.#clientText(e)) };
  }

  /** Error text for the client: no path of this machine, and a bounded length. */
  #clientText(text: string): string {
    return clientText(text, this.#options.dataRoot);
  }

  #fault(msg: RtviMessage, e: unknown): void {
    this.#log(`handling ${msg.type} failed: ${(e as Error)?.stack ?? e}`);
    this.#reply(msg, undefined, `Exception processing message: ${describe(e)}`);
  }

  #log(line: string): void {
    this.#options.log?.(line);
  }
}

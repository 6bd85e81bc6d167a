/**
 * One bot-server session: one WebSocket client, one hosted participant. The session
 * speaks RTVI 2.1 to the client and gives the participant a `CallLine` whose acts
 * become RTVI events (speech, key presses, tool calls, the end of the call). It sees
 * only a two-method socket, so it is tested without any network.
 *
 * Tool calls are executed by the client (the harness owns the world) unless a
 * reference-style client loaded a world into this session with
 * `apply_initialization`; then the session runs them on its own Environment.
 *
 * @module
 */
import type {
  CallEvent,
  CallLine,
  CallSetup,
  Clock,
  Participant,
  ParticipantError,
  ToolCallReply,
  ToolSpec,
  Usage,
  Voice,
} from "../bridge/call.ts";
import { RealClock } from "../clock/clock.ts";
import { dbHashOrNull } from "../canonical/hash.ts";
import { isExitText } from "../domains/common.ts";
import type { Db, Domain, Side } from "../domains/domain.ts";
import { getDomain } from "../domains/registry.ts";
import { deliverableResult, Environment } from "../env/environment.ts";
import { toolSpecs } from "../bridge/tool_specs.ts";
import { argumentsJsonSchema, NO_ARGUMENTS } from "../schema/json_schema.ts";
import type { DataRoot } from "../scenario/data_root.ts";
import { type Framing, MAX_FRAME_BYTES, readFrame, writeFrame } from "../protocol/framing.ts";
import {
  ApplyInitializationArgsSchema,
  type ApplyResult,
  ApplySyncDeltaArgsSchema,
  CallEventSchema,
  GetContextHistoryArgsSchema,
  GetScenarioSummaryArgsSchema,
  type HandlerName,
  InitActionArgSchema,
  ResetArgsSchema,
  type ScenarioSummary,
  UpdateSystemPromptArgsSchema,
} from "../protocol/handlers.ts";
import {
  ClientMessageDataSchema,
  ClientReadyDataSchema,
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
import { z } from "zod";

/** All a session needs of its socket. */
export interface SessionSocket {
  send(data: string | Uint8Array<ArrayBuffer>): void;
  close(code?: number, reason?: string): void;
}

/** Makes the hosted participant: `name` is the agent kind (`oracle`, `noop`, ...). */
export type HostedParticipantFactory = (
  name: string,
  setup: CallSetup,
) => Participant | Promise<Participant>;

export interface SessionOptions {
  factory: HostedParticipantFactory;
  /** Which participant this session hosts, and on which side of the call. */
  participant: { name: string; side: Side };
  /** Where `apply_initialization` finds `db_path`; without it, paths are refused. */
  dataRoot?: DataRoot;
  /** Domain lookup (tests inject their own). */
  domains?: (id: string) => Promise<Domain>;
  /** The call clock of the hosted participant (default: the wall clock). */
  clock?: Clock;
  /** How long a tool call waits for the client's result. */
  toolTimeoutMs?: number;
  maxFrameBytes?: number;
  /**
   * Bytes (UTF-8 JSON) the context history may hold; a frame that would take the
   * conversation past it gets an `error-response` and changes nothing.
   */
  maxHistoryBytes?: number;
  /** Bytes (UTF-8 JSON) of `apply_initialization` shared state kept per scenario. */
  maxSharedStateBytes?: number;
  /** Diagnostics (never protocol data). */
  log?: (line: string) => void;
}

/** `about` in `bot-ready`. */
export const SERVER_ABOUT = { library: "callbench", library_version: "0.1.0" } as const;

/** The scenario schema's default "today", for worlds loaded without one. */
const DEFAULT_TODAY = "2024-05-15";
const DEFAULT_TOOL_TIMEOUT_MS = 30_000;
/** Context history kept for `get_context_history` (oldest turns dropped first). */
const MAX_HISTORY = 2_000;
/** Default byte budget of one session's context history. */
export const DEFAULT_MAX_HISTORY_BYTES = 8 * 2 ** 20;
/** Default byte budget of one session's shared state. */
export const DEFAULT_MAX_SHARED_STATE_BYTES = 4 * 2 ** 20;

interface PendingCall {
  /** `remember: false` keeps the reply out of the context history. */
  resolve(reply: ToolCallReply, remember?: boolean): void;
  cancelTimer(): void;
}

type Handler = (d: unknown) => unknown;

export class Session {
  readonly #socket: SessionSocket;
  readonly #options: SessionOptions;
  readonly #clock: Clock;
  #framing: Framing = "json";
  #legacy = false;
  #closed = false;

  /** Frames in arrival order (a Blob must be read before the next frame is handled). */
  #inbox: Promise<void> = Promise.resolve();
  /** Messages handled one at a time, in order; tool results bypass it. */
  #work: Promise<void> = Promise.resolve();

  #side: Side;
  #setup?: CallSetup;
  #participant?: Participant;
  /** Bumped whenever the participant is replaced: an old line goes quiet. */
  #generation = 0;
  #callStarted = false;
  #callEnded = false;

  #env?: Environment;
  /** `apply_initialization` shared state: each key's value and its size in bytes. */
  #sharedState = new Map<string, { value: unknown; bytes: number }>();
  #sharedStateBytes = 0;
  #history: Record<string, unknown>[] = [];
  /** Size of each history entry, in the same order. */
  #historySizes: number[] = [];
  #historyBytes = 0;
  readonly #pending = new Map<string, PendingCall>();
  #nextCallId = 0;

  constructor(socket: SessionSocket, options: SessionOptions) {
    this.#socket = socket;
    this.#options = options;
    this.#clock = options.clock ?? new RealClock();
    this.#side = options.participant.side;
  }

  /** The framing of the last frame received (replies use it). */
  get framing(): Framing {
    return this.#framing;
  }

  /** Tool calls waiting for the client's result. */
  get pendingToolCalls(): number {
    return this.#pending.size;
  }

  /** Handles one frame as received. Never throws; bad frames are answered with errors. */
  receive(data: string | ArrayBufferLike | ArrayBufferView | Blob): void {
    if (this.#closed) return;
    this.#inbox = this.#inbox.then(async () => {
      const frame = data instanceof Blob ? new Uint8Array(await data.arrayBuffer()) : data;
      this.#dispatch(frame);
    }).catch((e) => this.#log(`frame handling failed: ${(e as Error)?.stack ?? e}`));
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

  /** The socket is gone: end the call for the participant and release it. */
  async closed(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#failPending("disconnected", "The client disconnected.");
    await this.#endParticipant("client disconnected");
  }

  /** Closes the socket from the server side (shutdown). */
  async close(code = 1001, reason = "server shutting down"): Promise<void> {
    try {
      this.#socket.close(code, reason);
    } catch { /* already closed */ }
    await this.closed();
  }

  // ---- incoming -----------------------------------------------------------------

  #dispatch(data: string | ArrayBufferLike | ArrayBufferView): void {
    const frame = readFrame(data, this.#options.maxFrameBytes ?? MAX_FRAME_BYTES);
    this.#framing = frame.framing;
    if (!frame.ok) return this.#error(frame.error);
    if ("skipped" in frame) return;
    const parsed = parseMessage(frame.text);
    if (!parsed.ok) {
      return parsed.id !== undefined
        ? this.#errorResponse(parsed.id, parsed.error)
        : this.#error(parsed.error);
    }
    const msg = parsed.message;
    if (!msg) return; // another label: not ours to answer
    if (msg.type === "llm-function-call-result") return this.#onFunctionCallResult(msg);
    this.#work = this.#work.then(() => this.#handle(msg)).catch((e) => this.#fault(msg, e));
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
    this.#send(rtvi("bot-ready", { version, about: SERVER_ABOUT }, msg.id));
  }

  async #onClientMessage(msg: RtviMessage): Promise<void> {
    const data = ClientMessageDataSchema.safeParse(msg.data);
    if (!data.success) return this.#reply(msg, undefined, `Invalid message: ${issues(data.error)}`);
    const { t, d } = data.data;
    const handler = this.#handlers.get(t);
    if (!handler) return this.#reply(msg, undefined, `unknown message type: ${t}`);
    let result: unknown;
    try {
      result = await handler(d ?? {});
    } catch (e) {
      return this.#reply(msg, undefined, describe(e));
    }
    this.#reply(msg, { t, d: result });
  }

  async #onSendText(msg: RtviMessage): Promise<void> {
    const data = SendTextDataSchema.safeParse(msg.data);
    if (!data.success) return this.#reply(msg, undefined, `Invalid message: ${issues(data.error)}`);
    const { content, voice, interrupted } = data.data;
    const entry = { role: "user", content };
    const bytes = jsonBytes(entry);
    if (!this.#historyHasRoom(bytes)) return this.#reply(msg, undefined, this.#historyFull(bytes));
    if (!(await this.#ensureCall(msg))) return;
    this.#remember(entry, bytes);
    this.#deliver({
      type: "speech",
      at: this.#clock.now(),
      text: content,
      ...(voice ? { voice } : {}),
      ...(interrupted ? { interrupted } : {}),
    });
  }

  async #onDtmf(msg: RtviMessage): Promise<void> {
    const data = DtmfDataSchema.safeParse(msg.data);
    if (!data.success) return this.#reply(msg, undefined, `Invalid message: ${issues(data.error)}`);
    const keys = "buttons" in data.data ? data.data.buttons.join("") : data.data.button;
    if (!(await this.#ensureCall(msg))) return;
    this.#deliver({ type: "dtmf", at: this.#clock.now(), keys });
  }

  #onFunctionCallResult(msg: RtviMessage): void {
    const data = FunctionCallResultDataSchema.safeParse(msg.data);
    if (!data.success) return this.#reply(msg, undefined, `Invalid message: ${issues(data.error)}`);
    const pending = this.#pending.get(data.data.tool_call_id);
    if (!pending) {
      return this.#reply(msg, undefined, `unknown tool_call_id: ${data.data.tool_call_id}`);
    }
    this.#pending.delete(data.data.tool_call_id);
    pending.cancelTimer();
    const result = data.data.result;
    const bytes = jsonBytes(result ?? null);
    if (!this.#historyHasRoom(bytes)) {
      const error = this.#historyFull(bytes);
      pending.resolve(errorReply("result_too_large", error), false);
      return this.#reply(msg, undefined, error);
    }
    pending.resolve({ ok: !isErrorResult(result), result });
  }

  // ---- client-message handlers ----------------------------------------------------

  /** By `t`; a Map, so a client's `t` can only name a handler, never a prototype member. */
  readonly #handlers: ReadonlyMap<string, Handler> = new Map<string, Handler>(
    [
      ["reset", (d) => {
        ResetArgsSchema.parse(d);
        return this.#reset();
      }],
      ["update_system_prompt", (d) => this.#updateSystemPrompt(d)],
      ["apply_initialization", async (d) => this.#cleanResult(await this.#applyInitialization(d))],
      ["apply_sync_delta", (d) => this.#cleanResult(this.#applySyncDelta(d))],
      ["get_scenario_summary", (d) => this.#scenarioSummary(d)],
      ["get_context_history", (d) => {
        GetContextHistoryArgsSchema.parse(d);
        // A JSON string literal of the JSON list: the reference bridge evaluates the
        // reply as a Python literal, gets a string, then parses it as JSON.
        return { context: JSON.stringify(JSON.stringify(this.#history)) };
      }],
      ["call_event", (d) => this.#callEvent(d)],
    ] satisfies [HandlerName, Handler][],
  );

  async #reset(): Promise<boolean> {
    if (!this.#setup) return true;
    await this.#startParticipant(this.#setup);
    this.#restartHistory(this.#setup.prompt);
    return true;
  }

  async #updateSystemPrompt(d: unknown): Promise<boolean> {
    const args = UpdateSystemPromptArgsSchema.parse(d);
    if (args.prompt === "") return false;
    const side = args.side ?? this.#side;
    const tools = await this.#toolSpecs(args.tools, args.tool_domain, side);
    // As the reference: a new system prompt starts a new scenario (shared state cleared).
    this.#side = side;
    this.#env = undefined;
    this.#sharedState = new Map();
    this.#sharedStateBytes = 0;
    const setup: CallSetup = {
      side,
      scenario: args.scenario ?? "",
      domain: args.tool_domain,
      prompt: args.prompt,
      tools,
      ...(args.userdata ? { userdata: args.userdata } : {}),
      seed: args.seed ?? "0",
      ...(args.scenario_sha256 ? { scenario_sha256: args.scenario_sha256 } : {}),
    };
    await this.#startParticipant(setup);
    this.#restartHistory(args.prompt);
    return true;
  }

  async #applyInitialization(d: unknown): Promise<ApplyResult> {
    const args = ApplyInitializationArgsSchema.parse(d);
    let init: unknown;
    try {
      init = JSON.parse(args.shared_state_init);
    } catch (e) {
      return failure(`shared_state_init is not valid JSON: ${(e as Error).message}`);
    }
    if (typeof init !== "object" || init === null || Array.isArray(init)) {
      return failure("shared_state_init must be a JSON object");
    }
    const fields = new Map(Object.entries(init));
    const inlineDb = fields.get("db");
    const dbPath = fields.get("db_path");
    fields.delete("db");
    fields.delete("db_path");
    this.#mergeSharedState(fields);
    if (!Array.isArray(args.actions)) return failure("actions must be a list");
    const actions = [];
    for (const [i, a] of args.actions.entries()) {
      const parsed = InitActionArgSchema.safeParse(a);
      if (!parsed.success) return failure(`actions[${i}]: ${issues(parsed.error)}`);
      // The record's side is ignored bot-side: a bot's actions run on its own database.
      actions.push({
        side: this.#side,
        func_name: parsed.data.func_name,
        arguments: parsed.data.arguments,
      });
    }

    let db: Db | undefined;
    if (inlineDb !== undefined) {
      if (typeof inlineDb !== "object" || inlineDb === null || Array.isArray(inlineDb)) {
        return failure("db must be a JSON object");
      }
      db = inlineDb as Db;
    } else if (dbPath !== undefined) {
      if (typeof dbPath !== "string") return failure("db_path must be a string");
      if (!this.#options.dataRoot) return failure("this server has no data root for db_path");
      try {
        db = this.#options.dataRoot.db(dbPath);
      } catch (e) {
        return failure(`db_path ${JSON.stringify(dbPath)}: ${describe(e, false)}`);
      }
    }
    if (db !== undefined) {
      const domainId = args.domain !== "default" ? args.domain : this.#setup?.domain ?? args.domain;
      let domain: Domain;
      try {
        domain = await this.#domain(domainId);
      } catch (e) {
        return failure(describe(e, false));
      }
      const today = fields.get("today");
      const seed = this.#setup?.seed ?? "0";
      const world = this.#side === "user" ? { db: {}, user_db: db } : { db };
      this.#env = new Environment(domain, world, {
        today: typeof today === "string" ? today : DEFAULT_TODAY,
        seed,
      });
    }
    if (actions.length === 0) return { success: true, errors: [] };
    const env = this.#env;
    if (!env) return failure("initialization actions need a db");
    // Each name is checked as an own key of the domain's functions before it runs, so
    // `constructor` or `__proto__` from a client is an unknown function, not a member.
    const known = env.domain.initFunctions?.[this.#side] ?? {};
    const errors: string[] = [];
    for (const action of actions) {
      if (!Object.hasOwn(known, action.func_name)) {
        errors.push(`${action.func_name}: unknown ${this.#side} initialization function`);
        continue;
      }
      errors.push(...env.initialize([action]).errors);
    }
    return { success: errors.length === 0, errors };
  }

  /** Merges shared state keys; past the byte budget nothing changes and the request fails. */
  #mergeSharedState(fields: ReadonlyMap<string, unknown>): void {
    const budget = this.#options.maxSharedStateBytes ?? DEFAULT_MAX_SHARED_STATE_BYTES;
    const sized = [...fields].map(([key, value]) => ({
      key,
      value,
      bytes: jsonBytes({ [key]: value }),
    }));
    let total = this.#sharedStateBytes;
    for (const { key, bytes } of sized) total += bytes - (this.#sharedState.get(key)?.bytes ?? 0);
    if (total > budget) {
      throw new BudgetError(
        `shared state would hold ${total} bytes, over this session's budget of ${budget}; ` +
          "update_system_prompt starts a new scenario with empty shared state",
      );
    }
    for (const { key, value, bytes } of sized) this.#sharedState.set(key, { value, bytes });
    this.#sharedStateBytes = total;
  }

  #applySyncDelta(d: unknown): ApplyResult {
    const args = ApplySyncDeltaArgsSchema.parse(d);
    const delta = args.delta;
    if (typeof delta !== "object" || delta === null || Array.isArray(delta)) {
      return failure("delta must be an object");
    }
    if (!this.#env) return failure("no db: send apply_initialization first");
    return this.#env.applyDelta(this.#side, delta as Record<string, unknown>);
  }

  #scenarioSummary(d: unknown): ScenarioSummary {
    const { include_db } = GetScenarioSummaryArgsSchema.parse(d);
    try {
      const db = this.#env ? (this.#side === "user" ? this.#env.userDb : this.#env.db) : undefined;
      const present = db !== undefined && Object.keys(db).length > 0;
      const summary: ScenarioSummary = {
        actions: this.#env ? [...this.#env.actions] : [],
        db_hash: present ? dbHashOrNull(db) : null,
      };
      if (include_db) summary.db = present ? db : null;
      return summary;
    } catch (e) {
      this.#log(`get_scenario_summary failed: ${describe(e)}`);
      return { actions: [], db_hash: null };
    }
  }

  async #callEvent(d: unknown): Promise<boolean> {
    const event = CallEventSchema.parse(d);
    if (!(await this.#ensureParticipant())) throw new Error("no participant could be started");
    if (event.type === "call_start") this.#callStarted = true;
    this.#deliver({ ...event, at: this.#clock.now() });
    return true;
  }

  // ---- the hosted participant ------------------------------------------------------

  /** Starts (or restarts) the participant for `setup`; the old one is closed first. */
  async #startParticipant(setup: CallSetup): Promise<void> {
    await this.#endParticipant("replaced");
    const generation = ++this.#generation;
    this.#setup = setup;
    this.#callStarted = false;
    this.#callEnded = false;
    const participant = await this.#options.factory(this.#options.participant.name, setup);
    this.#participant = participant;
    await participant.start(this.#line(generation), setup);
  }

  async #endParticipant(reason: string): Promise<void> {
    const participant = this.#participant;
    if (!participant) return;
    this.#participant = undefined;
    this.#generation++;
    if (this.#callStarted && !this.#callEnded) {
      this.#callEnded = true;
      const by = this.#side === "agent" ? "user" : "agent";
      const logged = (e: unknown) => this.#log(`participant hangup: ${describe(e)}`);
      safely(() => {
        const returned: unknown = participant.onEvent({
          type: "hangup",
          at: this.#clock.now(),
          by,
          reason,
        });
        if (isThenable(returned)) returned.then(undefined, logged);
      }, logged);
    }
    try {
      await participant.close();
    } catch (e) {
      this.#log(`participant close failed: ${describe(e)}`);
    }
  }

  /** A participant for a client that never sent a system prompt (e.g. a plain RTVI client). */
  async #ensureParticipant(): Promise<boolean> {
    if (this.#participant) return true;
    const setup: CallSetup = this.#setup ?? {
      side: this.#side,
      scenario: "",
      domain: "default",
      prompt: "",
      tools: [],
      seed: "0",
    };
    await this.#startParticipant(setup);
    return this.#participant !== undefined;
  }

  /** Makes sure the call has started before the participant hears the far end. */
  async #ensureCall(msg: RtviMessage): Promise<boolean> {
    try {
      if (!(await this.#ensureParticipant())) return false;
    } catch (e) {
      this.#reply(msg, undefined, describe(e));
      return false;
    }
    if (!this.#callStarted) {
      this.#callStarted = true;
      this.#deliver({ type: "call_start", at: this.#clock.now(), you_speak_first: false });
    }
    return true;
  }

  #deliver(event: CallEvent): void {
    const participant = this.#participant;
    if (!participant || this.#callEnded) return;
    if (event.type === "hangup") this.#callEnded = true;
    const generation = this.#generation;
    const failed = (e: unknown) => this.#participantFailed(generation, e);
    try {
      // `onEvent` is typed void, but an async one returns a promise: its rejection
      // fails this session's call instead of escaping the process.
      const returned: unknown = participant.onEvent(event);
      if (isThenable(returned)) returned.then(undefined, failed);
    } catch (e) {
      failed(e);
    }
  }

  /**
   * The hosted participant (or the session's own work for it) threw: this session's
   * call ends with a fatal `error`, the participant is released, and the socket stays
   * open for a new scenario. Nothing reaches the process.
   */
  #participantFailed(generation: number, e: unknown): void {
    this.#log(`hosted participant failed: ${describe(e)}`);
    if (generation !== this.#generation || this.#closed) return;
    const kind = this.#side === "user" ? "user_error" : "protocol_error";
    if (!this.#callEnded) {
      this.#callEnded = true;
      this.#send(rtvi("error", {
        error: this.#clientText(`the hosted participant failed: ${describe(e)}`),
        fatal: true,
        kind,
      }));
    }
    this.#work = this.#work.then(() => this.#endParticipant("participant failed")).catch((e) =>
      this.#log(`releasing a failed participant: ${describe(e)}`)
    );
  }

  /** The line of one participant generation: it goes quiet once replaced or ended. */
  #line(generation: number): CallLine {
    const live = () => generation === this.#generation && !this.#closed && !this.#callEnded;
    const line: CallLine = {
      side: this.#side,
      clock: this.#clock,
      say: (text: string, options?: { voice?: Voice; ttftMs?: number }) => {
        if (live()) this.#say(text, options?.voice, options?.ttftMs);
      },
      stopSpeaking: () => {
        if (live()) this.#send(rtvi("bot-interrupted"));
      },
      press: (keys: string) => {
        if (!live()) return;
        this.#remoteToolCall("send_dtmf", { keys }).catch((e) =>
          this.#participantFailed(generation, e)
        );
      },
      beep: () => {
        if (live()) this.#send(rtvi("server-message", { type: "beep" }));
      },
      callTool: async (name: string, args: unknown): Promise<ToolCallReply> => {
        if (!live()) return errorReply("call_ended", "The call has ended.");
        try {
          return await this.#callTool(name, args);
        } catch (e) {
          // The session's own fault (a broken world): it fails this call, and the
          // participant gets a reply rather than a rejection it may not handle.
          this.#participantFailed(generation, e);
          return errorReply("call_ended", "The call has ended.");
        }
      },
      hangUp: (reason?: string) => {
        if (!live()) return;
        this.#callEnded = true;
        this.#send(rtvi("server-message", { type: "end", reason: reason ?? "hangup" }));
      },
      usage: (u: Usage) => {
        if (!live()) return;
        const tokens = {
          prompt_tokens: u.prompt_tokens,
          completion_tokens: u.completion_tokens,
          total_tokens: u.prompt_tokens + u.completion_tokens,
        };
        this.#send(rtvi("metrics", { tokens: [tokens] }));
      },
      trace: (entry: Record<string, unknown>) => {
        if (live()) this.#send(rtvi("server-message", { type: "trace", entry }));
      },
      fail: (error: ParticipantError) => {
        if (!live()) return;
        this.#callEnded = true;
        const text = this.#clientText(error.message);
        this.#send(rtvi("error", { error: text, fatal: true, kind: error.kind }));
      },
    };
    return line;
  }

  /** An utterance: started, its text (2.x `bot-output` and `bot-tts-text`), stopped. */
  #say(text: string, voice?: Voice, ttftMs?: number): void {
    if (ttftMs !== undefined) {
      this.#send(rtvi("metrics", { ttfb: [{ processor: "llm", value: ttftMs / 1000 }] }));
    }
    this.#send(rtvi("bot-started-speaking"));
    const output = this.#legacy ? { text, spoken: true } : {
      text,
      spoken: true,
      will_be_spoken: true,
      aggregated_by: "sentence",
      spoken_status: "completed",
    };
    this.#send(rtvi("bot-output", { ...output, ...(voice ? { voice } : {}) }));
    this.#send(rtvi("bot-tts-text", { text }));
    this.#send(rtvi("bot-stopped-speaking"));
    this.#remember({ role: "assistant", content: text });
  }

  #callTool(name: string, args: unknown): Promise<ToolCallReply> {
    const env = this.#env;
    if (!env) return this.#remoteToolCall(name, args);
    const r = env.call(this.#side, name, args);
    const result = deliverableResult(r.result);
    this.#remember({ role: "tool", name: r.tool, arguments: args, content: result });
    if (r.record) {
      const notice = { type: "action-applied", action: r.record, tool_domain: env.domain.id };
      this.#send(rtvi("server-message", notice));
    }
    if (r.exit) {
      const exit = isExitText(r.exit) ? r.exit : `<exit>${r.exit}</exit>`;
      // After the result is delivered, as the reference's post-delivery hook.
      this.#clock.timer(0, () => {
        if (!this.#closed) this.#send(rtvi("server-message", { text: exit }));
      });
    }
    return Promise.resolve({ ok: r.ok, result });
  }

  /** Asks the client to run a tool: `llm-function-call-in-progress`, awaiting the result. */
  #remoteToolCall(name: string, args: unknown): Promise<ToolCallReply> {
    const id = `call_${++this.#nextCallId}`;
    const timeoutMs = this.#options.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
    return new Promise<ToolCallReply>((resolve) => {
      const cancelTimer = this.#clock.timer(timeoutMs, () => {
        if (!this.#pending.delete(id)) return;
        resolve(errorReply("timeout", `No result for ${name} within ${timeoutMs} ms.`));
      });
      this.#pending.set(id, {
        cancelTimer,
        resolve: (reply, remember = true) => {
          if (remember) {
            this.#remember({ role: "tool", name, arguments: args, content: reply.result });
          }
          resolve(reply);
        },
      });
      this.#send(rtvi("llm-function-call-in-progress", {
        tool_call_id: id,
        function_name: name,
        arguments: args ?? {},
      }));
    });
  }

  #failPending(errorType: string, message: string): void {
    for (const [id, pending] of this.#pending) {
      this.#pending.delete(id);
      pending.cancelTimer();
      pending.resolve(errorReply(errorType, message));
    }
  }

  async #toolSpecs(json: string, domainId: string, side: Side): Promise<ToolSpec[]> {
    let value: unknown;
    try {
      value = JSON.parse(json);
    } catch (e) {
      throw new Error(`tools is not valid JSON: ${(e as Error).message}`);
    }
    if (Array.isArray(value)) return z.array(ToolSpecSchema).parse(value);
    if (typeof value !== "object" || value === null) {
      throw new Error("tools must be a JSON object or list");
    }
    const names = Object.keys(value);
    if (names.length === 0) return [];
    // Reference form `{toolName: ctorKwargs}`: the specs come from the domain.
    const domain = await this.#domain(domainId);
    const specs = toolSpecs(domain, side, names);
    const missing = names.filter((n) =>
      !domain.tools.some((t) => t.side === side && (t.name === n || t.aliases?.includes(n)))
    );
    if (missing.length > 0) {
      throw new Error(`unknown ${side} tools in domain ${domainId}: ${missing.join(", ")}`);
    }
    return specs;
  }

  /**
   * The domain a client named. Whatever the lookup returns must be a domain with that
   * very id: a name such as `constructor` can never stand in for one.
   */
  async #domain(id: string): Promise<Domain> {
    const domain: unknown = await (this.#options.domains ?? getDomain)(id);
    if (!isDomain(domain) || domain.id !== id) throw new Error(`unknown domain "${id}"`);
    return domain;
  }

  // ---- outgoing ------------------------------------------------------------------

  #send(message: RtviMessage): void {
    if (this.#closed) return;
    try {
      this.#socket.send(writeFrame(message, this.#framing));
    } catch (e) {
      this.#log(`send failed: ${describe(e)}`);
    }
  }

  /** `server-response` (or `error-response` when `error` is set) echoing the request id. */
  #reply(request: RtviMessage, data: { t: string; d: unknown } | undefined, error?: string): void {
    if (error !== undefined) return this.#errorResponse(request.id, error);
    this.#send(rtvi("server-response", data, request.id));
  }

  #errorResponse(id: string | undefined, error: string): void {
    if (id === undefined) return this.#error(error);
    this.#send(rtvi("error-response", { error: this.#clientText(error) }, id));
  }

  #error(error: string): void {
    this.#send(rtvi("error", { error: this.#clientText(error), fatal: false }));
  }

  /** An apply result whose error texts are fit for the client. */
  #cleanResult(result: ApplyResult): ApplyResult {
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

  /** A new conversation: just the system prompt. */
  #restartHistory(prompt: string): void {
    const entry = { role: "system", content: prompt };
    this.#history = [entry];
    this.#historySizes = [jsonBytes(entry)];
    this.#historyBytes = this.#historySizes[0]!;
  }

  #historyBudget(): number {
    return this.#options.maxHistoryBytes ?? DEFAULT_MAX_HISTORY_BYTES;
  }

  /** Whether a client's entry of `bytes` fits the history budget. */
  #historyHasRoom(bytes: number): boolean {
    return this.#historyBytes + bytes <= this.#historyBudget();
  }

  #historyFull(bytes: number): string {
    return `the conversation would hold ${this.#historyBytes + bytes} bytes, over this ` +
      `session's history budget of ${this.#historyBudget()}; reset or update_system_prompt ` +
      "starts a new one";
  }

  /**
   * Appends to the context history. Entries the client sent were checked against the
   * budget first; the session's own (speech, tool results) make room by dropping the
   * oldest turns, and one too large for the budget on its own is kept as a marker.
   */
  #remember(entry: Record<string, unknown>, bytes = jsonBytes(entry)): void {
    const budget = this.#historyBudget();
    if (bytes > budget / 2) {
      entry = { role: entry.role, content: `[${bytes} bytes omitted: over the history budget]` };
      bytes = jsonBytes(entry);
    }
    this.#history.push(entry);
    this.#historySizes.push(bytes);
    this.#historyBytes += bytes;
    while (
      this.#history.length > 2 &&
      (this.#history.length > MAX_HISTORY || this.#historyBytes > budget)
    ) {
      // The first entry is the system prompt: the oldest turn after it goes.
      this.#history.splice(1, 1);
      this.#historyBytes -= this.#historySizes.splice(1, 1)[0]!;
    }
  }

  #log(line: string): void {
    this.#options.log?.(line);
  }
}

const ToolSpecSchema: z.ZodType<ToolSpec> = z.object({
  name: z.string().min(1),
  description: z.string().default(""),
  parameters: z.record(z.string(), z.unknown()).default(() => ({
    ...argumentsJsonSchema(NO_ARGUMENTS),
  })),
});

function failure(error: string): ApplyResult {
  return { success: false, errors: [error] };
}

function errorReply(errorType: string, message: string): ToolCallReply {
  return { ok: false, result: { status: "error", error_type: errorType, message } };
}

/** A tool result that reports an error (the reference's `{status:"error"}` or `{error}`). */
function isErrorResult(result: unknown): boolean {
  if (typeof result !== "object" || result === null || Array.isArray(result)) return false;
  const r = result as Record<string, unknown>;
  return r.status === "error" || (r.error !== undefined && r.status === undefined);
}

/** `<ErrorName>: <message>`, as the reference reports handler exceptions. */
function describe(e: unknown, withName = true): string {
  if (e instanceof z.ZodError) return `Invalid arguments: ${issues(e)}`;
  if (e instanceof Error) return withName ? `${e.name}: ${e.message}` : e.message;
  return String(e);
}

/** Refused because a per-session byte budget would be exceeded (an `error-response`). */
class BudgetError extends Error {
  override readonly name = "BudgetError";
}

const utf8 = new TextEncoder();

/** Size of `value` as UTF-8 JSON. */
function jsonBytes(value: unknown): number {
  return utf8.encode(JSON.stringify(value) ?? "null").byteLength;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === "object" && value !== null &&
    typeof (value as { then?: unknown }).then === "function";
}

function isDomain(value: unknown): value is Domain {
  return typeof value === "object" && value !== null &&
    typeof (value as Domain).id === "string" && Array.isArray((value as Domain).tools);
}

function safely(fn: () => void, onError?: (e: unknown) => void): void {
  try {
    fn();
  } catch (e) {
    onError?.(e);
  }
}

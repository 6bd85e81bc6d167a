/**
 * A participant on the far side of a WebSocket: any bot speaking RTVI 2.1 (our own
 * `serve`, a pipecat bot, the reference's bots). The harness still owns the world:
 * the bot asks for tool calls (`llm-function-call-in-progress`) and gets each result
 * back (`llm-function-call-result`). Works for either side of the call
 * (`--agent ws://...` or `--user ws://...`).
 *
 * What the bot is told is what a real callee would get: its prompt, tools, domain
 * and the scenario's name; never expected state, reference actions or flow nodes.
 *
 * The socket is the `ws` package's client, not Deno's built-in `WebSocket`: Deno's
 * client leaves Nagle's algorithm on (`TCP_NODELAY` 0) and writes a frame's header and
 * payload separately, so every frame between about 1.4 KB and 64 KB (tool results,
 * `update_system_prompt`) waits out the peer's delayed ACK, about 40 ms. `ws` sets
 * no-delay on its sockets. It reads `WS_NO_BUFFER_UTIL` and `WS_NO_UTF_8_VALIDATE`
 * when loaded, so every task that connects allows those two variables; it is loaded
 * on the first connection, so commands that never connect do not pay for it.
 *
 * Everything received is bounded before it is looked at (`../protocol/limits.ts`):
 * a frame over the frame cap, or a message nested deeper than 64 levels or larger
 * than the size cap, fails the trial with `protocol_error`.
 *
 * @module
 */
import {
  type CallEvent,
  type CallLine,
  type CallSetup,
  isParticipantErrorKind,
  type Participant,
  ParticipantError,
  type ParticipantErrorKind,
  type ParticipantInfo,
  type SelfWorldReport,
  type SelfWorldSetup,
  type Voice,
} from "../bridge/call.ts";
import { z } from "zod";
import type { Side } from "../domains/domain.ts";
import { type Framing, MAX_FRAME_BYTES, readFrame, writeFrame } from "../protocol/framing.ts";
import { checkValueLimits } from "../protocol/limits.ts";
import {
  BotOutputDataSchema,
  BotReadyDataSchema,
  ErrorDataSchema,
  ErrorResponseDataSchema,
  FunctionCallDataSchema,
  FunctionCallInProgressDataSchema,
  MetricsDataSchema,
  parseMessage,
  PROTOCOL_VERSION,
  rtvi,
  type RtviMessage,
  ServerMessageDataSchema,
  ServerResponseDataSchema,
  TextDataSchema,
} from "../protocol/messages.ts";

export interface RemoteParticipantOptions {
  /** `ws://HOST:PORT/PATH`; `?framing=protobuf` selects binary frames. */
  url: string;
  /** The side this participant plays (for messages; the setup's side is sent). */
  side?: Side;
  /** Overrides `?framing=` in the URL (default JSON). */
  framing?: Framing;
  /** Sent as `?token=` (what our server and browser clients use; no header needed). */
  token?: string;
  /**
   * Connection attempts before `agent_unreachable` (default 3). An HTTP 4xx answer to
   * the upgrade is not retried (401/403: `agent_unauthorized`), and once a URL has
   * failed every attempt, later trials try it once until it answers again.
   */
  connectAttempts?: number;
  /** Delay before the second attempt, doubling each time (default 250 ms). */
  retryDelayMs?: number;
  /** How long one attempt may take to open the socket (default 5000 ms). */
  connectTimeoutMs?: number;
  /** How long to wait for each reply (default 15000 ms). */
  replyTimeoutMs?: number;
  /**
   * How long the start waits for the reply to `update_system_prompt` before the call
   * starts without it (default 1000 ms). The reply is optional: silence is no failure,
   * and a refusal that comes later still fails the trial.
   */
  promptReplyWaitMs?: number;
  /** Text sent as `send-text` when the call starts: `"Hello"` kicks reference-style bots. */
  kick?: string;
  /** `specs` sends tools as a list of specs; `names` as the reference's `{name: {}}`. */
  toolsFormat?: "specs" | "names";
  maxFrameBytes?: number;
  /** Opens the socket (tests; default the `ws` package's client). */
  connect?: (url: string, maxPayload: number) => ClientSocket | Promise<ClientSocket>;
}

/**
 * What the participant uses of a client WebSocket: the WHATWG interface, which both
 * the `ws` package's client and Deno's built-in one have.
 */
export interface ClientSocket {
  readonly readyState: number;
  binaryType: string;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number; reason: string }) => void) | null;
  onerror: ((event: { message?: string }) => void) | null;
  send(data: string | Uint8Array<ArrayBuffer>): void;
  close(code?: number, reason?: string): void;
}

const OPEN = 1;
const CLOSED = 3;

const CLIENT_ABOUT = { library: "callbench", library_version: "0.1.0" } as const;
const DEFAULT_ATTEMPTS = 3;
const DEFAULT_RETRY_MS = 250;
const DEFAULT_CONNECT_TIMEOUT_MS = 5000;
const DEFAULT_REPLY_TIMEOUT_MS = 15_000;
const DEFAULT_PROMPT_REPLY_WAIT_MS = 1000;

/**
 * URLs that failed every connection attempt: each later trial tries them once (no
 * back-off) until one connects, so an agent that is down costs a run one back-off,
 * not one per trial.
 */
const _unreachable = new Set<string>();

/** Why one connection attempt failed; `status` is the HTTP answer to the upgrade. */
interface AttemptFailure {
  error: string;
  status?: number;
}
/** How long `close()` waits for the closing handshake. */
const CLOSE_WAIT_MS = 2000;

interface PendingRequest {
  resolve(message: RtviMessage): void;
  reject(error: ParticipantError): void;
}

/**
 * Fragments that arrive without `bot-started-speaking`/`bot-stopped-speaking` around
 * them, less than this apart (on the line's clock), are one turn: a pipecat bot
 * streaming sentence by sentence pauses far less between sentences than between
 * turns, where the caller has to answer.
 */
export const FRAGMENT_GAP_MS = 700;

/**
 * One spoken turn being assembled. Its text comes from one source, the first that
 * has any: `bot-output` (by segment), `bot-tts-text` (words as spoken, the
 * reference's transcript source), `bot-llm-text` (streamed tokens, for a bot that
 * has no TTS).
 */
interface Segment {
  outputs: Map<string | number, string>;
  tts: string[];
  llm: string[];
  voice?: Voice;
  /** Opened by `bot-started-speaking`: it ends at `bot-stopped-speaking`. */
  bracketed: boolean;
}

const newSegment = (bracketed: boolean): Segment => ({
  outputs: new Map(),
  tts: [],
  llm: [],
  bracketed,
});

export class RemoteParticipant implements Participant {
  readonly info: ParticipantInfo;
  readonly #options: RemoteParticipantOptions;
  readonly #url: string;
  readonly #framing: Framing;
  readonly #side: Side;
  #line?: CallLine;
  #ws?: ClientSocket;
  #botVersion = PROTOCOL_VERSION;
  #nextId = 0;
  #readyId?: string;
  readonly #requests = new Map<string, PendingRequest>();
  #segment?: Segment;
  /** Cancels the gap timer of an unbracketed segment. */
  #cancelGap: () => void = () => {};
  /** The bot brackets its speech or speaks through TTS: LLM text alone is no turn. */
  #speaksAloud = false;
  #ttftMs?: number;
  /** `--agent-world self`: the bot owns its world. */
  #selfWorld?: SelfWorldSetup;
  /** `action-applied` records the bot announced (self-owned world). */
  readonly #applied: Record<string, unknown>[] = [];
  /** The call is over (hangup heard, or the bot ended it): a closed socket is no failure. */
  #ended = false;
  #closing = false;
  #failed = false;
  #socketClosed?: Promise<void>;

  constructor(options: RemoteParticipantOptions) {
    this.#options = options;
    const url = new URL(options.url);
    const framingParam = url.searchParams.get("framing");
    this.#framing = options.framing ?? (framingParam === "protobuf" ? "protobuf" : "json");
    if (options.token !== undefined) url.searchParams.set("token", options.token);
    this.#url = url.toString();
    this.#side = options.side ?? "agent";
    const shown = new URL(options.url);
    shown.searchParams.delete("token");
    this.info = { kind: "remote", url: shown.toString(), settings: { framing: this.#framing } };
  }

  async start(line: CallLine, setup: CallSetup): Promise<void> {
    this.#line = line;
    this.#ws = await this.#connect();
    this.#readyId = this.#id("client_ready");
    const ready = await this.#request(
      rtvi("client-ready", { version: PROTOCOL_VERSION, about: CLIENT_ABOUT }, this.#readyId),
      "bot-ready",
    );
    const about = BotReadyDataSchema.safeParse(ready.data);
    if (about.success) this.#botVersion = about.data.version;
    if (setup.agent_world) return this.#configureSelfWorld(setup, setup.agent_world);
    const tools = this.#options.toolsFormat === "names"
      ? Object.fromEntries(setup.tools.map((t) => [t.name, {}]))
      : setup.tools;
    // The reply is optional, as the reference runner treats it: the call starts once
    // the bot accepts, or after a short wait without an answer (silence is no
    // refusal). A refusal, whenever it comes, fails the trial with the bot's words.
    const promptMessage = rtvi("client-message", {
      t: "update_system_prompt",
      d: {
        prompt: setup.prompt,
        tools: JSON.stringify(tools),
        add_suffix: false,
        tool_domain: setup.domain,
        scenario: setup.scenario,
        side: setup.side,
        seed: setup.seed,
        ...(setup.userdata ? { userdata: setup.userdata } : {}),
        ...(setup.scenario_sha256 ? { scenario_sha256: setup.scenario_sha256 } : {}),
      },
    }, this.#id("update_prompt"));
    const refusal = (e: ParticipantError) =>
      // A served participant that refuses the scenario names its own data root; name ours.
      setup.data_root !== undefined && e.kind === "protocol_error"
        ? new ParticipantError(e.kind, `${e.message} (this run's data root: ${setup.data_root})`)
        : e;
    let inStart = true;
    let cancelWait = () => {};
    await new Promise<void>((resolve, reject) => {
      cancelWait = this.#line!.clock.timer(this.#promptReplyWaitMs(), resolve);
      this.#request(promptMessage, "server-response", null).then((reply) => {
        const accepted = ServerResponseDataSchema.safeParse(reply.data);
        if (accepted.success && accepted.data.d === false) {
          throw new ParticipantError(
            "protocol_error",
            `${this.#who()} refused update_system_prompt (reply ${JSON.stringify(reply.data)})`,
          );
        }
        resolve();
      }).catch((e: ParticipantError) => {
        // A closed socket after the start is reported by the close handler.
        if (!inStart && e.kind === "agent_disconnected") return;
        if (inStart) reject(refusal(e));
        else this.#fail(refusal(e));
      });
    }).finally(() => {
      inStart = false;
      cancelWait();
    });
  }

  /**
   * `--agent-world self`: configures a bot that owns its world as the reference
   * runner does (reference-harness.md §1.4): `reset`, `update_system_prompt` with the
   * reference's tools object (not awaited), `apply_initialization` (awaited: a
   * refusal or `success:false` fails the setup), and for telecom `apply_sync_delta`.
   * The bot runs its own tools; its final state is pulled by `worldReport`.
   */
  async #configureSelfWorld(setup: CallSetup, world: SelfWorldSetup): Promise<void> {
    this.#selfWorld = world;
    this.#send(rtvi("client-message", { t: "reset", d: {} }, this.#id("reset")));
    this.#send(rtvi("client-message", {
      t: "update_system_prompt",
      d: {
        prompt: setup.prompt,
        tools: JSON.stringify(world.tools),
        add_suffix: false,
        tool_domain: setup.domain,
      },
    }, this.#id("update_prompt")));
    const init = await this.#request(
      rtvi("client-message", {
        t: "apply_initialization",
        d: {
          domain: setup.domain,
          shared_state_init: JSON.stringify(world.shared_state_init),
          actions: world.actions,
        },
      }, this.#id("apply_init_agent")),
      "server-response",
    );
    this.#checkSuccess("apply_initialization", init);
    if (world.sync_delta && Object.keys(world.sync_delta).length > 0) {
      const sync = await this.#request(
        rtvi("client-message", {
          t: "apply_sync_delta",
          d: { domain: setup.domain, delta: world.sync_delta },
        }, this.#id("apply_sync_delta_agent")),
        "server-response",
      );
      this.#checkSuccess("apply_sync_delta", sync);
    }
  }

  /** A `{success, errors}` reply that says no fails the setup. */
  #checkSuccess(what: string, reply: RtviMessage): void {
    const d = ServerResponseDataSchema.safeParse(reply.data);
    const result = d.success ? d.data.d as { success?: unknown; errors?: unknown } : undefined;
    if (result?.success === true) return;
    throw new ParticipantError(
      "protocol_error",
      `${this.#who()} could not ${what}: ${JSON.stringify(result?.errors ?? reply.data)}`,
    );
  }

  /**
   * The bot's own account of its world after the call (`get_context_history`, then
   * `get_scenario_summary`), each waited for as the reference does; a bot that does
   * not answer reports nothing (`db_hash: null`).
   */
  async worldReport(): Promise<SelfWorldReport> {
    const pull = async (t: string, d: Record<string, unknown>): Promise<unknown> => {
      if (this.#ws?.readyState !== OPEN) return undefined;
      try {
        const reply = await this.#request(
          rtvi("client-message", { t, d }, this.#id(t)),
          "server-response",
        );
        const parsed = ServerResponseDataSchema.safeParse(reply.data);
        return parsed.success ? parsed.data.d : undefined;
      } catch (e) {
        this.#line?.trace({ type: "pull_failed", request: t, error: (e as Error).message });
        return undefined;
      }
    };
    const history = await pull("get_context_history", {});
    const summary = await pull("get_scenario_summary", {
      include_db: this.#selfWorld?.include_db ?? false,
    });
    const parsed = SummarySchema.safeParse(summary);
    const context = (history as { context?: unknown } | undefined)?.context;
    return {
      db_hash: parsed.success ? parsed.data.db_hash ?? null : null,
      ...(parsed.success && parsed.data.db !== undefined ? { db: parsed.data.db } : {}),
      // The bot's own records, or what it announced as action-applied meanwhile.
      actions: parsed.success && parsed.data.actions ? parsed.data.actions : this.#applied,
      ...(context !== undefined ? { context } : {}),
    };
  }

  /** How long `start` waits for the reply to `update_system_prompt` before going on. */
  #promptReplyWaitMs(): number {
    return this.#options.promptReplyWaitMs ?? DEFAULT_PROMPT_REPLY_WAIT_MS;
  }

  onEvent(event: CallEvent): void {
    switch (event.type) {
      case "speech":
        this.#send(rtvi("send-text", {
          content: event.text,
          options: { run_immediately: true, audio_response: true },
          ...(event.voice ? { voice: event.voice } : {}),
          ...(event.interrupted ? { interrupted: true } : {}),
        }, this.#id("send_text")));
        return;
      case "dtmf":
        this.#sendKeys(event.keys);
        return;
      case "hangup":
        this.#ended = true;
        this.#callEvent(event);
        return;
      default: {
        this.#callEvent(event);
        // A reference-style bot waits for the runner's "Hello" before it greets.
        const kick = this.#options.kick ?? (this.#selfWorld ? "Hello" : undefined);
        if (event.type === "call_start" && kick !== undefined) {
          const content = kick;
          this.#send(rtvi("send-text", {
            content,
            options: { run_immediately: true, audio_response: true },
          }, this.#id("send_text")));
        }
      }
    }
  }

  /** Our `call_event` notice; a reference-style bot (self-owned world) knows none. */
  #callEvent(event: CallEvent): void {
    if (this.#selfWorld) return;
    this.#send(rtvi("client-message", { t: "call_event", d: event }, this.#id("call_event")));
  }

  async close(): Promise<void> {
    this.#closing = true;
    this.#cancelGap();
    this.#rejectAll(new ParticipantError("agent_disconnected", "closed"));
    const ws = this.#ws;
    if (!ws || ws.readyState === CLOSED) return;
    if (ws.readyState === OPEN) {
      this.#send(rtvi("disconnect-bot", {}, this.#id("disconnect")));
    }
    try {
      ws.close(1000, "call over");
    } catch { /* already closing */ }
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      this.#socketClosed,
      new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS))),
    ]);
    clearTimeout(timer);
  }

  // ---- connection ----------------------------------------------------------------

  async #connect(): Promise<ClientSocket> {
    const known = _unreachable.has(this.#url);
    const attempts = known ? 1 : Math.max(1, this.#options.connectAttempts ?? DEFAULT_ATTEMPTS);
    let delay = this.#options.retryDelayMs ?? DEFAULT_RETRY_MS;
    let last: AttemptFailure = { error: "" };
    for (let attempt = 1; attempt <= attempts; attempt++) {
      if (attempt > 1) {
        await this.#line!.clock.sleep(delay);
        delay *= 2;
      }
      const result = await this.#open();
      if (!("error" in result)) {
        _unreachable.delete(this.#url);
        return result;
      }
      last = result;
      if (result.status === 401 || result.status === 403) {
        throw new ParticipantError(
          "agent_unauthorized",
          `${this.#who()} refused the connection: HTTP ${result.status} (check the token)`,
        );
      }
      // The server answered and said no: asking again gets the same answer.
      if (result.status !== undefined && !_retriedStatus(result.status)) {
        throw new ParticipantError(
          "agent_unreachable",
          `cannot connect to ${this.info.url} (${this.#side}): HTTP ${result.status} ` +
            `to the WebSocket upgrade (not retried)`,
        );
      }
    }
    _unreachable.add(this.#url);
    throw new ParticipantError(
      "agent_unreachable",
      `cannot connect to ${this.info.url} (${this.#side}) after ${attempts} attempt(s)${
        known ? " (it was unreachable for an earlier trial)" : ""
      }: ${last.error}`,
    );
  }

  /** One attempt: the open socket, or why it failed. */
  async #open(): Promise<ClientSocket | AttemptFailure> {
    // Loading the client is no connection attempt: a failure there is the harness's.
    const connect = this.#options.connect ?? await _wsConnector();
    let ws: ClientSocket;
    try {
      // Up to 4× the frame cap the frame reaches readFrame, which names its size.
      ws = await connect(this.#url, 4 * this.#maxFrameBytes());
    } catch (e) {
      return { error: (e as Error).message };
    }
    return new Promise((resolve) => {
      ws.binaryType = "arraybuffer";
      const timeoutMs = this.#options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
      const cancel = this.#line!.clock.timer(timeoutMs, () => {
        settle({ error: `no connection within ${timeoutMs} ms` });
        try {
          ws.close();
        } catch { /* never opened */ }
      });
      let done = false;
      const settle = (outcome: ClientSocket | AttemptFailure) => {
        if (done) return;
        done = true;
        cancel();
        resolve(outcome);
      };
      let opened = false;
      const closed = new Promise<void>((resolveClosed) => {
        ws.onclose = (event) => {
          resolveClosed();
          if (opened) this.#onSocketClosed(event);
          else settle({ error: `closed before opening (code ${event.code})` });
        };
      });
      ws.onerror = (event) => {
        const message = event.message || "connection error";
        if (!done) return settle({ error: message, ..._upgradeStatus(message) });
        // After the open: the frame cap enforced by the socket itself.
        if (opened && /max payload/i.test(message)) {
          this.#garbage(`a frame over the limit of ${this.#maxFrameBytes()} bytes`);
        }
      };
      ws.onopen = () => {
        if (done) return; // timed out meanwhile: this socket is being closed
        opened = true;
        this.#socketClosed = closed;
        ws.onmessage = (event) => this.#onFrame(event.data);
        settle(ws);
      };
    });
  }

  #onSocketClosed(event: { code: number; reason: string }): void {
    if (!this.#closing) this.#flushSegment();
    const error = new ParticipantError(
      "agent_disconnected",
      `${this.#who()} closed the connection (code ${event.code}${
        event.reason ? `, ${event.reason}` : ""
      })`,
    );
    this.#rejectAll(error);
    if (!this.#closing && !this.#ended) this.#fail(error);
  }

  // ---- requests ------------------------------------------------------------------

  #id(prefix: string): string {
    return `${prefix}_${++this.#nextId}`;
  }

  /**
   * Sends a request and waits for the reply with its id (`expect` or an
   * error-response), at most `timeoutMs` (default `replyTimeoutMs`; `null`: as long
   * as the connection lasts).
   */
  #request(
    message: RtviMessage,
    expect: string,
    timeoutMs: number | null = this.#options.replyTimeoutMs ?? DEFAULT_REPLY_TIMEOUT_MS,
  ): Promise<RtviMessage> {
    const id = message.id!;
    return new Promise((resolve, reject) => {
      const cancel = timeoutMs === null ? () => {} : this.#line!.clock.timer(timeoutMs, () => {
        this.#requests.delete(id);
        reject(
          new ParticipantError(
            "agent_timeout",
            `${this.#who()} did not answer ${describeRequest(message)} within ${timeoutMs} ms`,
          ),
        );
      });
      this.#requests.set(id, {
        resolve: (reply) => {
          if (reply.type === "error-response") {
            // pipecat reports an old client version this way and still sends bot-ready.
            if (expect === "bot-ready") {
              return this.#line?.trace({ type: "bot_warning", reply: reply.data });
            }
            cancel();
            this.#requests.delete(id);
            const text = ErrorResponseDataSchema.safeParse(reply.data);
            return reject(
              new ParticipantError(
                "protocol_error",
                `${this.#who()} refused ${describeRequest(message)}: ${
                  text.success ? text.data.error : JSON.stringify(reply.data)
                }`,
              ),
            );
          }
          if (reply.type !== expect) return;
          cancel();
          this.#requests.delete(id);
          resolve(reply);
        },
        reject: (error) => {
          cancel();
          this.#requests.delete(id);
          reject(error);
        },
      });
      this.#send(message);
    });
  }

  #rejectAll(error: ParticipantError): void {
    for (const pending of [...this.#requests.values()]) pending.reject(error);
  }

  // ---- incoming ------------------------------------------------------------------

  #onFrame(data: unknown): void {
    if (typeof data !== "string" && !(data instanceof ArrayBuffer)) {
      return this.#garbage("a frame of an unexpected type");
    }
    const frame = readFrame(data, this.#maxFrameBytes());
    if (!frame.ok) return this.#garbage(frame.error);
    if ("skipped" in frame) return;
    const parsed = parseMessage(frame.text);
    if (!parsed.ok) return this.#garbage(parsed.error);
    if (!parsed.message) return;
    // Before anything walks it: a value nested too deep breaks every recursive walk.
    const problem = checkValueLimits(parsed.message);
    if (problem) return this.#garbage(`a message ${problem}`);
    this.#onMessage(parsed.message);
  }

  #onMessage(msg: RtviMessage): void {
    const line = this.#line!;
    switch (msg.type) {
      case "bot-ready":
        // Some bots do not echo the client-ready id.
        this.#requests.get(msg.id ?? "")?.resolve(msg) ??
          this.#requests.get(this.#readyId ?? "")?.resolve(msg);
        return;
      case "server-response":
      case "error-response":
        if (msg.id !== undefined) this.#requests.get(msg.id)?.resolve(msg);
        return;
      case "bot-started-speaking": {
        this.#speaksAloud = true;
        // LLM text streamed before the bot began speaking belongs to this turn.
        const pending = this.#segment;
        const carried = pending && !pending.bracketed && pending.outputs.size === 0 &&
            pending.tts.length === 0
          ? pending.llm
          : [];
        if (carried.length > 0) this.#segment = undefined;
        this.#flushSegment();
        this.#segment = { ...newSegment(true), llm: [...carried] };
        this.#cancelGap();
        return;
      }
      case "bot-output": {
        const data = BotOutputDataSchema.safeParse(msg.data);
        if (!data.success) return this.#garbage(`bad bot-output: ${JSON.stringify(msg.data)}`);
        if (data.data.will_be_spoken === false && !this.#segment?.bracketed) return;
        const segment = this.#openSegment();
        // Progress updates repeat a segment's text under the same id: the last one wins.
        segment.outputs.set(data.data.segment_id ?? `#${segment.outputs.size}`, data.data.text);
        if (data.data.voice) segment.voice = data.data.voice;
        return this.#fragmentArrived();
      }
      case "bot-tts-started":
        this.#speaksAloud = true;
        return;
      case "bot-tts-text": {
        const data = TextDataSchema.safeParse(msg.data);
        if (!data.success) return;
        this.#speaksAloud = true;
        this.#openSegment().tts.push(data.data.text);
        return this.#fragmentArrived();
      }
      case "bot-llm-text": {
        const data = TextDataSchema.safeParse(msg.data);
        if (!data.success) return;
        this.#openSegment().llm.push(data.data.text);
        return this.#fragmentArrived();
      }
      case "bot-stopped-speaking":
        this.#flushSegment();
        return;
      case "bot-interrupted":
        line.stopSpeaking();
        return;
      case "llm-function-call-in-progress": {
        const data = FunctionCallInProgressDataSchema.safeParse(msg.data);
        if (!data.success) return this.#garbage(`bad function call: ${JSON.stringify(msg.data)}`);
        const { tool_call_id, function_name, arguments: args } = data.data;
        // Without a name (pipecat's default report level) the bot runs the tool itself,
        // as a bot that owns its world runs every tool.
        if (function_name === undefined || this.#selfWorld) {
          return line.trace({ type: "unnamed_function_call", tool_call_id });
        }
        void this.#runTool(tool_call_id, function_name, args);
        return;
      }
      case "llm-function-call": {
        const data = FunctionCallDataSchema.safeParse(msg.data);
        if (!data.success) return this.#garbage(`bad function call: ${JSON.stringify(msg.data)}`);
        if (this.#selfWorld) {
          return line.trace({ type: "bot_function_call", tool_call_id: data.data.tool_call_id });
        }
        void this.#runTool(data.data.tool_call_id, data.data.function_name, data.data.args);
        return;
      }
      case "server-message":
        return this.#onServerMessage(msg.data);
      case "metrics": {
        const data = MetricsDataSchema.safeParse(msg.data);
        if (!data.success) return;
        for (const t of data.data.tokens ?? []) {
          line.usage({ prompt_tokens: t.prompt_tokens, completion_tokens: t.completion_tokens });
        }
        const llm = data.data.ttfb?.find((m) => /llm/i.test(m.processor));
        if (llm) this.#ttftMs = Math.round(llm.value * 1000);
        return;
      }
      case "error": {
        const data = ErrorDataSchema.safeParse(msg.data);
        if (!data.success) return this.#garbage(`bad error message: ${JSON.stringify(msg.data)}`);
        if (!data.data.fatal) return line.trace({ type: "bot_error", error: data.data.error });
        return this.#fail(
          new ParticipantError(errorKind(data.data.kind), `${this.#who()}: ${data.data.error}`),
        );
      }
      default:
        return; // other RTVI events (transcriptions, LLM text, ...) carry nothing the call needs
    }
  }

  #onServerMessage(data: unknown): void {
    const line = this.#line!;
    const parsed = ServerMessageDataSchema.safeParse(data);
    if (!parsed.success) return;
    const m = parsed.data;
    if ("type" in m && m.type === "end") {
      // What the bot said before it ended is said first.
      this.#flushSegment();
      this.#ended = true;
      return line.hangUp(typeof m.reason === "string" ? m.reason : undefined, { agentEnd: true });
    }
    if ("type" in m && m.type === "beep") return line.beep();
    if ("type" in m && m.type === "action-applied") {
      const action = (m as { action?: unknown }).action;
      if (typeof action === "object" && action !== null && !Array.isArray(action)) {
        this.#applied.push(action as Record<string, unknown>);
      }
      return line.trace({ type: "action_applied", action });
    }
    if ("type" in m && m.type === "trace") return line.trace(m.entry as Record<string, unknown>);
    const exit = "text" in m && typeof m.text === "string" ? EXIT_TAG.exec(m.text) : null;
    if (exit) {
      this.#flushSegment();
      this.#ended = true;
      return line.hangUp(exit[1]!.trim(), { agentEnd: true });
    }
  }

  /** The segment being assembled, opened (unbracketed) if there is none. */
  #openSegment(): Segment {
    return this.#segment ??= newSegment(false);
  }

  /** After a fragment outside brackets, the turn ends when the gap passes. */
  #fragmentArrived(): void {
    if (this.#segment?.bracketed !== false) return;
    this.#cancelGap();
    this.#cancelGap = this.#line!.clock.timer(FRAGMENT_GAP_MS, () => {
      const segment = this.#segment;
      // LLM text of a bot that speaks aloud waits for its speech (or its brackets).
      if (
        segment && this.#speaksAloud && segment.outputs.size === 0 && segment.tts.length === 0
      ) return;
      this.#flushSegment();
    });
  }

  /** Speaks the open segment, if it holds any text. */
  #flushSegment(): void {
    this.#cancelGap();
    const segment = this.#segment;
    this.#segment = undefined;
    if (!segment) return;
    const text = segment.outputs.size > 0
      ? joinFragments([...segment.outputs.values()])
      : segment.tts.length > 0
      ? joinFragments(segment.tts)
      : segment.llm.join("").replace(/\s+/g, " ").trim();
    if (text === "") return;
    const ttftMs = this.#ttftMs;
    this.#ttftMs = undefined;
    this.#line!.say(text, {
      ...(segment.voice ? { voice: segment.voice } : {}),
      ...(ttftMs !== undefined ? { ttftMs } : {}),
    });
  }

  /** Runs a tool for the bot on the harness's world and sends back the result. */
  async #runTool(toolCallId: string, name: string, rawArgs: unknown): Promise<void> {
    const args = typeof rawArgs === "string" ? parseJsonOr(rawArgs) : rawArgs ?? {};
    // Arguments sent as JSON text are a value of their own, bounded like the message.
    const problem = typeof rawArgs === "string" ? checkValueLimits(args) : undefined;
    if (problem) return this.#garbage(`arguments of ${name} ${problem}`);
    const reply = await this.#line!.callTool(name, args);
    this.#send(rtvi("llm-function-call-result", {
      function_name: name,
      tool_call_id: toolCallId,
      arguments: args,
      result: reply.result,
    }));
  }

  // ---- outgoing ------------------------------------------------------------------

  #sendKeys(keys: string): void {
    const [major, minor] = this.#botVersion.split(".").map(Number);
    if (major === 2 && (minor ?? 0) < 1) {
      for (const button of keys) this.#send(rtvi("dtmf", { button }, this.#id("dtmf")));
      return;
    }
    this.#send(rtvi("dtmf", { buttons: [...keys] }, this.#id("dtmf")));
  }

  #send(message: RtviMessage): void {
    const ws = this.#ws;
    if (!ws || ws.readyState !== OPEN) return;
    try {
      ws.send(writeFrame(message, this.#framing));
    } catch { /* the close handler reports it */ }
  }

  #garbage(what: string): void {
    this.#fail(new ParticipantError("protocol_error", `${this.#who()} sent garbage: ${what}`));
  }

  #fail(error: ParticipantError): void {
    if (this.#failed || this.#closing) return;
    this.#failed = true;
    this.#line?.fail(error);
  }

  #maxFrameBytes(): number {
    return this.#options.maxFrameBytes ?? MAX_FRAME_BYTES;
  }

  #who(): string {
    return `the ${this.#side} at ${this.info.url}`;
  }
}

/** HTTP statuses worth asking again: 408 and 429 may pass later, and any 5xx. */
function _retriedStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/** The HTTP status of a refused upgrade, from the `ws` client's error message. */
function _upgradeStatus(message: string): { status?: number } {
  const m = /Unexpected server response: (\d{3})/.exec(message);
  return m ? { status: Number(m[1]) } : {};
}

/** The part of the `ws` package used here (it ships no types of its own). */
interface WsModule {
  WebSocket: new (
    url: string,
    options: { perMessageDeflate: boolean; maxPayload: number },
  ) => ClientSocket;
}

let _wsModule: Promise<WsModule> | undefined;

/**
 * The `ws` client (loaded on first use; see the module doc for why `ws`). Its sockets
 * refuse frames over `maxPayload` themselves.
 */
async function _wsConnector(): Promise<
  (url: string, maxPayload: number) => ClientSocket
> {
  let ws: WsModule;
  try {
    ws = await (_wsModule ??= import("ws") as Promise<WsModule>);
  } catch (e) {
    _wsModule = undefined;
    throw new Error(`cannot load the WebSocket client (npm:ws): ${(e as Error).message}`);
  }
  // Deno's client offers no compression either; deflate would only add latency.
  return (url, maxPayload) => new ws.WebSocket(url, { perMessageDeflate: false, maxPayload });
}

/** What `get_scenario_summary` answers (reference-harness.md §1.10.5). */
const SummarySchema = z.looseObject({
  actions: z.array(z.record(z.string(), z.unknown())).optional(),
  db_hash: z.string().nullable().optional(),
  db: z.record(z.string(), z.unknown()).nullable().optional(),
});

/** `<exit>…</exit>` anywhere in a text (the reference's exit message). */
const EXIT_TAG = /<exit>([\s\S]*?)<\/exit>/;

/**
 * Joins spoken fragments (sentences, words) with one space between them, except
 * where a fragment already brings its own space or begins with closing punctuation
 * (`"done" + "."`, `"John" + "'s"`).
 */
export function joinFragments(parts: readonly string[]): string {
  let out = "";
  for (const part of parts) {
    if (part === "") continue;
    const glued = out === "" || /\s$/.test(out) || /^\s/.test(part) ||
      /^[.,!?;:%)\]}'\u2019\u201d\u2026]/.test(part) || /[(\[{$\u201c]$/.test(out);
    out += glued ? part : ` ${part}`;
  }
  return out.replace(/\s+/g, " ").trim();
}

function describeRequest(message: RtviMessage): string {
  const t = (message.data as { t?: unknown } | undefined)?.t;
  return typeof t === "string" ? `${message.type} ${t}` : message.type;
}

function parseJsonOr(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function errorKind(kind: string | undefined): ParticipantErrorKind {
  return isParticipantErrorKind(kind) ? kind : "protocol_error";
}

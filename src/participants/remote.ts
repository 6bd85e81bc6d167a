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
  type Voice,
} from "../bridge/call.ts";
import type { Side } from "../domains/domain.ts";
import { isExitText } from "../domains/common.ts";
import { type Framing, MAX_FRAME_BYTES, readFrame, writeFrame } from "../protocol/framing.ts";
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
  /** Sent as `?token=` (browsers' and Deno's WebSocket cannot set headers). */
  token?: string;
  /** Connection attempts before `agent_unreachable` (default 5). */
  connectAttempts?: number;
  /** Delay before the second attempt, doubling each time (default 1000 ms). */
  retryDelayMs?: number;
  /** How long to wait for the socket to open and for each reply (default 15000 ms). */
  replyTimeoutMs?: number;
  /** Text sent as `send-text` when the call starts: `"Hello"` kicks reference-style bots. */
  kick?: string;
  /** `specs` sends tools as a list of specs; `names` as the reference's `{name: {}}`. */
  toolsFormat?: "specs" | "names";
  maxFrameBytes?: number;
  /** Opens the socket (tests). */
  connect?: (url: string) => WebSocket;
}

const CLIENT_ABOUT = { library: "callbench", library_version: "0.1.0" } as const;
const DEFAULT_ATTEMPTS = 5;
const DEFAULT_RETRY_MS = 1000;
const DEFAULT_REPLY_TIMEOUT_MS = 15_000;
/** How long `close()` waits for the closing handshake. */
const CLOSE_WAIT_MS = 2000;

interface PendingRequest {
  resolve(message: RtviMessage): void;
  reject(error: ParticipantError): void;
}

/** One spoken segment: text from `bot-output` (by segment) and from `bot-tts-text`. */
interface Segment {
  outputs: Map<string | number, string>;
  tts: string[];
  voice?: Voice;
}

export class RemoteParticipant implements Participant {
  readonly info: ParticipantInfo;
  readonly #options: RemoteParticipantOptions;
  readonly #url: string;
  readonly #framing: Framing;
  readonly #side: Side;
  #line?: CallLine;
  #ws?: WebSocket;
  #botVersion = PROTOCOL_VERSION;
  #nextId = 0;
  #readyId?: string;
  readonly #requests = new Map<string, PendingRequest>();
  #segment?: Segment;
  #ttftMs?: number;
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
    const tools = this.#options.toolsFormat === "names"
      ? Object.fromEntries(setup.tools.map((t) => [t.name, {}]))
      : setup.tools;
    const reply = await this.#request(
      rtvi("client-message", {
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
      }, this.#id("update_prompt")),
      "server-response",
    ).catch((e) => {
      // A served participant that refuses the scenario names its own data root; name ours.
      if (
        e instanceof ParticipantError && e.kind === "protocol_error" &&
        setup.data_root !== undefined
      ) {
        throw new ParticipantError(
          e.kind,
          `${e.message} (this run's data root: ${setup.data_root})`,
        );
      }
      throw e;
    });
    const accepted = ServerResponseDataSchema.safeParse(reply.data);
    if (!accepted.success || accepted.data.d !== true) {
      throw new ParticipantError(
        "protocol_error",
        `${this.#who()} refused update_system_prompt (reply ${JSON.stringify(reply.data)})`,
      );
    }
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
        this.#send(rtvi("client-message", { t: "call_event", d: event }, this.#id("call_event")));
        return;
      default:
        this.#send(rtvi("client-message", { t: "call_event", d: event }, this.#id("call_event")));
        if (event.type === "call_start" && this.#options.kick !== undefined) {
          const content = this.#options.kick;
          this.#send(rtvi("send-text", {
            content,
            options: { run_immediately: true, audio_response: true },
          }, this.#id("send_text")));
        }
    }
  }

  async close(): Promise<void> {
    this.#closing = true;
    this.#rejectAll(new ParticipantError("agent_disconnected", "closed"));
    const ws = this.#ws;
    if (!ws || ws.readyState === WebSocket.CLOSED) return;
    if (ws.readyState === WebSocket.OPEN) {
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

  async #connect(): Promise<WebSocket> {
    const attempts = Math.max(1, this.#options.connectAttempts ?? DEFAULT_ATTEMPTS);
    let delay = this.#options.retryDelayMs ?? DEFAULT_RETRY_MS;
    let lastError = "";
    for (let attempt = 1; attempt <= attempts; attempt++) {
      if (attempt > 1) {
        await this.#line!.clock.sleep(delay);
        delay *= 2;
      }
      const result = await this.#open();
      if (result instanceof WebSocket) return result;
      lastError = result;
    }
    throw new ParticipantError(
      "agent_unreachable",
      `cannot connect to ${this.info.url} (${this.#side}) after ${attempts} attempt(s): ${lastError}`,
    );
  }

  /** One attempt: the open socket, or why it failed. */
  #open(): Promise<WebSocket | string> {
    return new Promise((resolve) => {
      let ws: WebSocket;
      try {
        ws = (this.#options.connect ?? ((u) => new WebSocket(u)))(this.#url);
      } catch (e) {
        return resolve((e as Error).message);
      }
      ws.binaryType = "arraybuffer";
      const timeoutMs = this.#options.replyTimeoutMs ?? DEFAULT_REPLY_TIMEOUT_MS;
      const cancel = this.#line!.clock.timer(timeoutMs, () => {
        settle(`no connection within ${timeoutMs} ms`);
        try {
          ws.close();
        } catch { /* never opened */ }
      });
      let done = false;
      const settle = (outcome: WebSocket | string) => {
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
          else settle(`closed before opening (code ${event.code})`);
        };
      });
      ws.onerror = (event) => {
        if (!done) settle((event as ErrorEvent).message || "connection error");
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

  #onSocketClosed(event: CloseEvent): void {
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

  /** Sends a request and waits for the reply with its id (`expect` or an error-response). */
  #request(message: RtviMessage, expect: string): Promise<RtviMessage> {
    const id = message.id!;
    const timeoutMs = this.#options.replyTimeoutMs ?? DEFAULT_REPLY_TIMEOUT_MS;
    return new Promise((resolve, reject) => {
      const cancel = this.#line!.clock.timer(timeoutMs, () => {
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
    const frame = readFrame(data, this.#options.maxFrameBytes ?? MAX_FRAME_BYTES);
    if (!frame.ok) return this.#garbage(frame.error);
    if ("skipped" in frame) return;
    const parsed = parseMessage(frame.text);
    if (!parsed.ok) return this.#garbage(parsed.error);
    if (parsed.message) this.#onMessage(parsed.message);
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
      case "bot-started-speaking":
        this.#flushSegment();
        this.#segment = { outputs: new Map(), tts: [] };
        return;
      case "bot-output": {
        const data = BotOutputDataSchema.safeParse(msg.data);
        if (!data.success) return this.#garbage(`bad bot-output: ${JSON.stringify(msg.data)}`);
        if (data.data.will_be_spoken === false && !this.#segment) return;
        const segment: Segment = this.#segment ?? { outputs: new Map(), tts: [] };
        // Progress updates repeat a segment's text under the same id: the last one wins.
        segment.outputs.set(data.data.segment_id ?? `#${segment.outputs.size}`, data.data.text);
        if (data.data.voice) segment.voice = data.data.voice;
        if (!this.#segment) {
          // Text with no speaking brackets (a text-only bot): one utterance of its own.
          this.#segment = segment;
          this.#flushSegment();
        }
        return;
      }
      case "bot-tts-text": {
        const data = TextDataSchema.safeParse(msg.data);
        if (data.success) this.#segment?.tts.push(data.data.text);
        return;
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
        // Without a name (pipecat's default report level) the bot runs the tool itself.
        if (function_name === undefined) {
          return line.trace({ type: "unnamed_function_call", tool_call_id });
        }
        void this.#runTool(tool_call_id, function_name, args);
        return;
      }
      case "llm-function-call": {
        const data = FunctionCallDataSchema.safeParse(msg.data);
        if (!data.success) return this.#garbage(`bad function call: ${JSON.stringify(msg.data)}`);
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
      this.#ended = true;
      return line.hangUp(typeof m.reason === "string" ? m.reason : undefined);
    }
    if ("type" in m && m.type === "beep") return line.beep();
    if ("type" in m && m.type === "trace") return line.trace(m.entry as Record<string, unknown>);
    if ("text" in m && typeof m.text === "string" && isExitText(m.text)) {
      this.#ended = true;
      return line.hangUp(m.text.trim().slice("<exit>".length, -"</exit>".length));
    }
  }

  /** Speaks the open segment, if it holds any text. */
  #flushSegment(): void {
    const segment = this.#segment;
    this.#segment = undefined;
    if (!segment) return;
    const parts = segment.outputs.size > 0 ? [...segment.outputs.values()] : segment.tts;
    const text = parts.join(" ").replace(/\s+/g, " ").trim();
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
    if (!ws || ws.readyState !== WebSocket.OPEN) return;
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

  #who(): string {
    return `the ${this.#side} at ${this.info.url}`;
  }
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

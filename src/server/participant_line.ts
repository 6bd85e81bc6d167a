/**
 * The hosted participant of a session and its `CallLine`: the line's acts become RTVI
 * events (speech as `bot-started-speaking`/`bot-output`/`bot-tts-text`/
 * `bot-stopped-speaking`, usage as `metrics`, the end as `server-message`), and its
 * tool calls run on the session's world or, without one, go to the client as
 * `llm-function-call-in-progress`. The participant's lifecycle (start, restart,
 * failure, end) lives here too; the socket does not: what is sent goes to whichever
 * connection the session has now.
 *
 * @module
 */
import { z } from "zod";
import type {
  CallEvent,
  CallLine,
  CallSetup,
  Clock,
  Participant,
  ParticipantError,
  SaidUtterance,
  ToolCallReply,
  Usage,
  Voice,
} from "../bridge/call.ts";
import { isExitText } from "../domains/common.ts";
import type { Side } from "../domains/domain.ts";
import { deliverableResult } from "../env/environment.ts";
import { rtvi, type RtviMessage } from "../protocol/messages.ts";
import { type ContextHistory, jsonBytes } from "./context_history.ts";
import { describe, type HostedWorld } from "./hosted_world.ts";

/** Makes the hosted participant: `name` is its kind (`oracle`, `noop`, `scripted`, ...). */
export type HostedParticipantFactory = (
  name: string,
  setup: CallSetup,
) => Participant | Promise<Participant>;

/** What the line needs of its session. */
export interface LineOutlet {
  /** Sends to the client connected now (nothing when none is). */
  send(message: RtviMessage): void;
  /** Error text fit for the client. */
  clientText(text: string): string;
  /** Whether the client speaks RTVI 1.x (`bot-output` in its old form). */
  legacy(): boolean;
  /** Runs `fn` after the session's queued work. */
  schedule(fn: () => Promise<void>): void;
  /**
   * Audio sessions: says `text` as audio, calling `started` before its first chunk
   * and `stopped` once it has played out. Absent: speech is text only.
   */
  speak?(text: string, hooks: { started(): void; stopped(): void }): SaidUtterance;
  /** Audio sessions: cuts off the utterance playing now. */
  interrupt?(): void;
  /** Audio sessions: runs `fn` once everything said so far has played out. */
  afterSpeech?(fn: () => void): void;
  /** Audio sessions: runs `fn` once the last thing said has begun playing. */
  afterSpeechStarted?(fn: () => void): void;
  /**
   * A plain client's call has ended (its `server-message end` sent): the session closes
   * the connection, as a pipecat client expects of a bot that hung up.
   */
  closeEnded?(): void;
  log(line: string): void;
}

export interface HostedParticipantOptions {
  factory: HostedParticipantFactory;
  /** The participant kind this session hosts. */
  name: string;
  clock: Clock;
  world: HostedWorld;
  history: ContextHistory;
  outlet: LineOutlet;
  toolTimeoutMs?: number;
}

const DEFAULT_TOOL_TIMEOUT_MS = 30_000;
/** The tool a participant ends the call with. */
const END_TOOL = "end_conversation";

interface PendingCall {
  /** `remember: false` keeps the reply out of the context history. */
  resolve(reply: ToolCallReply, remember?: boolean): void;
  cancelTimer(): void;
}

/** A tool result that reports an error (the reference's `{status:"error"}` or `{error}`). */
const ErrorResultSchema = z.union([
  z.looseObject({ status: z.literal("error") }),
  z.looseObject({ error: z.unknown().refine((v) => v !== undefined), status: z.undefined() }),
]);

/** The hosted participant, its call state and its line. */
export class HostedParticipant {
  readonly #o: HostedParticipantOptions;
  side: Side;
  setup?: CallSetup;
  #participant?: Participant;
  /** Bumped whenever the participant is replaced: an old line goes quiet. */
  #generation = 0;
  #callStarted = false;
  #callEnded = false;
  /**
   * The call is a plain client's (no system prompt: a pipecat client, say): it knows no
   * ending tool, so the participant's `end_conversation` is its hang-up, and the
   * connection is closed after the end. A client that sets the call up (callbench, the
   * reference) runs the ending tool itself and pulls its reports after the end.
   */
  #plain = false;
  readonly #pending = new Map<string, PendingCall>();
  #nextCallId = 0;

  constructor(side: Side, options: HostedParticipantOptions) {
    this.side = side;
    this.#o = options;
  }

  /** Tool calls waiting for the client's result. */
  get pendingToolCalls(): number {
    return this.#pending.size;
  }

  /** Starts (or restarts) the participant for `setup`; the old one is closed first. */
  async start(setup: CallSetup, plain = false): Promise<void> {
    await this.end("replaced");
    const generation = ++this.#generation;
    this.setup = setup;
    this.#plain = plain;
    this.#callStarted = false;
    this.#callEnded = false;
    const participant = await this.#o.factory(this.#o.name, setup);
    this.#participant = participant;
    await participant.start(this.#line(generation), setup);
  }

  /** Ends the call for the participant (a hangup if it was in one) and releases it. */
  async end(reason: string): Promise<void> {
    const participant = this.#participant;
    if (!participant) return;
    this.#participant = undefined;
    this.#generation++;
    if (this.#callStarted && !this.#callEnded) {
      this.#callEnded = true;
      const by = this.side === "agent" ? "user" : "agent";
      const logged = (e: unknown) => this.#o.outlet.log(`participant hangup: ${describe(e)}`);
      safely(() => {
        const returned: unknown = participant.onEvent({
          type: "hangup",
          at: this.#o.clock.now(),
          by,
          reason,
        });
        if (isThenable(returned)) returned.then(undefined, logged);
      }, logged);
    }
    try {
      await participant.close();
    } catch (e) {
      this.#o.outlet.log(`participant close failed: ${describe(e)}`);
    }
  }

  /** A participant for a client that never sent a system prompt (e.g. a plain RTVI client). */
  async ensureParticipant(defaults: { scenario?: string }): Promise<boolean> {
    if (this.#participant) return true;
    const setup: CallSetup = this.setup ?? {
      side: this.side,
      scenario: defaults.scenario ?? "",
      domain: "default",
      prompt: "",
      tools: [],
      seed: "0",
    };
    await this.start(setup, this.setup === undefined || this.#plain);
    return this.#participant !== undefined;
  }

  /**
   * A new connection to a session whose call has ended: the finished call is not
   * resumed; its participant is released, and the next thing heard starts a new call
   * (the setup and the world stay as they are).
   */
  async newCallIfEnded(): Promise<void> {
    if (this.#callEnded && this.#participant) await this.end("a new call");
  }

  /** Marks the call started (a `call_event call_start` from the client). */
  markCallStarted(): void {
    this.#callStarted = true;
  }

  /** Starts the call, if not yet, before the participant hears the far end. */
  startCall(): void {
    if (this.#callStarted) return;
    this.#callStarted = true;
    this.deliver({ type: "call_start", at: this.#o.clock.now(), you_speak_first: false });
  }

  deliver(event: CallEvent): void {
    const participant = this.#participant;
    if (!participant || this.#callEnded) return;
    if (event.type === "hangup") this.#callEnded = true;
    const generation = this.#generation;
    const failed = (e: unknown) => this.#failed(generation, e);
    try {
      // `onEvent` is typed void, but an async one returns a promise: its rejection
      // fails this session's call instead of escaping the process.
      const returned: unknown = participant.onEvent(event);
      if (isThenable(returned)) returned.then(undefined, failed);
    } catch (e) {
      failed(e);
    }
  }

  /** A `llm-function-call-result` for `id`: false when no call waits for it. */
  toolResult(id: string, result: unknown): { ok: true } | { ok: false; error: string } {
    const pending = this.#pending.get(id);
    if (!pending) return { ok: false, error: `unknown tool_call_id: ${id}` };
    this.#pending.delete(id);
    pending.cancelTimer();
    const bytes = jsonBytes(result ?? null);
    if (!this.#o.history.hasRoom(bytes)) {
      const error = this.#o.history.fullMessage(bytes);
      pending.resolve(errorReply("result_too_large", error), false);
      return { ok: false, error };
    }
    pending.resolve({ ok: !ErrorResultSchema.safeParse(result).success, result });
    return { ok: true };
  }

  /**
   * A tool call from outside the participant (the session's MCP endpoint, `serve
   * --tools-server`): run as the participant's own are, on the session's world when a
   * client loaded one, else by the client (`llm-function-call-in-progress`), so it is in
   * the context history, the actions and the `action-applied` notices alike. Only while
   * a call is set up, and only the tools the setup offered (`unknown_tool` otherwise).
   */
  async servedToolCall(name: string, args: unknown): Promise<ToolCallReply> {
    const setup = this.setup;
    if (!setup || !this.#participant) {
      return errorReply(
        "no_call",
        "No call is set up: the client sends update_system_prompt first.",
      );
    }
    if (this.#callEnded) return errorReply("call_ended", "The call has ended.");
    if (!setup.tools.some((t) => t.name === name)) {
      return {
        ok: false,
        result: {
          status: "error",
          error_type: "unknown_tool",
          message: `There is no tool named '${name}'. Use one of the available tools.`,
          available_tools: setup.tools.map((t) => t.name).sort(),
        },
      };
    }
    const generation = this.#generation;
    try {
      return await this.#callTool(name, args);
    } catch (e) {
      this.#failed(generation, e);
      return errorReply("call_ended", "The call has ended.");
    }
  }

  /** Tool calls waiting on a client that went away get an error result. */
  failPending(errorType: string, message: string): void {
    for (const [id, pending] of this.#pending) {
      this.#pending.delete(id);
      pending.cancelTimer();
      pending.resolve(errorReply(errorType, message));
    }
  }

  /**
   * The hosted participant (or the session's own work for it) threw: this session's
   * call ends with a fatal `error`, the participant is released, and the session stays
   * open for a new scenario. Nothing reaches the process.
   */
  #failed(generation: number, e: unknown): void {
    const out = this.#o.outlet;
    out.log(`hosted participant failed: ${describe(e)}`);
    if (generation !== this.#generation) return;
    const kind = this.side === "user" ? "user_error" : "protocol_error";
    if (!this.#callEnded) {
      this.#callEnded = true;
      out.send(rtvi("error", {
        error: out.clientText(`the hosted participant failed: ${describe(e)}`),
        fatal: true,
        kind,
      }));
    }
    out.schedule(() => this.end("participant failed"));
  }

  /** The line of one participant generation: it goes quiet once replaced or ended. */
  #line(generation: number): CallLine {
    const out = this.#o.outlet;
    const live = () => generation === this.#generation && !this.#callEnded;
    const hangUp = (reason?: string) => {
      if (!live()) return;
      this.#callEnded = true;
      const plain = this.#plain;
      // After its last words have played: a client ends the call on it (a plain
      // client's connection is then closed).
      const send = () => {
        out.send(rtvi("server-message", { type: "end", reason: reason ?? "hangup" }));
        if (plain) out.closeEnded?.();
      };
      if (out.afterSpeech) out.afterSpeech(send);
      else send();
    };
    return {
      side: this.side,
      clock: this.#o.clock,
      say: (text: string, options?: { voice?: Voice; ttftMs?: number }) => {
        if (live()) return this.#say(text, options?.voice, options?.ttftMs);
      },
      stopSpeaking: () => {
        if (!live()) return;
        out.interrupt?.();
        out.send(rtvi("bot-interrupted"));
      },
      press: (keys: string) => {
        if (!live()) return;
        this.#remoteToolCall("send_dtmf", { keys }).catch((e) => this.#failed(generation, e));
      },
      beep: () => {
        if (live()) out.send(rtvi("server-message", { type: "beep" }));
      },
      callTool: async (name: string, args: unknown): Promise<ToolCallReply> => {
        if (!live()) return errorReply("call_ended", "The call has ended.");
        if (this.#plain && name === END_TOOL) {
          // A plain client has no handler for it: the participant hangs up instead.
          hangUp(END_TOOL);
          return { ok: true, result: { status: "ok" } };
        }
        this.#zeroUsage();
        try {
          return await this.#callTool(name, args);
        } catch (e) {
          // The session's own fault (a broken world): it fails this call, and the
          // participant gets a reply rather than a rejection it may not handle.
          this.#failed(generation, e);
          return errorReply("call_ended", "The call has ended.");
        }
      },
      hangUp: (reason?: string) => hangUp(reason),
      usage: (u: Usage) => {
        if (!live()) return;
        out.send(rtvi("metrics", { tokens: [tokenUsage(u)] }));
      },
      trace: (entry: Record<string, unknown>) => {
        if (live()) out.send(rtvi("server-message", { type: "trace", entry }));
      },
      fail: (error: ParticipantError) => {
        if (!live()) return;
        this.#callEnded = true;
        const text = out.clientText(error.message);
        out.send(rtvi("error", { error: text, fatal: true, kind: error.kind }));
      },
    };
  }

  /**
   * An utterance: started, its text (2.x `bot-output` and `bot-tts-text`), stopped;
   * in an audio session, its audio paced out between started and stopped.
   */
  #say(text: string, voice?: Voice, ttftMs?: number): SaidUtterance | void {
    const out = this.#o.outlet;
    if (ttftMs !== undefined) {
      out.send(rtvi("metrics", { ttfb: [{ processor: "llm", value: ttftMs / 1000 }] }));
    }
    this.#zeroUsage();
    const output = out.legacy() ? { text, spoken: true } : {
      text,
      spoken: true,
      will_be_spoken: true,
      aggregated_by: "sentence",
      spoken_status: "completed",
    };
    const started = () => {
      out.send(rtvi("bot-started-speaking"));
      out.send(rtvi("bot-output", { ...output, ...(voice ? { voice } : {}) }));
      out.send(rtvi("bot-tts-text", { text }));
    };
    const stopped = () => out.send(rtvi("bot-stopped-speaking"));
    this.#o.history.remember({ role: "assistant", content: text });
    if (out.speak) return out.speak(text, { started, stopped });
    started();
    stopped();
  }

  /**
   * A participant without a model (the oracle, the scripted caller) reports zero
   * `metrics.tokens` for each turn and each tool call, where a model would have been
   * invoked once, so a client counting model calls (the reference's
   * `--min-agent-turns`) counts it as it would an LLM; one with a model reports its
   * real usage through the line instead.
   */
  #zeroUsage(): void {
    if (this.#participant?.info.model !== undefined) return;
    const zero = tokenUsage({ prompt_tokens: 0, completion_tokens: 0 });
    this.#o.outlet.send(rtvi("metrics", { tokens: [zero] }));
  }

  #callTool(name: string, args: unknown): Promise<ToolCallReply> {
    const world = this.#o.world;
    if (!world.env) return this.#remoteToolCall(name, args);
    const out = this.#o.outlet;
    const r = world.call(this.side, name, args);
    const result = deliverableResult(r.result);
    this.#o.history.remember({ role: "tool", name: r.tool, arguments: args, content: result });
    if (r.record) {
      // The reference's notice names the prompt's `tool_domain` (its `__tool_domain__`).
      const domain = this.setup?.domain && this.setup.domain !== "default"
        ? this.setup.domain
        : world.env.domain.id;
      out.send(rtvi("server-message", {
        type: "action-applied",
        action: r.record,
        tool_domain: domain,
      }));
    }
    if (r.exit) {
      const exit = isExitText(r.exit) ? r.exit : `<exit>${r.exit}</exit>`;
      // After the result is delivered, as the reference's post-delivery hook, and
      // after the words already said have played (a client ends the call on it).
      const send = () => out.send(rtvi("server-message", { text: exit }));
      this.#o.clock.timer(0, () => out.afterSpeech ? out.afterSpeech(send) : send());
    }
    return Promise.resolve({ ok: r.ok, result });
  }

  /**
   * Asks the client to run a tool: `llm-function-call-in-progress`, awaiting the
   * result. In audio sessions it goes once what the participant said before it has
   * begun to play, as a voice bot's words start before its tool call lands (so the
   * client holds an ending tool's hangup for the goodbye).
   */
  async #remoteToolCall(name: string, args: unknown): Promise<ToolCallReply> {
    const out = this.#o.outlet;
    if (out.afterSpeechStarted) await new Promise<void>((r) => out.afterSpeechStarted!(r));
    const id = `call_${++this.#nextCallId}`;
    const timeoutMs = this.#o.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
    return new Promise<ToolCallReply>((resolve) => {
      const cancelTimer = this.#o.clock.timer(timeoutMs, () => {
        if (!this.#pending.delete(id)) return;
        resolve(errorReply("timeout", `No result for ${name} within ${timeoutMs} ms.`));
      });
      this.#pending.set(id, {
        cancelTimer,
        resolve: (reply, remember = true) => {
          if (remember) {
            this.#o.history.remember({
              role: "tool",
              name,
              arguments: args,
              content: reply.result,
            });
          }
          resolve(reply);
        },
      });
      this.#o.outlet.send(rtvi("llm-function-call-in-progress", {
        tool_call_id: id,
        function_name: name,
        arguments: args ?? {},
      }));
    });
  }
}

function tokenUsage(u: Usage) {
  return {
    prompt_tokens: u.prompt_tokens,
    completion_tokens: u.completion_tokens,
    total_tokens: u.prompt_tokens + u.completion_tokens,
  };
}

/** A tool reply reporting an error, as the reference's `{status:"error"}` results. */
function errorReply(errorType: string, message: string): ToolCallReply {
  return { ok: false, result: { status: "error", error_type: errorType, message } };
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === "object" && value !== null &&
    typeof (value as { then?: unknown }).then === "function";
}

function safely(fn: () => void, onError?: (e: unknown) => void): void {
  try {
    fn();
  } catch (e) {
    onError?.(e);
  }
}

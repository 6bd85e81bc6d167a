/**
 * One call between two participants. The bridge relays speech, keys and beeps,
 * executes every tool call against the trial's Environment (the harness owns the
 * world), and ends the call on the agent ending it, either side hanging up, the
 * duration limit, 30 s of silence, or the turn guard. It records everything the
 * trial record needs.
 *
 * @module
 */
import type { Side } from "../domains/domain.ts";
import { isExitText } from "../domains/common.ts";
import { DTMF_KEYS, DTMF_KEYS_TEXT, isDtmfKeys } from "../dtmf/keys.ts";
import { deliverableResult, type Environment } from "../env/environment.ts";
import type { StopReason, Turn } from "../runner/trial_record.ts";
import type { ErrorKind } from "../runner/trial_record.ts";
import {
  type CallEvent,
  type CallLine,
  type CallSetup,
  type Clock,
  type Participant,
  ParticipantError,
  type ToolCallReply,
  type Usage,
  type Voice,
} from "./call.ts";
import type { SimClock } from "./clock.ts";
import { speechDurationMs, spokenPrefix } from "./speech.ts";

export interface CallLimits {
  /** The call ends here (reason `max_duration`). */
  maxDurationMs: number;
  /** Neither side speaking or pressing a key this long ends the call. */
  silenceMs: number;
  /** Turn guard: more turns than this end the call (reason `max_turns`). */
  maxTurns: number;
}

export const DEFAULT_LIMITS: CallLimits = {
  maxDurationMs: 900_000,
  silenceMs: 30_000,
  maxTurns: 200,
};

export interface CallSpec {
  env: Environment;
  agent: Participant;
  user: Participant;
  agentSetup: CallSetup;
  userSetup: CallSetup;
  clock: Clock;
  limits: CallLimits;
  /** Which side opens the call (flows: the callee answers first). */
  firstSpeaker: Side;
  /**
   * Whether utterances take time to say. Always on a simulated clock; on a real
   * clock only when timing is part of the test (flows), so LLM calls do not wait
   * for imaginary speech.
   */
  timedSpeech: boolean;
  /** Observes every event delivered to a side (tests). */
  tap?: (side: Side, event: CallEvent) => void;
}

export interface ToolCallEntry {
  side: Side;
  name: string;
  arguments: unknown;
  result: unknown;
  ok: boolean;
  at_ms: number;
}

export interface CallOutcome {
  stopReason: StopReason;
  /** The agent ended the call (reference `[EXIT]`). */
  cleanExit: boolean;
  /** Set when the call ended because a participant broke. */
  error?: { kind: ErrorKind; message: string; side: Side };
  durationMs: number;
  turns: Turn[];
  dtmf: { side: Side; keys: string; at_ms: number }[];
  toolCalls: ToolCallEntry[];
  latency: { turn: number; response_ms: number; ttft_ms?: number }[];
  usage: Record<Side, { calls: number; prompt_tokens: number; completion_tokens: number }>;
  traces: Record<Side, Record<string, unknown>[]>;
}

interface Utterance {
  text: string;
  voice?: Voice;
  start: number;
  end: number;
  turn: Turn;
  cancel: () => void;
}

/** Runs one call to its end. Never throws: failures end the call with an error. */
export function runCall(spec: CallSpec): Promise<CallOutcome> {
  return new Call(spec).run();
}

class Call {
  readonly #spec: CallSpec;
  readonly #clock: Clock;
  #ended = false;
  #resolveEnd!: () => void;
  readonly #endPromise = new Promise<void>((r) => (this.#resolveEnd = r));
  #outcome: Omit<CallOutcome, "durationMs"> & { durationMs?: number };
  readonly #speaking: Record<Side, Utterance | undefined> = { agent: undefined, user: undefined };
  readonly #queue: Record<Side, Utterance[]> = { agent: [], user: [] };
  #cancelSilence: () => void = () => {};
  #cancelLimit: () => void = () => {};
  /** The agent has ended the call with a tool; the end follows the result's delivery. */
  #agentEnded = false;
  /** End of the caller's last utterance, awaiting the agent's response. */
  #awaitingResponseSince: number | undefined;
  /** The agent has spoken, pressed keys, beeped or called a tool (see `#endSilent`). */
  #agentActed = false;

  constructor(spec: CallSpec) {
    this.#spec = spec;
    this.#clock = spec.clock;
    this.#outcome = {
      stopReason: "max_duration",
      cleanExit: false,
      turns: [],
      dtmf: [],
      toolCalls: [],
      latency: [],
      usage: {
        agent: { calls: 0, prompt_tokens: 0, completion_tokens: 0 },
        user: { calls: 0, prompt_tokens: 0, completion_tokens: 0 },
      },
      traces: { agent: [], user: [] },
    };
  }

  async run(): Promise<CallOutcome> {
    const { agent, user, agentSetup, userSetup, limits } = this.#spec;
    this.#cancelLimit = this.#clock.timer(limits.maxDurationMs, () => this.#end("max_duration"));
    this.#armSilence();
    const started = Promise.all([
      this.#start("agent", agent, agentSetup),
      this.#start("user", user, userSetup),
    ]).then(() => {
      if (this.#ended) return;
      const first = this.#spec.firstSpeaker;
      this.#deliver("agent", {
        type: "call_start",
        at: this.#now(),
        you_speak_first: first === "agent",
      });
      this.#deliver("user", {
        type: "call_start",
        at: this.#now(),
        you_speak_first: first === "user",
      });
    });
    if (this.#clock.simulated) {
      await started;
      await (this.#clock as SimClock).run(() => this.#ended);
      if (!this.#ended) this.#endSilent(); // nothing left to happen: the line is dead
    } else {
      await Promise.race([started, this.#endPromise]);
      await this.#endPromise;
    }
    return { ...this.#outcome, durationMs: this.#outcome.durationMs ?? this.#now() };
  }

  async #start(side: Side, p: Participant, setup: CallSetup): Promise<void> {
    try {
      await p.start(this.#line(side), setup);
    } catch (e) {
      this.#fail(side, e);
    }
  }

  #now(): number {
    return this.#clock.now();
  }

  #other(side: Side): Side {
    return side === "agent" ? "user" : "agent";
  }

  #participant(side: Side): Participant {
    return side === "agent" ? this.#spec.agent : this.#spec.user;
  }

  /** Hands an event to a side on a fresh microtask, so participants never re-enter. */
  #deliver(side: Side, event: CallEvent): void {
    this.#spec.tap?.(side, event);
    queueMicrotask(() => {
      try {
        this.#participant(side).onEvent(event);
      } catch (e) {
        this.#fail(side, e);
      }
    });
  }

  #line(side: Side): CallLine {
    return {
      side,
      clock: this.#clock,
      say: (text, options) => this.#say(side, text, options?.voice, options?.ttftMs),
      stopSpeaking: () => this.#stopSpeaking(side),
      press: (keys) => this.#press(side, keys),
      beep: () => {
        if (this.#ended) return;
        if (side === "agent") this.#agentActed = true;
        this.#armSilence();
        this.#deliver(this.#other(side), { type: "beep", at: this.#now() });
      },
      callTool: (name, args) => this.#callTool(side, name, args),
      hangUp: (reason) => {
        if (this.#ended) return;
        this.#end(side === "agent" ? "agent_hangup" : "user_hangup", reason, side);
      },
      usage: (u: Usage) => {
        const acc = this.#outcome.usage[side];
        acc.calls += 1;
        acc.prompt_tokens += u.prompt_tokens;
        acc.completion_tokens += u.completion_tokens;
      },
      trace: (entry) => {
        this.#outcome.traces[side].push({ ...entry, at_ms: this.#now() });
      },
      fail: (error) => this.#fail(side, error),
    };
  }

  #say(side: Side, rawText: string, voice?: Voice, ttftMs?: number): void {
    if (this.#ended) return;
    const text = rawText.trim();
    // After end_conversation or a transfer the agent has hung up: later words are not
    // heard (in-process or over a socket alike).
    if (text === "" || (side === "agent" && this.#agentEnded)) return;
    if (side === "agent") this.#agentActed = true;
    if (side === "agent" && isExitText(text)) {
      this.#end("agent_end", "exit text", "agent");
      return;
    }
    const now = this.#now();
    if (side === "agent" && this.#awaitingResponseSince !== undefined) {
      this.#outcome.latency.push({
        turn: this.#outcome.turns.length,
        response_ms: Math.max(0, now - this.#awaitingResponseSince),
        ...(ttftMs !== undefined ? { ttft_ms: ttftMs } : {}),
      });
      this.#awaitingResponseSince = undefined;
    }
    const busyUntil = Math.max(
      now,
      this.#speaking[side]?.end ?? now,
      ...this.#queue[side].map((u) => u.end),
    );
    const duration = this.#spec.timedSpeech ? speechDurationMs(text) : 0;
    const turn: Turn = {
      speaker: side,
      text,
      start_ms: busyUntil,
      end_ms: busyUntil + duration,
      ...(voice ? { voice } : {}),
    };
    this.#outcome.turns.push(turn);
    if (this.#outcome.turns.length > this.#spec.limits.maxTurns) {
      this.#end("max_turns");
      return;
    }
    const u: Utterance = {
      text,
      voice,
      start: busyUntil,
      end: busyUntil + duration,
      turn,
      cancel: () => {},
    };
    this.#queue[side].push(u);
    // Begin at once when the line is free, so the speaker's own timers set after
    // `say` (e.g. "when my prompt ends") fire after the listener has heard it.
    if (busyUntil <= now) this.#beginUtterance(side, u);
    else u.cancel = this.#clock.timer(busyUntil - now, () => this.#beginUtterance(side, u));
  }

  #beginUtterance(side: Side, u: Utterance): void {
    if (this.#ended) return;
    this.#queue[side] = this.#queue[side].filter((q) => q !== u);
    this.#speaking[side] = u;
    this.#armSilence();
    this.#deliver(this.#other(side), { type: "speech_start", at: this.#now(), voice: u.voice });
    u.cancel = this.#clock.timer(u.end - this.#now(), () => this.#finishUtterance(side, u, false));
  }

  #finishUtterance(side: Side, u: Utterance, interrupted: boolean): void {
    if (this.#speaking[side] === u) this.#speaking[side] = undefined;
    const now = this.#now();
    this.#armSilence();
    if (side === "user") this.#awaitingResponseSince = now;
    this.#deliver(this.#other(side), {
      type: "speech",
      at: now,
      text: u.turn.text,
      ...(u.voice ? { voice: u.voice } : {}),
      ...(interrupted ? { interrupted: true } : {}),
    });
  }

  #stopSpeaking(side: Side): void {
    if (this.#ended) return;
    for (const q of this.#queue[side]) {
      q.cancel();
      this.#outcome.turns = this.#outcome.turns.filter((t) => t !== q.turn);
    }
    this.#queue[side] = [];
    const u = this.#speaking[side];
    if (!u) return;
    u.cancel();
    const now = this.#now();
    u.turn.text = spokenPrefix(u.text, now - u.start);
    u.turn.end_ms = now;
    u.turn.interrupted = true;
    this.#finishUtterance(side, u, true);
  }

  #press(side: Side, keys: string): void {
    if (this.#ended) return;
    if (!DTMF_KEYS.test(keys)) {
      this.#outcome.traces[side].push({ type: "invalid_keys", keys, at_ms: this.#now() });
      return;
    }
    if (side === "agent") this.#agentActed = true;
    this.#armSilence();
    this.#outcome.dtmf.push({ side, keys, at_ms: this.#now() });
    this.#deliver(this.#other(side), { type: "dtmf", at: this.#now(), keys });
  }

  #callTool(side: Side, name: string, args: unknown): Promise<ToolCallReply> {
    if (this.#ended) {
      return Promise.resolve({
        ok: false,
        result: { status: "error", error_type: "call_ended", message: "The call has ended." },
      });
    }
    const at = this.#now();
    if (side === "agent") this.#agentActed = true;
    if (name === "send_dtmf") {
      const keys = typeof args === "object" && args !== null
        ? (args as { keys?: unknown }).keys
        : undefined;
      const ok = isDtmfKeys(keys);
      const result = ok ? { status: "success", message: `Pressed ${keys}.` } : {
        status: "error",
        error_type: "validation_error",
        message: `keys must be a string of ${DTMF_KEYS_TEXT}`,
      };
      this.#outcome.toolCalls.push({ side, name, arguments: args, result, ok, at_ms: at });
      if (ok) this.#press(side, keys as string);
      return Promise.resolve({ ok, result });
    }
    const r = this.#spec.env.call(side, name, args);
    this.#outcome.toolCalls.push({
      side,
      name: r.tool,
      arguments: args,
      result: r.result,
      ok: r.ok,
      at_ms: at,
    });
    if (r.exit && side === "agent") {
      const reason: StopReason = /transfer/.test(r.tool) ? "agent_transfer" : "agent_end";
      this.#agentEnded = true;
      // End once the result is delivered (the reference's post-delivery hook) and
      // what the agent already said has been spoken, as a voice bot hangs up after
      // its last words.
      const spoken = Math.max(
        at,
        this.#speaking.agent?.end ?? at,
        ...this.#queue.agent.map((u) => u.end),
      );
      this.#clock.timer(spoken - at, () => this.#end(reason, r.exit, "agent"));
    }
    return Promise.resolve({ ok: r.ok, result: deliverableResult(r.result) });
  }

  /** Speech or keys: the 30 s of silence start again from now. */
  #armSilence(): void {
    this.#cancelSilence();
    this.#cancelSilence = this.#clock.timer(this.#spec.limits.silenceMs, () => {
      const speaking = this.#speaking.agent ?? this.#speaking.user;
      if (speaking) {
        this.#armSilence(); // someone is still talking; silence starts when they stop
        return;
      }
      this.#endSilent();
    });
  }

  /**
   * The line went quiet. An agent that never spoke, pressed a key, beeped or called a
   * tool since the call began is broken (`agent_silent`, the trial is an error); once
   * it has acted, a quiet line is a plain `silence` stop, whoever stopped talking.
   */
  #endSilent(): void {
    if (this.#agentActed) return this.#end("silence");
    this.#fail(
      "agent",
      new ParticipantError(
        "agent_silent",
        `the agent never spoke, pressed a key or called a tool; the line was silent at ${
          Math.round(this.#now())
        } ms`,
      ),
    );
  }

  #fail(side: Side, e: unknown): void {
    if (this.#ended) return;
    const kind: ErrorKind = e instanceof ParticipantError
      ? e.kind
      : side === "agent"
      ? "protocol_error"
      : "user_error";
    const message = e instanceof Error ? e.message : String(e);
    this.#outcome.error = { kind, message, side };
    this.#end("error", message, side);
  }

  #end(reason: StopReason, detail?: string, by?: Side): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#cancelSilence();
    this.#cancelLimit();
    // What was being said is cut where the line went dead; what was queued is unsaid.
    const now = this.#now();
    const unsaid = new Set<Turn>();
    for (const side of ["agent", "user"] as const) {
      const u = this.#speaking[side];
      if (u) {
        u.cancel();
        if (now < u.end) {
          u.turn.text = spokenPrefix(u.text, now - u.start);
          u.turn.end_ms = now;
          u.turn.interrupted = true;
          if (u.turn.text === "") unsaid.add(u.turn);
          // The listener heard the words up to the hangup (a voicemail box keeps them).
          else {
            this.#deliver(this.#other(side), {
              type: "speech",
              at: now,
              text: u.turn.text,
              ...(u.voice ? { voice: u.voice } : {}),
              interrupted: true,
            });
          }
        }
      }
      for (const q of this.#queue[side]) {
        q.cancel();
        unsaid.add(q.turn);
      }
    }
    if (unsaid.size > 0) this.#outcome.turns = this.#outcome.turns.filter((t) => !unsaid.has(t));
    this.#outcome.stopReason = reason;
    this.#outcome.cleanExit = reason === "agent_end" || reason === "agent_transfer" ||
      reason === "agent_hangup";
    this.#outcome.durationMs = this.#now();
    const event: CallEvent = {
      type: "hangup",
      at: this.#now(),
      by: by ?? "harness",
      reason,
    };
    if (detail) {
      this.#outcome.traces[by ?? "agent"].push({ type: "end", reason, detail, at_ms: this.#now() });
    }
    this.#deliver("agent", event);
    this.#deliver("user", event);
    this.#resolveEnd();
  }
}

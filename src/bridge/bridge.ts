/**
 * One call between two participants. The bridge relays speech, keys and beeps,
 * executes every tool call against the trial's Environment (the harness owns the
 * world), and ends the call on the agent ending it, either side hanging up, the
 * duration limit, 30 s of silence, or the turn guard. It records everything the
 * trial record needs.
 *
 * @module
 */
import type { Side, SyncDeltas, ToolDef } from "../domains/domain.ts";
import { isExitText, LINE_TOOLS } from "../domains/common.ts";
import { DTMF_KEYS_TEXT, isDtmfKeys } from "../dtmf/keys.ts";
import { deliverableResult, type Environment } from "../env/environment.ts";
import type { ErrorKind, StopReason, Turn } from "./outcome.ts";
import {
  type CallEvent,
  type CallLine,
  type CallSetup,
  type Clock,
  type LineAudio,
  type Participant,
  ParticipantError,
  type ReceivedAudio,
  type SayAct,
  type ToolCallReply,
  type Usage,
  type Voice,
} from "./call.ts";
import { type SaidUtterance, type Utterance, utterance } from "../speech/utterance.ts";
import type { SpeechError, SttProvider, TtsProvider } from "../speech/speech.ts";
import { type Pcm16, pcm16, toMono } from "../audio/pcm.ts";
import { detectDtmf, dtmfTones } from "../audio/dtmf.ts";
import { beepTone, detectBeeps } from "../audio/beep.ts";
import { type LineUtterance, PendingSaid, SpeechChannel } from "./speech_channel.ts";
import type { Line } from "../audio/line/line.ts";
import type { BehaviourKind } from "../speech/behaviour.ts";

/** The limits that end a call. */
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

/**
 * Tool calls one side may make between two of its turns (the tau2 and eva gold
 * traces need at most a few dozen in a whole call): past it the side is broken
 * (`protocol_error` for the agent, `user_error` for the caller), not slow.
 */
export const MAX_TOOL_CALLS_PER_TURN = 100;

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
  /**
   * Audio calls: every utterance is synthesized by `tts` (with each side's voice) and
   * lasts as long as its audio. On a simulated clock, synthesis holds virtual time.
   */
  speech?: CallSpeech;
  /** Observes every event delivered to a side (tests). */
  tap?: (side: Side, event: CallEvent) => void;
}

/** How the two ends sound in an audio call. */
export interface CallSpeech {
  tts: TtsProvider;
  /** Each side's TTS voice; the provider's default unless given. */
  voices?: Partial<Record<Side, string>>;
  /**
   * `inband`: keys and beeps are tones on the presser's line (DTMF at 100 ms a key,
   * 100 ms gaps; a 500 ms 1 kHz beep), and the listener gets what the Goertzel DTMF
   * detector or the beep detector hears in them, when the tones end. `event`
   * (default): keys and beeps are delivered out of band at once, as in text calls.
   */
  dtmf?: "inband" | "event" | "info";
  /**
   * Transcribes the agent's audio for the caller (the caller hears the transcript,
   * not the agent's text); a failure ends the trial with `stt_error`.
   */
  stt?: SttProvider;
  /** The rate of generated tones (default the TTS provider's, else 16 kHz). */
  sampleRate?: number;
  /**
   * The phone line each side's audio crosses (`src/audio/line/`): the listener hears
   * a side's utterances through its line, and the agent's end gets the caller's line
   * noise for its silences (`LineAudio.fill`). A side without one is clean.
   */
  line?: Partial<Record<Side, Line>>;
  /** The call's language (BCP 47; the scenario's caller's): passed to TTS and STT requests. */
  language?: string;
}

/** A key or beep tone as it went out on the line (audio calls with in-band keys). */
export interface SentTone {
  side: Side;
  kind: "dtmf" | "beep";
  audio: Pcm16;
  start_ms: number;
  /** The keys pressed (dtmf). */
  keys?: string;
  /** What the listener's detector heard: the keys, or "beep"; "" when it heard nothing. */
  heard: string;
}

/** A speech provider failed: the trial ends with its error kind. */
export class SpeechFailure extends Error {
  constructor(readonly error: SpeechError) {
    super(`${error.provider}: ${error.message}`);
    this.name = "SpeechFailure";
  }
}

/** One utterance's audio as it went out on the line (audio calls). */
export interface SentAudio {
  side: Side;
  utterance: Utterance;
  /**
   * The audio is the speaker's own, as a remote end sent it (`say`'s `audio`), not
   * callbench's synthesis of its text.
   */
  received?: boolean;
  /** Call time it began, and where it ended (earlier than its audio if cut off). */
  start_ms: number;
  end_ms: number;
  /** Call time its first sample went out on the listener's wire, when the mapping said. */
  sent_ms?: number;
  /** The audio as it went out, when the wire changed it (resampled, µ-law). */
  sent_audio?: Pcm16;
  /** What the listener heard of it, when the side's audio crossed a line. */
  heard?: Pcm16;
  /** The SNR the line measured on it (dB; null: silent or no noise). */
  snr_db?: number | null;
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
  /** Call time both ends were set up (handshakes done) and `call_start` went out. */
  connectedMs?: number;
  turns: Turn[];
  dtmf: { side: Side; keys: string; at_ms: number }[];
  toolCalls: ToolCallEntry[];
  latency: { turn: number; response_ms: number; ttft_ms?: number }[];
  usage: Record<Side, { calls: number; prompt_tokens: number; completion_tokens: number }>;
  traces: Record<Side, Record<string, unknown>[]>;
  /** Audio calls: every utterance's audio as it was sent, in order of start. */
  audio?: SentAudio[];
  /** Audio calls with in-band keys: every tone sent, in order. */
  tones?: SentTone[];
  /** Audio calls with STT: what the caller heard of each agent turn (index into `turns`). */
  heard?: { turn: number; text: string }[];
  /** The behaviours the caller acted out, at their call times (see {@link callerEvents}). */
  callerEvents?: CallerEvent[];
}

/** A caller behaviour acted out: its kind and when (`turn`: the utterance, index into `turns`). */
export interface CallerEvent {
  kind: BehaviourKind;
  start_ms: number;
  end_ms: number;
  turn: number;
}

/**
 * The caller events of a call's turns: a `backchannel`, `filler`, `side` or
 * `interrupt` is its utterance's span; a `pause` or `late` is the silence before its
 * utterance, from its `sinceMs`, else from the end of the caller's utterance before it
 * (pause) or of the turn before it (late, either side's).
 */
export function callerEvents(
  turns: readonly Turn[],
  acts: ReadonlyMap<Turn, SayAct>,
): CallerEvent[] {
  const out: CallerEvent[] = [];
  turns.forEach((t, i) => {
    const act = acts.get(t);
    if (!act) return;
    const kind = act.kind;
    if (kind === "pause" || kind === "late") {
      if (act.sinceMs !== undefined) {
        out.push({
          kind,
          start_ms: Math.min(act.sinceMs, t.start_ms),
          end_ms: t.start_ms,
          turn: i,
        });
        return;
      }
      let before = 0;
      for (const o of turns) {
        // A pause is the caller's own: the agent speaking into it does not shorten it.
        if (o === t || o.end_ms > t.start_ms || (kind === "pause" && o.speaker !== "user")) {
          continue;
        }
        before = Math.max(before, o.end_ms);
      }
      out.push({ kind, start_ms: before, end_ms: t.start_ms, turn: i });
    } else out.push({ kind, start_ms: t.start_ms, end_ms: t.end_ms, turn: i });
  });
  return out.sort((a, b) => a.start_ms - b.start_ms);
}

/** `audio` `db` decibels louder (negative: quieter). */
function withGain(audio: Pcm16, db: number): Pcm16 {
  const g = 10 ** (db / 20);
  return pcm16(
    Int16Array.from(audio.samples, (v) => Math.max(-32768, Math.min(32767, Math.round(v * g)))),
    audio.sampleRate,
    audio.channels,
  );
}

const EXIT_IN_TEXT = /<exit>([\s\S]*?)<\/exit>/;
/** The other end starting this long before a turn's end spoke over it (one 20 ms frame). */
const SPOKEN_OVER_MS = 20;

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
  readonly #speech: Record<Side, SpeechChannel>;
  /** Audio calls: each side's synthesis, in order (utterances are placed in turn). */
  readonly #synthesis: Record<Side, Promise<void>> = {
    agent: Promise.resolve(),
    user: Promise.resolve(),
  };
  readonly #placed: LineUtterance[] = [];
  /**
   * Audio calls: each placed utterance's number (`speech_start`'s `utterance`), by which
   * the listener's wire reports it sent; never its audio, which repeats share.
   */
  readonly #numbers = new Map<Turn, number>();
  readonly #byNumber = new Map<number, LineUtterance>();
  /** Audio calls: when each utterance's audio went out on the listener's wire. */
  readonly #sentAt = new Map<LineUtterance, { at: number; wire?: Pcm16 }>();
  /** What the listener heard of each placed utterance that crossed a line, and its SNR. */
  readonly #heard = new Map<Turn, { pcm: Pcm16; snr_db: number | null }>();
  /** The behaviour each caller utterance acted out, when it did. */
  readonly #acts = new Map<Turn, SayAct>();
  /** Received utterances whose text is already the STT's. */
  readonly #transcribed = new WeakSet<Utterance>();
  /** Utterances whose audio a remote end sent (the rest are callbench's synthesis). */
  readonly #received = new WeakSet<Utterance>();
  /** A remote end's utterance is playing: its start was heard before its `say`. */
  readonly #live: Record<Side, boolean> = { agent: false, user: false };
  #cancelSilence: () => void = () => {};
  #cancelLimit: () => void = () => {};
  /** The agent has ended the call with a tool; the end follows the result's delivery. */
  #agentEnded = false;
  /** The agent is ending the call: its turn in progress is being handed over. */
  #agentEnding = false;
  /** End of the caller's last utterance, awaiting the agent's response. */
  #awaitingResponseSince: number | undefined;
  /** The agent has spoken, pressed keys, beeped or called a tool (see `#endSilent`). */
  #agentActed = false;
  /** When a side last said it was talking in a turn not yet ended (`CallLine.active`). */
  #activeAt = -Infinity;
  /** Tool calls of each side since its last turn. */
  readonly #toolCallsInTurn: Record<Side, number> = { agent: 0, user: 0 };
  /** The names of the tools each side was offered, derived once from the setups. */
  readonly #offeredNames: Record<Side, ReadonlySet<string>>;

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
    const channel = (side: Side) =>
      new SpeechChannel(side, this.#clock, spec.timedSpeech, {
        began: (u) => this.#began(side, u),
        finished: (u, interrupted) => this.#finished(side, u, interrupted),
      });
    this.#speech = { agent: channel("agent"), user: channel("user") };
    const names = (setup: CallSetup) => new Set(setup.tools.map((t) => t.name));
    this.#offeredNames = { agent: names(spec.agentSetup), user: names(spec.userSetup) };
  }

  async run(): Promise<CallOutcome> {
    const { agent, user, agentSetup, userSetup, limits } = this.#spec;
    this.#cancelLimit = this.#clock.timer(limits.maxDurationMs, () => this.#end("max_duration"));
    const started = Promise.all([
      this.#start("agent", agent, agentSetup),
      this.#start("user", user, userSetup),
    ]).then(() => {
      if (this.#ended) return;
      // The silence clock runs from the answer: a call still ringing (a SIP INVITE being
      // retransmitted) is not silent, and ends as its own timers say (`agent_unreachable`).
      this.#armSilence();
      this.#outcome.connectedMs = this.#now();
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
    // A simulated clock must not move before both ends are set up; a real one runs
    // on while a slow end is still starting.
    if (this.#clock.simulated) await started;
    else await Promise.race([started, this.#endPromise]);
    if (this.#clock.runUntil) {
      const ended = await this.#clock.runUntil(() => this.#ended);
      if (!ended) this.#endSilent(); // nothing left to happen: the line is dead
    } else await this.#endPromise;
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
    const speech = this.#spec.speech;
    return {
      side,
      clock: this.#clock,
      ...(speech
        ? {
          audio: {
            sampleRate: this.#toneRate(),
            ...(speech.stt ? { stt: speech.stt } : {}),
            ...(speech.dtmf === "inband" ? { inband: true } : {}),
            ...(speech.dtmf === "info" ? { info: true } : {}),
            ...(speech.line?.[this.#other(side)] ? { fill: this.#fill(this.#other(side)) } : {}),
          },
        }
        : {}),
      say: (text, options) =>
        this.#say(
          side,
          text,
          options?.voice,
          options?.ttftMs,
          options?.audio,
          options?.act,
          options?.startMs,
        ),
      startedSpeaking: () => this.#startedSpeaking(side),
      stopSpeaking: () => this.#stopSpeaking(side),
      press: (keys, options) => this.#press(side, keys, options?.inAudio === true, options?.atMs),
      beep: () => {
        if (this.#ended) return;
        if (side === "agent") this.#agentActed = true;
        this.#armSilence();
        if (this.#inband()) return this.#beepInBand(side);
        this.#deliver(this.#other(side), { type: "beep", at: this.#now() });
      },
      callTool: (name, args) => this.#callTool(side, name, args),
      active: () => {
        if (this.#ended) return;
        if (side === "agent") this.#agentActed = true;
        this.#activeAt = this.#now();
      },
      applied: (action) => this.#replayApplied(side, action),
      hangUp: (reason, options) => {
        if (this.#ended) return;
        if (side === "agent" && options?.agentEnd) return this.#agentEnd("agent_end", reason);
        this.#end(side === "agent" ? "agent_hangup" : "user_hangup", reason, side);
      },
      usage: (u: Usage) => {
        const acc = this.#outcome.usage[side];
        acc.calls += 1;
        acc.prompt_tokens += u.prompt_tokens;
        acc.completion_tokens += u.completion_tokens;
      },
      audioSent: (number, atMs, wire, gridMs) => {
        const u = this.#byNumber.get(number);
        if (!u || this.#sentAt.has(u)) return;
        this.#sentAt.set(u, { at: atMs, ...(wire ? { wire } : {}) });
        if (gridMs !== undefined) this.#onTheWire(u, atMs, gridMs);
      },
      trace: (entry) => {
        this.#outcome.traces[side].push({ ...entry, at_ms: this.#now() });
      },
      fail: (error) => this.#fail(side, error),
    };
  }

  #say(
    side: Side,
    rawText: string,
    voice?: Voice,
    ttftMs?: number,
    received?: ReceivedAudio,
    act?: SayAct,
    startMs?: number,
  ): SaidUtterance | void {
    if (this.#ended) return;
    const text = rawText.trim();
    // After end_conversation or a transfer the agent has hung up: later words are not
    // heard (in-process or over a socket alike).
    if (text === "" || (side === "agent" && this.#agentEnded)) return;
    if (side === "agent") this.#agentActed = true;
    if (side === "agent" && isExitText(text)) return this.#agentEnd("agent_end", "exit text");
    // `<exit>…</exit>` inside an agent's speech: the words around it are said, then
    // the call ends as with end_conversation.
    const exit = side === "agent" ? EXIT_IN_TEXT.exec(text) : null;
    if (exit) {
      const said = this.#say(
        side,
        text.replace(EXIT_IN_TEXT, " ").replace(/\s+/g, " "),
        voice,
        ttftMs,
      );
      this.#agentEnd("agent_end", exit[1]?.trim() || "exit text");
      return said;
    }
    // Audio a remote end received began before it was reported; so did a text turn
    // assembled from fragments.
    const began = received && this.#spec.speech ? received.startMs : startMs;
    const now = began !== undefined ? Math.min(began, this.#now()) : this.#now();
    // A turn that began before the caller's ended (a remote agent's, spoken over) is
    // no response to it: the agent's next turn is.
    if (
      side === "agent" && this.#awaitingResponseSince !== undefined &&
      now >= this.#awaitingResponseSince
    ) {
      this.#outcome.latency.push({
        turn: this.#outcome.turns.length,
        response_ms: Math.max(0, now - this.#awaitingResponseSince),
        ...(ttftMs !== undefined ? { ttft_ms: ttftMs } : {}),
      });
      this.#awaitingResponseSince = undefined;
    }
    const speech = this.#spec.speech;
    if (!speech) {
      const placed = this.#place(
        side,
        utterance(text, voice),
        startMs !== undefined ? now : undefined,
        act,
      );
      if (!placed) return;
      // An untimed line cannot tell the speaker when its words are out.
      if (!this.#spec.timedSpeech) return;
      const said = new PendingSaid(this.#clock);
      said.place(placed);
      return said;
    }
    const said = new PendingSaid(this.#clock);
    if (received) {
      // Audio heard on a remote end's wire: placed where it began, after what is queued.
      const u = utterance(text, voice, received.pcm);
      this.#received.add(u);
      const placed = this.#place(side, u, now, act);
      if (placed) {
        if (received.transcribed) this.#transcribed.add(u);
        if (received.interrupted) placed.turn.interrupted = true;
        said.place(placed);
      }
      return said;
    }
    const work = this.#synthesis[side].then(async () => {
      if (this.#ended) return;
      const r = await speech.tts.synthesize({
        text,
        voice: speech.voices?.[side],
        ...(speech.language ? { language: speech.language } : {}),
      });
      if (this.#ended) return;
      if (!r.ok) return this.#fail(side, new SpeechFailure(r.error));
      const audio = act?.gainDb ? withGain(r.audio, act.gainDb) : r.audio;
      const placed = this.#place(side, utterance(text, voice, audio), undefined, act);
      if (placed) said.place(placed);
    });
    this.#synthesis[side] = work;
    this.#clock.hold?.(work);
    return said;
  }

  /** Records the utterance's turn and puts it on the side's line (unless the turn guard ends the call). */
  #place(side: Side, said: Utterance, at?: number, act?: SayAct): LineUtterance | undefined {
    this.#toolCallsInTurn[side] = 0;
    const turn = this.#speech[side].plan(said, at);
    if (act) this.#acts.set(turn, act);
    this.#insertTurn(turn);
    if (this.#outcome.turns.length > this.#spec.limits.maxTurns) {
      this.#end("max_turns");
      return;
    }
    // What the listener hears is known before the words begin (`say` may begin them now).
    const line = this.#spec.speech?.line?.[side];
    if (said.audio && line) {
      const pcm = line.apply(said.audio, turn.start_ms);
      this.#heard.set(turn, { pcm, snr_db: line.snrDb[line.snrDb.length - 1] ?? null });
    }
    // Numbered before `say`, which begins it at once on a free line (its `speech_start`
    // carries the number).
    const number = this.#numbers.size + 1;
    if (said.audio) this.#numbers.set(turn, number);
    const placed = this.#speech[side].say(said, turn);
    if (said.audio) {
      this.#placed.push(placed);
      this.#byNumber.set(number, placed);
    }
    return placed;
  }

  /**
   * The utterance `u` went out on a paced wire, its first sample at `atMs` in its slot
   * `gridMs`: its turn starts when that sample left and ends where its last one is on
   * the grid (a late first chunk is caught up, so the rest is not late with it;
   * utterances back to back stay so). An utterance already cut keeps its cut.
   */
  #onTheWire(u: LineUtterance, atMs: number, gridMs: number): void {
    const turn = u.turn;
    if (turn.interrupted) return;
    // It starts when its first sample left (none could be heard sooner) and ends where
    // its last one is on the grid.
    const length = u.end - u.start;
    turn.start_ms = atMs;
    turn.end_ms = Math.max(atMs, gridMs + length);
  }

  /** A remote end's audio began arriving: the listener hears its start now (for barge-in). */
  #startedSpeaking(side: Side): void {
    if (this.#ended || this.#live[side] || !this.#spec.speech) return;
    this.#live[side] = true;
    if (side === "agent") this.#agentActed = true;
    this.#armSilence();
    this.#deliver(this.#other(side), { type: "speech_start", at: this.#now() });
  }

  /**
   * Records a turn in order of start: a remote end's turn, placed where its audio
   * began, may start before turns already recorded (the caller cutting in on it).
   * Latency entries keep pointing at their turns.
   */
  #insertTurn(turn: Turn): void {
    const turns = this.#outcome.turns;
    const last = turns.length;
    let p = last;
    while (p > 0 && turns[p - 1]!.start_ms > turn.start_ms) p--;
    turns.splice(p, 0, turn);
    if (p === last) return;
    for (const l of this.#outcome.latency) {
      if (l.turn === last) l.turn = p; // this turn's own, recorded just before
      else if (l.turn >= p) l.turn++;
    }
  }

  /** The line noise of `side`'s line, for the other end's silence fill. */
  #fill(side: Side): NonNullable<LineAudio["fill"]> {
    const line = this.#spec.speech!.line![side]!;
    return (samples, from, atMs, rate) => line.fill(samples, from, atMs, rate);
  }

  /** An utterance begins: the listener hears its start (for barge-in). */
  #began(side: Side, u: LineUtterance): void {
    this.#armSilence();
    // A remote end's utterance already heard starting, as it played.
    if (this.#live[side] && this.#received.has(u.utterance)) {
      this.#live[side] = false;
      return;
    }
    const number = this.#numbers.get(u.turn);
    this.#deliver(this.#other(side), {
      type: "speech_start",
      at: this.#now(),
      voice: u.utterance.voice,
      ...(u.utterance.audio ? { audio: this.#heard.get(u.turn)?.pcm ?? u.utterance.audio } : {}),
      ...(number !== undefined ? { utterance: number } : {}),
    });
  }

  /** An utterance ends, whole or cut off: the listener hears the words. */
  #finished(side: Side, u: LineUtterance, cut: boolean): void {
    const now = this.#now();
    // A remote end's own audio is never cut by the line, but if it stopped while the other
    // end spoke over it, it was interrupted all the same: its listener hears it so.
    const interrupted = cut || (this.#received.has(u.utterance) && this.#spokenOver(side, u.turn));
    this.#armSilence();
    if (side === "user") this.#awaitingResponseSince = now;
    const stt = this.#spec.speech?.stt;
    const audio = this.#heard.get(u.turn)?.pcm ?? u.utterance.audio;
    if (stt && side === "agent" && audio && !this.#transcribed.has(u.utterance)) {
      // The caller hears what the STT makes of the agent's audio (as far as it was said).
      const said = interrupted
        ? pcm16(
          audio.samples.subarray(
            0,
            Math.round(((u.turn.end_ms - u.turn.start_ms) * audio.sampleRate) / 1000),
          ),
          audio.sampleRate,
        )
        : audio;
      const language = this.#spec.speech?.language;
      const work = stt.transcribe({ audio: said, ...(language ? { language } : {}) }).then((r) => {
        if (this.#ended) return;
        if (!r.ok) return this.#fail(side, new SpeechFailure(r.error));
        const turn = this.#outcome.turns.indexOf(u.turn);
        (this.#outcome.heard ??= []).push({ turn, text: r.text });
        this.#deliver(this.#other(side), {
          type: "speech",
          at: this.#now(),
          text: r.text,
          ...(u.utterance.voice ? { voice: u.utterance.voice } : {}),
          ...(interrupted ? { interrupted: true } : {}),
        });
      });
      this.#clock.hold?.(work);
      return;
    }
    this.#deliver(this.#other(side), {
      type: "speech",
      at: now,
      text: u.turn.text,
      ...(u.utterance.voice ? { voice: u.utterance.voice } : {}),
      ...(interrupted ? { interrupted: true } : {}),
    });
  }

  /**
   * Whether `turn` stopped while the other end was speaking over it: the other end began
   * a turn inside it, at least {@link SPOKEN_OVER_MS} before its end (a boundary that
   * merely touches is no interruption), and `turn` ended before that one did (a speaker
   * who talked on to the end was heard whole).
   */
  #spokenOver(side: Side, turn: Turn): boolean {
    const other = this.#other(side);
    return this.#outcome.turns.some((t) =>
      t.speaker === other && t.start_ms > turn.start_ms &&
      turn.end_ms - t.start_ms >= SPOKEN_OVER_MS && turn.end_ms <= t.end_ms
    );
  }

  #stopSpeaking(side: Side): void {
    if (this.#ended) return;
    this.#dropTurns(this.#speech[side].stop());
  }

  #dropTurns(turns: readonly Turn[]): void {
    if (turns.length === 0) return;
    const drop = new Set(turns);
    this.#outcome.turns = this.#outcome.turns.filter((t) => !drop.has(t));
  }

  #press(side: Side, keys: string, inAudio = false, atMs?: number): void {
    if (this.#ended) return;
    // Keys stamped when they arrived are recorded then (never later than now).
    const at = Math.min(atMs ?? this.#now(), this.#now());
    if (!isDtmfKeys(keys)) {
      this.#outcome.traces[side].push({ type: "invalid_keys", keys, at_ms: this.#now() });
      return;
    }
    if (side === "agent") this.#agentActed = true;
    this.#armSilence();
    this.#outcome.dtmf.push({ side, keys, at_ms: at });
    // Decoded from the speaker's own audio: the tones are already in its recording.
    if (this.#inband() && !inAudio) return this.#pressInBand(side, keys);
    this.#deliver(this.#other(side), { type: "dtmf", at, keys });
  }

  #inband(): boolean {
    return this.#spec.speech?.dtmf === "inband";
  }

  #toneRate(): number {
    const s = this.#spec.speech!;
    return s.sampleRate ?? s.tts.info.sampleRate ?? 16000;
  }

  /**
   * Plays the keys as tones; the listener hears what the Goertzel detector finds in
   * them as they reach it: after the presser's line, in the listener's wire codec.
   */
  #pressInBand(side: Side, keys: string): void {
    const rate = this.#toneRate();
    const audio = this.#onLine(side, pcm16(dtmfTones(keys, { sampleRate: rate }), rate));
    const wire = this.#participant(this.#other(side)).wireAudio?.(audio) ?? audio;
    const heard = detectDtmf(wire.samples, wire.sampleRate).map((e) => e.key).join("");
    this.#tone(side, { kind: "dtmf", keys, audio, heard }, () => {
      if (heard === "") return;
      this.#deliver(this.#other(side), { type: "dtmf", at: this.#now(), keys: heard });
    });
  }

  /** Plays a beep tone; the listener hears a beep when the beep detector finds one. */
  #beepInBand(side: Side): void {
    const rate = this.#toneRate();
    const audio = this.#onLine(side, pcm16(beepTone({ sampleRate: rate }), rate));
    const wire = this.#participant(this.#other(side)).wireAudio?.(audio) ?? audio;
    const heard = detectBeeps(wire.samples, { sampleRate: wire.sampleRate }).length > 0
      ? "beep"
      : "";
    this.#tone(side, { kind: "beep", audio, heard }, () => {
      if (heard !== "") this.#deliver(this.#other(side), { type: "beep", at: this.#now() });
    });
  }

  /** A tone of `side` begun now, as its line lets it through (the line's noise, loss, codec). */
  #onLine(side: Side, audio: Pcm16): Pcm16 {
    const line = this.#spec.speech?.line?.[side];
    return line && !line.clean ? toMono(line.apply(audio, this.#now())) : audio;
  }

  #tone(
    side: Side,
    t: { kind: "dtmf" | "beep"; keys?: string; audio: Pcm16; heard: string },
    heard: () => void,
  ): void {
    const audio = t.audio;
    // A listener that carries audio hears the tones themselves (after the line).
    this.#deliver(this.#other(side), { type: "tone_start", at: this.#now(), audio });
    (this.#outcome.tones ??= []).push({
      side,
      kind: t.kind,
      audio,
      start_ms: this.#now(),
      ...(t.keys !== undefined ? { keys: t.keys } : {}),
      heard: t.heard,
    });
    if (t.heard !== (t.keys ?? "beep")) {
      this.#outcome.traces[this.#other(side)].push({
        type: "tone_misheard",
        kind: t.kind,
        sent: t.keys ?? "beep",
        heard: t.heard,
        at_ms: this.#now(),
      });
    }
    this.#clock.timer((audio.samples.length * 1000) / audio.sampleRate, () => {
      if (this.#ended) return;
      this.#armSilence();
      heard();
    });
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
    if (++this.#toolCallsInTurn[side] > MAX_TOOL_CALLS_PER_TURN) {
      this.#fail(
        side,
        new ParticipantError(
          side === "agent" ? "protocol_error" : "user_error",
          `the ${side} made more than ${MAX_TOOL_CALLS_PER_TURN} tool calls in one turn`,
        ),
      );
      return Promise.resolve({
        ok: false,
        result: { status: "error", error_type: "call_ended", message: "The call has ended." },
      });
    }
    const def = this.#toolDef(side, name);
    const offered = this.#offeredNames[side];
    if (!offered.has(name) && !(def !== undefined && offered.has(def.name))) {
      // Not offered to this side: refused as the reference refuses an unknown tool,
      // and nothing runs (send_dtmf on a domain that does not offer it included).
      const available = [...offered].sort();
      const result = {
        status: "error",
        error_type: "unknown_tool",
        message: `There is no tool named '${name}'. Use one of the available tools.`,
        available_tools: available,
      };
      this.#outcome.toolCalls.push({ side, name, arguments: args, result, ok: false, at_ms: at });
      return Promise.resolve({ ok: false, result });
    }
    if (def?.effect === "dtmf") {
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
    // A tool with network work to do first (a dense search's embedding) runs after it.
    if (def?.warm) {
      // A simulated clock waits for it, as it waits for a participant's own work.
      const warmed = def.warm(args).catch(() => {});
      this.#clock.hold?.(warmed);
      return warmed.then(() =>
        this.#ended
          ? {
            ok: false,
            result: { status: "error", error_type: "call_ended", message: "The call has ended." },
          }
          : this.#runTool(side, name, args, at, def)
      );
    }
    return Promise.resolve(this.#runTool(side, name, args, at, def));
  }

  /** Runs a tool call on the world and records it (the call was offered and checked). */
  #runTool(
    side: Side,
    name: string,
    args: unknown,
    at: number,
    def: ToolDef | undefined,
  ): ToolCallReply {
    const r = this.#spec.env.call(side, name, args);
    this.#propagate(r.sync);
    this.#outcome.toolCalls.push({
      side,
      name: r.tool,
      arguments: args,
      result: r.result,
      ok: r.ok,
      at_ms: at,
    });
    const ends = def?.effect === "end_call" || def?.effect === "transfer";
    if (r.ok && ends && side === "agent") {
      this.#agentEnd(
        def.effect === "transfer" ? "agent_transfer" : "agent_end",
        r.exit ?? def.effect,
      );
    }
    return { ok: r.ok, result: deliverableResult(r.result) };
  }

  /**
   * `--agent-world self`: a write the agent bot applied to its own world, replayed on
   * the trial's copy of the agent's world (the reference bridge's shadow, §7.3) so
   * the caller's phone follows it. Only dual-control domains react, as there; a
   * replay that fails is noted and skipped.
   */
  #replayApplied(side: Side, action: Record<string, unknown>): void {
    const { env, agentSetup } = this.#spec;
    if (this.#ended || side !== "agent" || !agentSetup.agent_world) return;
    if (!env.domain.sync || !env.userDb) return;
    const r = typeof action.name === "string"
      ? env.call("agent", action.name, action.arguments ?? {})
      : undefined;
    if (!r?.ok) {
      this.#outcome.traces.agent.push({
        type: "shadow_replay_failed",
        action,
        ...(r ? { result: r.result } : {}),
        at_ms: this.#now(),
      });
      return;
    }
    this.#propagate(r.sync);
  }

  /**
   * `--agent-world self`: the agent's side of a sync goes to the bot that owns it;
   * the caller's side is the trial's world, already in line.
   */
  #propagate(sync: SyncDeltas | undefined): void {
    if (!this.#spec.agentSetup.agent_world || !sync) return;
    if (Object.keys(sync.agent).length > 0) this.#spec.agent.applySyncDelta?.(sync.agent);
  }

  /** The domain's or the line's tool a side may call by this name or alias. */
  #toolDef(side: Side, name: string): ToolDef | undefined {
    return this.#spec.env.tool(side, name) ??
      LINE_TOOLS.find((t) => t.side === side && (t.name === name || t.aliases?.includes(name)));
  }

  /**
   * The agent ended the call: once a tool result is delivered (the reference's
   * post-delivery hook) and what the agent already said has been spoken, as a voice
   * bot hangs up after its last words.
   */
  #agentEnd(reason: StopReason, detail?: string): void {
    if (this.#agentEnding) return;
    this.#agentEnding = true;
    // The turn the agent is still saying is its last: it is handed over first.
    const flushed = this.#flushAgent(true);
    if (flushed) {
      void flushed.then(() =>
        this.#agentEnded || this.#ended ? undefined : this.#endAfter(reason, detail)
      );
    } else this.#endAfter(reason, detail);
  }

  /** Asks the agent for its turn in progress; a participant that throws fails the call. */
  #flushAgent(wait: boolean): Promise<void> | void {
    try {
      const r = this.#spec.agent.flush?.({ wait });
      return r ? r.catch((e) => this.#fail("agent", e)) : undefined;
    } catch (e) {
      this.#fail("agent", e);
    }
  }

  /** The agent's end, once its words are out. */
  #endAfter(reason: StopReason, detail?: string): void {
    this.#agentEnded = true;
    const endAfterWords = () => {
      const now = this.#now();
      const spoken = this.#speech.agent.busyUntil(now);
      this.#clock.timer(spoken - now, () => this.#end(reason, detail, "agent"));
    };
    // In audio calls the agent's last words may still be in synthesis.
    if (this.#spec.speech) void this.#synthesis.agent.then(endAfterWords);
    else endAfterWords();
  }

  /** Speech or keys: the 30 s of silence start again from now. */
  #armSilence(ms = this.#spec.limits.silenceMs): void {
    this.#cancelSilence();
    this.#cancelSilence = this.#clock.timer(ms, () => {
      if (this.#speech.agent.speaking ?? this.#speech.user.speaking) {
        this.#armSilence(); // someone is still talking; silence starts when they stop
        return;
      }
      // A side still in the middle of a turn (`CallLine.active`) is no silence either.
      const quietMs = this.#now() - this.#activeAt;
      if (quietMs < this.#spec.limits.silenceMs) {
        return this.#armSilence(this.#spec.limits.silenceMs - quietMs);
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
      : e instanceof SpeechFailure
      ? e.error.kind
      : side === "agent"
      ? "protocol_error"
      : "user_error";
    const message = e instanceof Error ? e.message : String(e);
    this.#outcome.error = { kind, message, side };
    this.#end("error", message, side);
  }

  #end(reason: StopReason, detail?: string, by?: Side): void {
    if (this.#ended) return;
    // Whatever ends the call, the agent's turn in progress is recorded first.
    if (!this.#agentEnded) this.#flushAgent(false);
    if (this.#ended) return;
    this.#ended = true;
    this.#cancelSilence();
    this.#cancelLimit();
    // What was being said is cut where the line went dead; what was queued is unsaid.
    const now = this.#now();
    for (const side of ["agent", "user"] as const) {
      const { unsaid, heard } = this.#speech[side].hangUp();
      // The listener heard the words up to the hangup (a voicemail box keeps them).
      if (heard) {
        this.#deliver(this.#other(side), {
          type: "speech",
          at: now,
          text: heard.turn.text,
          ...(heard.utterance.voice ? { voice: heard.utterance.voice } : {}),
          interrupted: true,
        });
      }
      this.#dropTurns(unsaid);
    }
    this.#outcome.stopReason = reason;
    this.#outcome.cleanExit = reason === "agent_end" || reason === "agent_transfer" ||
      reason === "agent_hangup";
    this.#outcome.durationMs = this.#now();
    if (this.#spec.speech) {
      const said = new Set(this.#outcome.turns);
      this.#outcome.audio = this.#placed.filter((u) => said.has(u.turn)).map((u) => {
        const sent = this.#sentAt.get(u);
        const heard = this.#heard.get(u.turn);
        return {
          side: u.turn.speaker,
          utterance: u.utterance,
          ...(this.#received.has(u.utterance) ? { received: true } : {}),
          start_ms: u.turn.start_ms,
          end_ms: u.turn.end_ms,
          ...(sent !== undefined ? { sent_ms: sent.at } : {}),
          ...(sent?.wire ? { sent_audio: sent.wire } : {}),
          ...(heard ? { heard: heard.pcm, snr_db: heard.snr_db } : {}),
        };
      }).sort((a, b) => a.start_ms - b.start_ms);
    }
    this.#outcome.callerEvents = callerEvents(this.#outcome.turns, this.#acts);
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

/**
 * The client's side of one OpenAI Realtime session, without the socket: what callbench
 * sends and how it plays what it receives, on any `Clock` (a `SimClock` in tests, the
 * real clock on the wire). `./openai_realtime.ts` puts it on the socket and the line.
 *
 * - Out: the caller's speech as `input_audio_buffer.append` in 10 ms chunks on a
 *   fixed grid (`src/audio/pacer.ts`), in real time, as a microphone sends it: with
 *   server turn detection the stream is continuous (silence between utterances);
 *   without, only speech goes out and the end of each utterance is
 *   `input_audio_buffer.commit` + `response.create`.
 * - In: each response's audio (`response.output_audio.delta`, or the beta
 *   `response.audio.delta`) is queued and played out at its own rate, however fast it
 *   arrives; a response is one agent turn, handed over once its audio has played, with
 *   the call time its first sample played, what played, and its transcript. Its start
 *   is told as its first sample plays (`onSpeechStart`), so the caller can cut in.
 * - Tools: `response.function_call_arguments.done` runs the tool (the harness's
 *   world), the result goes back as a `function_call_output` item, and once the
 *   response is done, `response.create`. A tool that ends the call runs once the audio
 *   queued before it has played, so the agent's last words are heard first.
 * - Barge-in: when the server hears the caller start (`speech_started`), or, without
 *   turn detection, when the caller starts speaking, the queued audio is dropped, the
 *   turn ends with what played, and `conversation.item.truncate` tells the server how
 *   much of the item was heard (`audio_end_ms`); without turn detection the response
 *   is also cancelled.
 * - Bounded as every wire is (`./flood_bounds.ts`, `./rtvi_turns.ts`): tool calls (their
 *   rate and their arguments' size over the call), new responses (their rate), a
 *   response's transcript (characters and deltas) and audio, and the traces the
 *   server's events make the call keep. Past
 *   one, `onBound` is told once and the session takes nothing more.
 *
 * @module
 */
import { SentMarks } from "../audio/sent_marks.ts";
import type { Clock, ToolCallReply } from "../bridge/call.ts";
import { mulawDecode, mulawEncode } from "../audio/mulaw.ts";
import { concatSamples, pcm16FromBytes, pcm16ToBytes } from "../audio/pcm.ts";
import { type PacedChunk, Pacer } from "../audio/pacer.ts";
import { decodeBase64 } from "../protocol/audio_payload.ts";
import {
  audioAppend,
  audioCommit,
  functionCallOutput,
  itemTruncate,
  type ReadEvent,
  REALTIME_FORMATS,
  type RealtimeAudioFormat,
  type RealtimeClientEvent,
  type RealtimeTurnDetection,
  type RealtimeUsage,
  responseCancel,
  responseCreate,
} from "../protocol/openai_realtime.ts";
import { checkValueLimits } from "../protocol/limits.ts";
import {
  LeakyBucket,
  MAX_NOTES_CHARS,
  MAX_TURN_AUDIO_MS,
  MIN_NOTE_CHARS,
  ToolCallBounds,
  TURN_AUDIO_EXCEEDED,
} from "./flood_bounds.ts";
import { MAX_TURN_FRAGMENTS, MAX_TURN_TEXT_CHARS } from "./rtvi_turns.ts";

/** The caller's chunk length: 10 ms (the audio reaches the server at most 10 ms after its slot). */
export const REALTIME_CHUNK_MS = 10;
/** Playback's grid: 10 ms. */
const PLAY_CHUNK_MS = 10;
/** Responses a server may start at once (each is kept until the call ends)... */
export const MAX_RESPONSE_BURST = 100;
/** ...and a second, on average, beyond that burst. */
export const RESPONSES_PER_SECOND = 10;
const RESPONSES_EXCEEDED =
  `started responses faster than ${RESPONSES_PER_SECOND} a second (beyond ${MAX_RESPONSE_BURST} at once)`;
/** Agent audio queued and not yet played, at most (a server far ahead of real time is bounded). */
const DEFAULT_MAX_QUEUED_MS = 5 * 60_000;
/**
 * A response whose audio has all played and that got nothing more for this long is a
 * turn as the caller heard it, `response.done` or not (more audio of it later is a turn
 * of its own).
 */
export const RESPONSE_GAP_MS = 1000;

/** One agent turn (one response), as the caller heard it. */
export interface RealtimeTurn {
  responseId: string;
  /** The response's transcript ("" when it sent none). */
  text: string;
  /** What played, PCM16 mono at the session's rate. */
  samples: Int16Array;
  sampleRate: number;
  /** Call time its first sample played. */
  startMs: number;
  /** The caller cut in: `samples` is what played before the cut. */
  interrupted: boolean;
}

export interface RealtimeCallOptions {
  clock: Clock;
  format: RealtimeAudioFormat;
  turnDetection: RealtimeTurnDetection;
  /** Puts one client event on the wire. */
  send: (event: RealtimeClientEvent) => void;
  /** Runs a tool in the trial's world. */
  runTool: (name: string, args: unknown) => Promise<ToolCallReply>;
  /** Whether a tool ends the call (it runs once the audio before it has played). */
  endsCall: (name: string) => boolean;
  /** A response whose audio played (or was cut). */
  onTurn: (turn: RealtimeTurn) => void;
  /**
   * A response's first sample played, at `atMs`: the caller hears the agent start as it
   * plays (so it can cut in), not once the whole response has played.
   */
  onSpeechStart?: (atMs: number) => void;
  /** Agent audio is playing (a chunk of it just played): the line is not silent. */
  onSpeaking?: () => void;
  /** A response's token counts. */
  onUsage: (usage: RealtimeUsage) => void;
  /** A trace entry for the record. */
  trace: (entry: Record<string, unknown>) => void;
  /** The server broke the protocol (the mapping fails the trial with `protocol_error`). */
  fail: (problem: string) => void;
  /** The server went past a bound (see the module doc): told once; nothing more is taken. */
  onBound: (what: string) => void;
  /** Agent audio queued unplayed, at most (default 5 min). */
  maxQueuedMs?: number;
}

/** Counters of the session, for the record. */
export interface RealtimeCallStats {
  /** Caller audio sent, ms (speech and silence). */
  sent_ms: number;
  /** Caller speech sent, ms. */
  sent_speech_ms: number;
  /** Agent audio received, ms. */
  received_ms: number;
  /** Agent audio played, ms. */
  played_ms: number;
  /** Agent audio dropped by barge-in, ms. */
  cleared_ms: number;
  responses: number;
  /** Responses with words but no audio (nothing was heard of them). */
  responses_without_audio: number;
  truncates: number;
  tool_calls: number;
  /** `error` events the server sent during the session. */
  errors: number;
  rate_limit_events: number;
  /** The most agent audio that was queued ahead of playback, ms. */
  max_queued_ms: number;
}

interface PlayWaiter {
  at: number;
  resolve: () => void;
}

interface Response {
  id: string;
  /** Cumulative sample index of its first and past its last queued sample (`first` once audio came). */
  first?: number;
  end: number;
  /** The item whose audio is arriving, and the sample index its audio began at. */
  itemId?: string;
  itemFirst: number;
  played: Int16Array[];
  /** Samples in `played` (the turn's length bound counts samples, not chunks). */
  playedSamples: number;
  playStartMs?: number;
  /** Call time its audio played up to (a later chunk after a gap brings silence first). */
  playEndMs: number;
  transcript: string[];
  /** Characters of its transcript deltas. */
  transcriptChars: number;
  transcriptDone?: string;
  done: boolean;
  /** The caller cut in, or a call-ending tool flushed it: hand over what played. */
  cut: boolean;
  flushed: boolean;
  said: boolean;
  tools: Promise<void>[];
}

/** The client side of one realtime session. */
export class RealtimeCall {
  readonly sampleRate: number;
  readonly #o: RealtimeCallOptions;
  readonly #caller: Pacer;
  /** When each utterance's first sample went out (`speak`'s `onSent`). */
  readonly #callerMarks: SentMarks;
  readonly #playback: Pacer;
  readonly #responses = new Map<string, Response>();
  /** Responses with audio, in playing order. */
  #order: Response[] = [];
  #queuedTotal = 0;
  #playedTotal = 0;
  #playing = false;
  /** Call time the last agent audio played ends, on the playback grid. */
  #playedUntil = -Infinity;
  /** The playback ran dry in the middle of a response: when it has been dry long enough. */
  #cancelGap: (() => void) | undefined;
  #playWaiters: PlayWaiter[] = [];
  #begun = false;
  #ended = false;
  /** A call-ending tool ran: no further response is asked for. */
  #ending = false;
  /** A bound was passed: nothing more is taken. */
  #over = false;
  readonly #toolBounds: ToolCallBounds;
  readonly #responseRate: LeakyBucket;
  /** Characters of the traces the server's events made the call keep. */
  #notesChars = 0;
  readonly #stats: RealtimeCallStats = {
    sent_ms: 0,
    sent_speech_ms: 0,
    received_ms: 0,
    played_ms: 0,
    cleared_ms: 0,
    responses: 0,
    responses_without_audio: 0,
    truncates: 0,
    tool_calls: 0,
    errors: 0,
    rate_limit_events: 0,
    max_queued_ms: 0,
  };

  constructor(options: RealtimeCallOptions) {
    this.#o = options;
    this.sampleRate = REALTIME_FORMATS[options.format].sampleRate;
    this.#toolBounds = new ToolCallBounds(options.clock);
    this.#responseRate = new LeakyBucket(options.clock, MAX_RESPONSE_BURST, RESPONSES_PER_SECOND);
    this.#callerMarks = new SentMarks(this.sampleRate);
    this.#caller = new Pacer({
      clock: options.clock,
      sampleRate: this.sampleRate,
      chunkMs: REALTIME_CHUNK_MS,
      silenceFill: options.turnDetection !== "none",
      onChunk: (chunk) => {
        if (this.#ended) return;
        this.#callerMarks.sent(chunk);
        this.#stats.sent_ms += REALTIME_CHUNK_MS;
        this.#stats.sent_speech_ms += (chunk.audioSamples * 1000) / this.sampleRate;
        this.#o.send(audioAppend(this.#encode(chunk.samples)));
      },
    });
    this.#playback = new Pacer({
      clock: options.clock,
      sampleRate: this.sampleRate,
      chunkMs: PLAY_CHUNK_MS,
      silenceFill: false,
      onChunk: (chunk) => this.#played(chunk),
    });
  }

  /** Starts streaming; asks for the first response when the agent speaks first. */
  begin(agentSpeaksFirst: boolean): void {
    if (this.#begun || this.#ended) return;
    this.#begun = true;
    this.#caller.start();
    if (agentSpeaksFirst) this.#o.send(responseCreate());
  }

  /**
   * Queues the caller's speech (PCM16 at {@link sampleRate}, whole or in pieces as
   * they are ready); resolves once it has been sent. `onSent` hears the time its first
   * sample went out (`SentMarks`).
   */
  async speak(
    speech: Int16Array | AsyncIterable<Int16Array>,
    onSent?: (atMs: number) => void,
  ): Promise<void> {
    if (this.#ended) return;
    // Without turn detection the server hears no barge-in: the client cuts.
    if (this.#o.turnDetection === "none" && this.#agentSpeaking) this.#cut(true);
    if (speech instanceof Int16Array) this.#callerSays(speech, onSent);
    else {
      let first = true;
      for await (const piece of speech) {
        if (this.#ended) return;
        this.#callerSays(piece, first ? onSent : undefined);
        first = false;
      }
    }
    await this.#caller.drained();
    if (this.#ended || this.#o.turnDetection !== "none") return;
    this.#o.send(audioCommit());
    this.#o.send(responseCreate());
  }

  /**
   * Queues caller audio. Speech after a quiet stretch starts a fresh grid now, so it
   * goes out when the caller begins, not on the next slot of the silence's grid.
   */
  #callerSays(samples: Int16Array, onSent?: (atMs: number) => void): void {
    const restart = this.#begun && this.#caller.queuedSamples === 0;
    if (restart) this.#caller.stop();
    this.#callerMarks.queued(samples.length, onSent);
    this.#caller.enqueue(samples);
    if (restart) this.#caller.start();
  }

  /** A response is queued, playing, or in progress (its audio may be still to come). */
  get #agentSpeaking(): boolean {
    if (this.agentAudioPending) return true;
    for (const r of this.#responses.values()) if (!r.done && !r.cut) return true;
    return false;
  }

  /** Agent audio queued and not yet played. */
  get agentAudioPending(): boolean {
    return this.#queuedTotal > this.#playedTotal;
  }

  /** Agent audio queued and not yet played, in ms. */
  get queuedMs(): number {
    return ((this.#queuedTotal - this.#playedTotal) * 1000) / this.sampleRate;
  }

  get stats(): RealtimeCallStats {
    return { ...this.#stats };
  }

  /**
   * Ends the session: nothing more is sent or played. A response heard in part (it never
   * got `response.done`, or the server closed mid-response) is handed over first, as
   * much of it as played: what the caller heard is a turn.
   */
  end(): void {
    if (this.#ended) return;
    if (!this.#over) {
      for (const r of this.#order) if (!r.said) this.#say(r);
      this.#order = [];
    }
    this.#ended = true;
    this.#cancelGap?.();
    this.#caller.stop();
    this.#playback.stop();
    this.#playing = false;
    for (const w of this.#playWaiters) w.resolve();
    this.#playWaiters = [];
  }

  /**
   * Handles one server event of the session (after `session.updated`); `atMs` is when
   * its frame arrived on the call's clock (default now: a frame read late, on a busy
   * thread, plays from when it came, so playback catches up).
   */
  receive(event: ReadEvent | { type: string }, atMs?: number): void {
    if (this.#ended || this.#over) return;
    const e = event as ReadEvent;
    switch (e.type) {
      case "response.created": {
        if (e.response.id) this.#response(e.response.id);
        return;
      }
      case "response.output_audio.delta":
      case "response.audio.delta":
        return this.#audio(e.response_id, e.item_id, e.delta, atMs);
      case "response.output_audio_transcript.delta":
      case "response.audio_transcript.delta":
        return this.#transcriptDelta(this.#response(e.response_id), e.delta);
      case "response.output_audio_transcript.done":
      case "response.audio_transcript.done":
        this.#response(e.response_id).transcriptDone = e.transcript;
        return;
      case "response.function_call_arguments.done":
        return this.#functionCall(e.response_id, e.call_id, e.name, e.arguments);
      case "response.done":
        return this.#responseDone(e.response.id, e.response.status, e.response.usage ?? undefined);
      case "input_audio_buffer.speech_started":
        // The server heard the caller: whatever of a response is queued, still to come or
        // playing is cut, whether or not audio happens to be queued at this instant.
        return this.#cut(false);
      case "error":
        this.#stats.errors++;
        return this.#note({ type: "realtime_error", error: e.error });
      case "rate_limits.updated":
        this.#stats.rate_limit_events++;
        return this.#note({ type: "realtime_rate_limits", rate_limits: e.rate_limits });
      default:
        return; // the other events carry nothing the call needs
    }
  }

  #response(id: string): Response {
    let r = this.#responses.get(id);
    if (!r) {
      r = {
        id,
        end: 0,
        itemFirst: 0,
        played: [],
        playedSamples: 0,
        playEndMs: 0,
        transcript: [],
        transcriptChars: 0,
        done: false,
        cut: false,
        flushed: false,
        said: false,
        tools: [],
      };
      this.#responses.set(id, r);
      this.#stats.responses++;
      // Every response is kept until the call ends: new ones come at a bounded rate.
      if (!this.#responseRate.add(1)) this.#bound(RESPONSES_EXCEEDED);
    }
    return r;
  }

  /** One transcript delta, within a turn's bounds. */
  #transcriptDelta(r: Response, delta: string): void {
    r.transcriptChars += delta.length;
    r.transcript.push(delta);
    if (r.transcriptChars > MAX_TURN_TEXT_CHARS) {
      return this.#bound(`turn exceeded ${MAX_TURN_TEXT_CHARS} characters`);
    }
    if (r.transcript.length > MAX_TURN_FRAGMENTS) {
      return this.#bound(`turn exceeded ${MAX_TURN_FRAGMENTS} fragments`);
    }
  }

  /** A trace the server's events make the call keep, within the notes' bound. */
  #note(entry: Record<string, unknown>): void {
    if (this.#over) return;
    this.#notesChars += Math.max(MIN_NOTE_CHARS, JSON.stringify(entry).length);
    if (this.#notesChars > MAX_NOTES_CHARS) {
      return this.#bound(`sent more than ${MAX_NOTES_CHARS} characters of traces and notes`);
    }
    this.#o.trace(entry);
  }

  /** Past a bound: queued audio and the turns in progress are dropped, nothing more is taken. */
  #bound(what: string): void {
    if (this.#over) return;
    this.#over = true;
    this.end();
    this.#o.onBound(what);
  }

  #encode(samples: Int16Array): Uint8Array {
    return REALTIME_FORMATS[this.#o.format].codec === "mulaw"
      ? mulawEncode(samples)
      : pcm16ToBytes(samples);
  }

  /** One audio delta, arrived at `atMs`: decoded and queued for playback after what is queued. */
  #audio(responseId: string, itemId: string, delta: string, atMs: number | undefined): void {
    const r = this.#response(responseId);
    if (this.#over) return;
    if (r.cut) return; // cut off by the caller: the server is told by the truncate
    const bytes = decodeBase64(delta);
    if (!bytes.ok) return this.#o.fail(`bad audio delta: ${bytes.problem.message}`);
    let samples: Int16Array;
    if (REALTIME_FORMATS[this.#o.format].codec === "mulaw") samples = mulawDecode(bytes.value);
    else {
      const decoded = pcm16FromBytes(bytes.value);
      if (!decoded.ok) return this.#o.fail(`bad audio delta: ${decoded.message}`);
      samples = decoded.samples;
    }
    if (samples.length === 0) return;
    // Handed over after a gap (it never got response.done) and speaking again: a new turn.
    if (r.said) this.#reopen(r);
    const last = this.#order[this.#order.length - 1];
    if (r.first === undefined) {
      r.first = this.#queuedTotal;
      r.end = this.#queuedTotal;
      this.#order.push(r);
    } else if (last !== r) {
      return this.#o.fail(`audio for response ${responseId} after a later response's audio`);
    }
    if (r.itemId !== itemId) {
      r.itemId = itemId;
      r.itemFirst = this.#queuedTotal;
    }
    this.#stats.received_ms += (samples.length * 1000) / this.sampleRate;
    const maxQueued = this.#o.maxQueuedMs ?? DEFAULT_MAX_QUEUED_MS;
    const queuedMs = ((this.#queuedTotal + samples.length - this.#playedTotal) * 1000) /
      this.sampleRate;
    if (queuedMs > maxQueued) {
      return this.#o.fail(`more than ${maxQueued} ms of audio queued ahead of playback`);
    }
    this.#stats.max_queued_ms = Math.max(this.#stats.max_queued_ms, Math.round(queuedMs));
    this.#queuedTotal += samples.length;
    r.end = this.#queuedTotal;
    this.#playback.enqueue(samples);
    this.#cancelGap?.();
    this.#cancelGap = undefined;
    if (!this.#playing) {
      // Playback starts on a fresh grid when the audio arrived, not on a stale slot, and
      // not before the audio before it has ended (its last chunk may still be playing):
      // audio read late (this thread was busy when it came) plays from its arrival, the
      // slots due since then at once, so the queue does not carry the stall.
      this.#playing = true;
      const now = this.#o.clock.now();
      this.#playback.start(Math.max(Math.min(atMs ?? now, now), this.#playedUntil));
    }
  }

  /** A response handed over after a gap has more audio: it plays as a turn of its own. */
  #reopen(r: Response): void {
    r.said = false;
    r.first = undefined;
    r.itemId = undefined;
    r.played = [];
    r.playedSamples = 0;
    r.playStartMs = undefined;
    r.transcript = [];
    r.transcriptDone = undefined;
  }

  /**
   * One 10 ms chunk played to the caller: whose audio it was. It played in its slot on
   * the grid (`dueAt`): a chunk sent late, as the pacer caught up, was due then.
   */
  #played(chunk: PacedChunk): void {
    if (this.#ended) return;
    const n = chunk.audioSamples;
    const from = this.#playedTotal;
    const maxSamples = (MAX_TURN_AUDIO_MS * this.sampleRate) / 1000;
    for (const r of this.#order) {
      if (r.said || r.cut || r.first === undefined) continue;
      const lo = Math.max(from, r.first);
      const hi = Math.min(from + n, r.end);
      if (hi <= lo) continue;
      const at = chunk.dueAt + ((lo - from) * 1000) / this.sampleRate;
      if (r.playStartMs === undefined) {
        r.playStartMs = at;
        r.playEndMs = at;
        this.#o.onSpeechStart?.(r.playStartMs);
      }
      // The playback ran dry inside the response (its audio came late): the caller heard
      // silence there, and the turn's audio keeps it, so what follows is placed right.
      const gap = Math.round(((at - r.playEndMs) * this.sampleRate) / 1000);
      if (gap > 0) {
        r.played.push(new Int16Array(gap));
        r.playedSamples += gap;
      }
      r.played.push(chunk.samples.slice(lo - from, hi - from));
      r.playedSamples += hi - lo;
      r.playEndMs = Math.max(r.playEndMs, at + ((hi - lo) * 1000) / this.sampleRate);
      if (r.playedSamples > maxSamples) return this.#bound(TURN_AUDIO_EXCEEDED);
    }
    this.#playedTotal += n;
    this.#stats.played_ms += (n * 1000) / this.sampleRate;
    if (n > 0) {
      this.#playedUntil = chunk.dueAt + (n * 1000) / this.sampleRate;
      this.#o.onSpeaking?.();
    }
    if (this.#playback.queuedSamples === 0) {
      this.#playback.stop();
      this.#playing = false;
      this.#armGap();
    }
    this.#wakePlayed();
    this.#settle();
  }

  /**
   * The playback ran dry: a response still waiting for its end is handed over once it
   * has been dry for {@link RESPONSE_GAP_MS} (a server that never says `response.done`).
   */
  #armGap(): void {
    this.#cancelGap?.();
    this.#cancelGap = undefined;
    if (!this.#order.some((r) => !r.said && !r.cut)) return;
    this.#cancelGap = this.#o.clock.timer(RESPONSE_GAP_MS, () => {
      this.#cancelGap = undefined;
      if (this.#ended || this.#playing) return;
      for (const r of this.#order) if (!r.said) this.#say(r);
      this.#order = [];
    });
  }

  /** Hands over, in order, every response whose audio has played (or was cut). */
  #settle(): void {
    while (this.#order.length > 0) {
      const r = this.#order[0]!;
      const finished = r.said || r.cut ||
        ((r.done || r.flushed) && this.#playedTotal >= r.end);
      if (!finished) return;
      this.#order.shift();
      if (!r.said) this.#say(r);
    }
  }

  #say(r: Response): void {
    r.said = true;
    if (r.played.length === 0 || r.playStartMs === undefined) return;
    this.#o.onTurn({
      responseId: r.id,
      text: (r.transcriptDone ?? r.transcript.join("")).trim(),
      samples: concatSamples(r.played),
      sampleRate: this.sampleRate,
      startMs: r.playStartMs,
      interrupted: r.cut,
    });
    r.played = [];
    r.playedSamples = 0;
  }

  /**
   * The caller cut in: drop what is queued, hand over what played, tell the server how
   * much of the item was heard. A response still in progress is cut too, whether its
   * audio is playing, has run dry for a moment or has not come yet: what more of it
   * comes is not played.
   */
  #cut(cancel: boolean): void {
    const dropped = this.#playback.clear();
    this.#stats.cleared_ms += (dropped * 1000) / this.sampleRate;
    this.#queuedTotal = this.#playedTotal;
    this.#playback.stop();
    this.#playing = false;
    this.#cancelGap?.();
    this.#cancelGap = undefined;
    for (const r of this.#responses.values()) if (!r.done) r.cut = true;
    let truncated = false;
    for (const r of this.#order) {
      if (r.said) continue;
      r.cut = true;
      if (!truncated && r.itemId !== undefined && r.playStartMs !== undefined) {
        truncated = true;
        this.#stats.truncates++;
        const heardMs = ((this.#playedTotal - r.itemFirst) * 1000) / this.sampleRate;
        this.#o.send(itemTruncate(r.itemId, heardMs));
      }
    }
    if (cancel) this.#o.send(responseCancel());
    this.#wakePlayed();
    this.#settle();
  }

  #functionCall(responseId: string, callId: string, name: string, rawArgs: string): void {
    const over = this.#toolBounds.take(name.length + rawArgs.length);
    if (over) return this.#bound(over);
    const r = this.#response(responseId);
    if (this.#over) return;
    this.#stats.tool_calls++;
    let args: unknown = rawArgs;
    try {
      args = JSON.parse(rawArgs);
    } catch { /* the tool sees the text, and its validation answers */ }
    // Arguments sent as JSON text are a value of their own, bounded like the event.
    const problem = checkValueLimits(args);
    if (problem) return this.#o.fail(`arguments of ${name} ${problem}`);
    const ends = this.#o.endsCall(name);
    if (ends) this.#ending = true;
    const run = async () => {
      // A call-ending tool waits for the words before it to be heard.
      if (ends) {
        await this.#untilPlayed(this.#queuedTotal);
        for (const o of this.#order) if (!o.said) o.flushed = true;
        this.#settle();
      }
      if (this.#ended) return;
      const reply = await this.#o.runTool(name, args);
      if (this.#ended && !ends) return;
      this.#o.send(functionCallOutput(callId, reply.result));
    };
    r.tools.push(run());
  }

  #responseDone(id: string | undefined, status: string | undefined, usage?: RealtimeUsage): void {
    if (usage) this.#o.onUsage(usage);
    if (id === undefined) return;
    const r = this.#response(id);
    r.done = true;
    const words = (r.transcriptDone ?? r.transcript.join("")).trim();
    if (r.first === undefined && words !== "") {
      this.#stats.responses_without_audio++;
      this.#note({ type: "realtime_response_without_audio", response_id: id, text: words });
    }
    if (status && status !== "completed") {
      this.#note({ type: "realtime_response", response_id: id, status });
    }
    if (this.#over) return;
    this.#settle();
    if (r.tools.length === 0) return;
    // Once every tool's output is in, the model answers them.
    void Promise.all(r.tools).then(() => {
      if (!this.#ended && !this.#ending) this.#o.send(responseCreate());
    });
  }

  /** Resolves once `at` samples have played (or the queue was cut, or the call ended). */
  #untilPlayed(at: number): Promise<void> {
    if (this.#playedTotal >= at || this.#ended) return Promise.resolve();
    return new Promise((resolve) => this.#playWaiters.push({ at, resolve }));
  }

  #wakePlayed(): void {
    const still: PlayWaiter[] = [];
    for (const w of this.#playWaiters) {
      if (this.#playedTotal >= w.at || this.#queuedTotal <= this.#playedTotal) w.resolve();
      else still.push(w);
    }
    this.#playWaiters = still;
  }
}

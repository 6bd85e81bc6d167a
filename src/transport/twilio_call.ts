/**
 * Twilio's side of one Media Streams call, without the socket: what callbench, playing
 * Twilio, sends to a phone agent's stream endpoint and how it answers, on any `Clock`
 * (a `SimClock` in tests, the real clock on the wire).
 *
 * - Out: `connected`, `start`, then the caller's audio as continuous 20 ms µ-law
 *   `media` frames on a fixed grid (`src/audio/pacer.ts`), silence when the caller is
 *   quiet, as Twilio streams a live call; `dtmf` per key; `stop` at the end.
 * - In: the agent's `media` goes through an adaptive jitter buffer (a talkspurt starts
 *   playing {@link JITTER_MIN_MS}-{@link JITTER_MAX_MS} after its first frame arrived;
 *   the depth grows by 20 ms after a hole inside a spurt and shrinks back after clean
 *   spurts) and is played out in real time (20 ms a frame, as Twilio plays it to the
 *   caller); a `mark` is echoed once the audio queued before it has played; `clear`
 *   drops the queued audio (barge-in) and echoes every pending mark, as Twilio does,
 *   and ends the agent's turn in progress there, cut off (`interrupted`): the agent
 *   stopped itself. Its audio is what arrived before the `clear` (what the buffer
 *   still held included: its delay is the line's), so the turn ends where the agent
 *   stopped, not a buffer's depth before.
 *   What is played goes through the VAD (`src/audio/vad.ts`) and each stretch of speech
 *   becomes one agent turn; the turn's audio is placed at the time its first frame
 *   arrived (the buffer's own delay is the line's, not the agent's).
 * - Bounded (`./flood_bounds.ts`): `media` more than a minute ahead of real time (the
 *   playback queue), a turn of more than two minutes, `mark`s and `clear`s faster than
 *   {@link MARKS_PER_SECOND} a second beyond a burst of {@link MAX_MARK_BURST}, or a mark
 *   name over {@link MAX_MARK_NAME_CHARS} characters: `onBound` is told once and the
 *   stream takes nothing more.
 *
 * @module
 */
import type { Clock } from "../bridge/call.ts";
import { mulawDecode, mulawEncode } from "../audio/mulaw.ts";
import { type PacedChunk, Pacer } from "../audio/pacer.ts";
import { latenessOf } from "../audio/lateness.ts";
import { SentMarks } from "../audio/sent_marks.ts";
import { placeArrived } from "../audio/arrival.ts";
import { SpeechSegmenter, type Vad } from "../audio/vad.ts";
import { DtmfDetector } from "../audio/dtmf.ts";
import {
  type AgentMessage,
  TWILIO_FRAME_BYTES,
  TWILIO_FRAME_MS,
  TWILIO_MEDIA_FORMAT,
  TwilioStream,
  type TwilioStreamInit,
} from "../protocol/twilio.ts";
import {
  AUDIO_AHEAD_EXCEEDED,
  audioAheadBucket,
  LeakyBucket,
  MAX_TURN_AUDIO_MS,
  TURN_AUDIO_EXCEEDED,
} from "./flood_bounds.ts";

/** The µ-law of the caller's frame being sent (read into base64 before the next). */
const _frameBytes = new Uint8Array(TWILIO_FRAME_BYTES);

/** Twilio's sample rate (8 kHz µ-law). */
export const TWILIO_RATE = TWILIO_MEDIA_FORMAT.sampleRate;
/** Marks an agent may send at once (one per 20 ms frame of a minute's reply is 3,000)... */
export const MAX_MARK_BURST = 4096;
/** ...and a second, on average, beyond that burst. */
export const MARKS_PER_SECOND = 100;
/** Marks and clears share the rate ({@link MAX_MARK_BURST}, {@link MARKS_PER_SECOND}). */
const MARKS_EXCEEDED =
  `sent marks and clears faster than ${MARKS_PER_SECOND} a second (beyond ${MAX_MARK_BURST} at once)`;
/** A mark's name, at most (names are ids). */
export const MAX_MARK_NAME_CHARS = 1024;
/**
 * Audio kept before a detected speech start, so a turn's first syllable is in it: the
 * agent's audio since it last sent none, at most this many frames (1 s).
 */
const PRE_ROLL_FRAMES = 50;
/** The jitter buffer's depth: the least, the most, and its step. */
export const JITTER_MIN_MS = 20;
export const JITTER_MAX_MS = 60;
const JITTER_STEP_MS = 20;
/** A spurt that ran dry and got more audio within this was cut by jitter (a hole). */
const HOLE_MS = 200;

/** A frame played to the caller; `arrivedAt`: when its agent audio arrived (none: silence fill). */
interface PlayedFrame {
  samples: Int16Array;
  /** The agent's samples in it (the rest is the line's silence). */
  audio: Int16Array;
  arrivedAt: number | undefined;
}

/** One agent turn, as the caller heard it. */
export interface HeardTurn {
  /** PCM16 at 8 kHz: the turn's audio as it arrived (from its first frame of agent audio). */
  samples: Int16Array;
  /** Call time the speech started and ended (VAD). */
  startMs: number;
  /**
   * Call time `samples[0]` arrived: the turn's first frame of the agent's audio (the
   * audio it sent since it last sent none, at most 1 s before the speech start), as it
   * reached the caller's end.
   */
  audioStartMs: number;
  endMs: number;
  /** The agent cut it off itself (`clear`). */
  interrupted?: boolean;
}

export interface TwilioCallOptions {
  clock: Clock;
  stream: TwilioStreamInit;
  /** Sends one message to the agent (JSON-serialisable). */
  send: (message: object) => void;
  /** A VAD at 8 kHz, 20 ms frames. */
  vad: Vad;
  /** The agent began speaking (VAD). */
  onSpeechStart?: (atMs: number) => void;
  /** The agent finished a turn (VAD). */
  onTurn: (turn: HeardTurn) => void;
  /** A key decoded from the agent's audio as it played (in-band DTMF, Goertzel). */
  onDtmf?: (key: string) => void;
  /** The line's noise for the silence in a caller frame (`LineAudio.fill`). */
  fill?: (samples: Int16Array, from: number, atMs: number, sampleRate: number) => void;
  /** A frame of the agent's turn in progress was played (it is talking). */
  onSpeaking?: () => void;
  /** VAD hysteresis: silence that ends a turn (default 600 ms). */
  minSilenceMs?: number;
  /** The agent went past a bound (see the module doc): told once; the stream takes nothing more. */
  onBound?: (what: string) => void;
}

/** Counters of what crossed the stream, for the record. */
export interface TwilioCallStats {
  /** Caller audio sent, ms (speech and silence fill). */
  sentMs: number;
  /** Caller speech sent, ms. */
  sentSpeechMs: number;
  /** Agent audio received, ms. */
  receivedMs: number;
  /** Agent audio dropped by `clear`, ms. */
  clearedMs: number;
  /** Holes: a talkspurt ran dry and more audio came within 200 ms. */
  underruns: number;
  /** The jitter buffer's depth at the end, ms. */
  jitterMs: number;
  /** How late the caller's frames went out after their slot on the 20 ms grid (ms). */
  late_ms: { p50: number; p99: number; max: number };
  marksEchoed: number;
  clears: number;
}

/** Twilio's side of one stream. */
export class TwilioCall {
  readonly stream: TwilioStream;
  readonly #o: TwilioCallOptions;
  readonly #caller: Pacer;
  readonly #callerMarks = new SentMarks(TWILIO_RATE);
  readonly #playback: Pacer;
  readonly #segmenter: SpeechSegmenter;
  /** Agent samples queued for playback so far, and played so far. */
  #queuedTotal = 0;
  #playedTotal = 0;
  /** Marks waiting for their audio to play, in order. */
  #marks: { name: string; at: number }[] = [];
  /** Call time of the first played frame (the VAD's time zero). */
  #playStart = 0;
  #recent: PlayedFrame[] = [];
  #turn?: { startMs: number; audioStartMs: number; chunks: PlayedFrame[] };
  /** Agent samples played or dropped so far (the index into what arrived). */
  #playedAudio = 0;
  /** Frames of the line's own silence played in a row. */
  #fillRun = 0;
  #begun = false;
  #ended = false;
  /** A bound was passed: nothing more is taken. */
  #over = false;
  readonly #ahead: LeakyBucket;
  readonly #markRate: LeakyBucket;
  readonly #stats: TwilioCallStats = {
    sentMs: 0,
    sentSpeechMs: 0,
    receivedMs: 0,
    clearedMs: 0,
    underruns: 0,
    jitterMs: JITTER_MIN_MS,
    late_ms: { p50: 0, p99: 0, max: 0 },
    marksEchoed: 0,
    clears: 0,
  };
  /** Each caller frame's lateness, ms. */
  #late: number[] = [];
  /** Jitter buffer: audio held before its spurt starts playing, and the spurt's state. */
  #held: Int16Array[] = [];
  #spurt: "idle" | "buffering" | "playing" = "idle";
  #depthMs = JITTER_MIN_MS;
  #cancelBuffer: () => void = () => {};
  /** When the last spurt ran dry (a hole if more audio comes soon). */
  #dryAt = -Infinity;
  /** Arrival of agent audio: cumulative sample index of each media's first sample, and when. */
  #arrivals: { from: number; at: number }[] = [];
  #arrivedTotal = 0;

  /** In-band keys in the agent's audio. */
  readonly #dtmf?: DtmfDetector;

  constructor(options: TwilioCallOptions) {
    this.#o = options;
    this.#ahead = audioAheadBucket(options.clock);
    this.#markRate = new LeakyBucket(options.clock, MAX_MARK_BURST, MARKS_PER_SECOND);
    if (options.onDtmf) this.#dtmf = new DtmfDetector({ sampleRate: TWILIO_RATE });
    this.stream = new TwilioStream(options.stream);
    this.#segmenter = new SpeechSegmenter({
      frameMs: TWILIO_FRAME_MS,
      minSilenceMs: options.minSilenceMs ?? 600,
    });
    this.#caller = new Pacer({
      clock: options.clock,
      sampleRate: TWILIO_RATE,
      chunkMs: TWILIO_FRAME_MS,
      onChunk: (chunk) => {
        if (this.#ended) return;
        this.#callerMarks.sent(chunk);
        this.#late.push(chunk.sentAt - chunk.dueAt);
        this.#stats.sentMs += TWILIO_FRAME_MS;
        this.#stats.sentSpeechMs += (chunk.audioSamples * 1000) / TWILIO_RATE;
        let samples = chunk.samples;
        if (this.#o.fill && chunk.audioSamples < samples.length) {
          // In a copy: the pacer's chunk may be shared.
          samples = samples.slice();
          const at = chunk.dueAt + (chunk.audioSamples * 1000) / TWILIO_RATE;
          this.#o.fill(samples, chunk.audioSamples, at, TWILIO_RATE);
        }
        // Its bytes are base64 at once: one buffer for every frame (one each would bring the
        // next full GC nearer).
        this.#o.send(this.stream.media(mulawEncode(samples, _frameBytes)));
      },
    });
    this.#playback = new Pacer({
      clock: options.clock,
      sampleRate: TWILIO_RATE,
      chunkMs: TWILIO_FRAME_MS,
      onChunk: (chunk) => this.#played(chunk),
    });
  }

  /** Sends `connected` and `start`, and starts streaming (silence until the caller speaks). */
  begin(): void {
    if (this.#begun) return;
    this.#begun = true;
    this.#o.send(this.stream.connected());
    this.#o.send(this.stream.start());
    this.#playStart = this.#o.clock.now();
    this.#caller.start();
    this.#playback.start();
  }

  /**
   * Queues the caller's speech (PCM16 at 8 kHz); resolves once it has been sent.
   * `onSent` hears the time its first sample went out, and its slot on the grid
   * (`SentMarks`).
   */
  speak(samples: Int16Array, onSent?: (atMs: number, gridMs: number) => void): Promise<void> {
    if (this.#ended) return Promise.resolve();
    this.#callerMarks.queued(samples.length, onSent);
    this.#caller.enqueue(samples);
    return this.#caller.drained();
  }

  /** The caller pressed keys: one `dtmf` message each. */
  press(keys: string): void {
    if (this.#ended || !this.#begun) return;
    for (const key of keys) this.#o.send(this.stream.dtmf(key));
  }

  /** Handles one message from the agent. */
  receive(message: AgentMessage): void {
    if (this.#ended || this.#over) return;
    switch (message.event) {
      case "media": {
        const ms = (message.mulaw.length * 1000) / TWILIO_RATE;
        // A frame counts as at least one 20 ms frame: empty ones flood too.
        if (!this.#ahead.add(Math.max(TWILIO_FRAME_MS, ms))) {
          return this.#bound(AUDIO_AHEAD_EXCEEDED);
        }
        const samples = mulawDecode(message.mulaw);
        if (samples.length === 0) return;
        this.#stats.receivedMs += ms;
        this.#queuedTotal += samples.length;
        this.#arrivals.push({ from: this.#arrivedTotal, at: this.#o.clock.now() });
        this.#arrivedTotal += samples.length;
        return this.#buffer(samples);
      }
      case "mark":
        if (message.name.length > MAX_MARK_NAME_CHARS) {
          return this.#bound(`sent a mark name over ${MAX_MARK_NAME_CHARS} characters`);
        }
        if (!this.#markRate.add(1)) {
          return this.#bound(MARKS_EXCEEDED);
        }
        this.#marks.push({ name: message.name, at: this.#queuedTotal });
        return this.#echoMarks();
      case "clear": {
        if (!this.#markRate.add(1)) return this.#bound(MARKS_EXCEEDED);
        this.#stats.clears++;
        const queued = this.#playback.takeQueued();
        const unplayed = [queued, ...this.#held];
        const held = this.#held.reduce((n, h) => n + h.length, 0);
        this.#held = [];
        this.#cancelBuffer();
        this.#spurt = "idle";
        const dropped = queued.length + held;
        const turn = this.#turn;
        if (turn) {
          // What arrived before the clear is what the agent said (placed as it arrived).
          let index = this.#playedAudio;
          for (const audio of unplayed) {
            if (audio.length === 0) continue;
            turn.chunks.push({ samples: audio, audio, arrivedAt: this.#arrivalOf(index) });
            index += audio.length;
          }
          this.#segmenter.flush();
          this.#endTurn(this.#o.clock.now() - this.#playStart, true);
        }
        this.#playedAudio += dropped;
        this.#stats.clearedMs += (dropped * 1000) / TWILIO_RATE;
        this.#queuedTotal = this.#playedTotal;
        return this.#echoMarks(true);
      }
    }
  }

  /** Agent audio queued and not yet played, in ms. */
  get queuedMs(): number {
    return ((this.#queuedTotal - this.#playedTotal) * 1000) / TWILIO_RATE;
  }

  get stats(): TwilioCallStats {
    return {
      ...this.#stats,
      jitterMs: this.#depthMs,
      late_ms: latenessOf(this.#late),
    };
  }

  /** Agent audio into the jitter buffer: a new spurt waits the buffer's depth, then plays. */
  #buffer(samples: Int16Array): void {
    if (this.#spurt === "playing") return this.#playback.enqueue(samples);
    this.#held.push(samples);
    if (this.#spurt === "buffering") return;
    const now = this.#o.clock.now();
    if (now - this.#dryAt <= HOLE_MS) {
      // The last spurt ran dry just before this audio came: jitter made a hole; deepen.
      this.#stats.underruns++;
      this.#depthMs = Math.min(JITTER_MAX_MS, this.#depthMs + JITTER_STEP_MS);
    } else {
      // A clean end of speech: the depth eases back toward the least.
      this.#depthMs = Math.max(JITTER_MIN_MS, this.#depthMs - JITTER_STEP_MS / 2);
    }
    this.#spurt = "buffering";
    this.#cancelBuffer = this.#o.clock.timer(this.#depthMs, () => {
      this.#cancelBuffer = () => {};
      this.#spurt = "playing";
      for (const h of this.#held) this.#playback.enqueue(h);
      this.#held = [];
    });
  }

  /** When agent sample `index` (cumulative) arrived. */
  #arrivalOf(index: number): number {
    while (this.#arrivals.length > 1 && this.#arrivals[1]!.from <= index) this.#arrivals.shift();
    const a = this.#arrivals[0];
    if (!a) return this.#o.clock.now();
    return a.at + ((index - a.from) * 1000) / TWILIO_RATE;
  }

  /** Ends the stream: a turn in progress ends, `stop` is sent, nothing more. */
  end(): void {
    if (this.#ended) return;
    for (const e of this.#segmenter.flush()) if (e.type === "end") this.#endTurn(e.atMs);
    this.#ended = true;
    this.#caller.stop();
    this.#playback.stop();
    this.#cancelBuffer();
    if (this.#begun) this.#o.send(this.stream.stop());
  }

  /** Past a bound: the queue and the turn are dropped, nothing more is taken, `onBound` is told. */
  #bound(what: string): void {
    if (this.#over) return;
    this.#over = true;
    this.#playback.clear();
    this.#queuedTotal = this.#playedTotal;
    this.#marks = [];
    this.#turn = undefined;
    this.#o.onBound?.(what);
  }

  /** One 20 ms frame played to the caller: marks, VAD, turn audio. */
  #played(chunk: PacedChunk): void {
    if (this.#ended || this.#over) return;
    const { samples, audioSamples } = chunk;
    this.#playedTotal += audioSamples;
    if (this.#spurt === "playing" && audioSamples < samples.length) {
      // The spurt ran dry: the next audio starts a new one (after the buffer's depth).
      this.#spurt = "idle";
      this.#dryAt = chunk.dueAt + (audioSamples * 1000) / TWILIO_RATE;
    }
    this.#echoMarks();
    for (const e of this.#dtmf?.push(samples) ?? []) this.#o.onDtmf!(e.key);
    // Frames with agent audio in them, with the arrival of their first agent sample.
    const frame: PlayedFrame = {
      samples,
      audio: samples.subarray(0, audioSamples),
      arrivedAt: audioSamples > 0 ? this.#arrivalOf(this.#playedAudio) : undefined,
    };
    this.#playedAudio += audioSamples;
    this.#fillRun = frame.arrivedAt === undefined ? this.#fillRun + 1 : 0;
    if (this.#turn) {
      this.#turn.chunks.push(frame);
      if (this.#turn.chunks.length * TWILIO_FRAME_MS > MAX_TURN_AUDIO_MS) {
        return this.#bound(TURN_AUDIO_EXCEEDED);
      }
      this.#o.onSpeaking?.();
    } else {
      // The agent has sent nothing for a while: its next audio is a new pre-roll (a shorter
      // hole is the playout's, inside what it is saying).
      if (this.#fillRun * TWILIO_FRAME_MS >= HOLE_MS) this.#recent = [];
      this.#recent.push(frame);
      if (this.#recent.length > PRE_ROLL_FRAMES) this.#recent.shift();
    }
    for (const e of this.#segmenter.push(this.#o.vad.process(samples))) {
      if (e.type === "start") {
        const startMs = this.#playStart + e.atMs;
        // The pre-roll: from its first frame of agent audio (not the line's own silence).
        const first = this.#recent.findIndex((f) => f.arrivedAt !== undefined);
        if (first < 0) {
          // The VAD's own tail (after a clear) on the line's silence: no agent turn.
          this.#segmenter.flush();
          continue;
        }
        const chunks = this.#recent.slice(first);
        const audioStartMs = chunks[0]!.arrivedAt!;
        this.#turn = { startMs, audioStartMs, chunks };
        this.#recent = [];
        this.#o.onSpeechStart?.(startMs);
      } else this.#endTurn(e.atMs);
    }
  }

  #endTurn(atMs: number, interrupted = false): void {
    const turn = this.#turn;
    this.#turn = undefined;
    if (!turn) return;
    this.#o.onTurn({
      // As it reached the caller: a hole the playout made is not one in what was said.
      samples: placeArrived(
        turn.chunks.flatMap((c) =>
          c.arrivedAt === undefined ? [] : [{ samples: c.audio, at: c.arrivedAt }]
        ),
        TWILIO_RATE,
      )?.samples ?? new Int16Array(0),
      startMs: turn.startMs,
      audioStartMs: turn.audioStartMs,
      endMs: this.#playStart + atMs,
      ...(interrupted ? { interrupted: true } : {}),
    });
  }

  /** Echoes marks whose audio has played (every pending one when `all`). */
  #echoMarks(all = false): void {
    while (this.#marks.length > 0 && (all || this.#marks[0]!.at <= this.#playedTotal)) {
      const mark = this.#marks.shift()!;
      this.#stats.marksEchoed++;
      this.#o.send(this.stream.mark(mark.name));
    }
  }
}

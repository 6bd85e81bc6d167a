/**
 * Audio on an RTVI wire (`eval --audio` with a remote agent), both directions:
 *
 * - Out, {@link CallerAudioStream}: the other end's utterances (the bridge's
 *   synthesis, handed over with each `speech_start`) go out in real time as the
 *   reference bridge sends them: 16 kHz mono PCM16 in 16 ms (512-byte) chunks on a
 *   fixed grid (`src/audio/pacer.ts`), silence in between, from the call's start to
 *   its end. Each chunk is one pipecat `AudioRawFrame` (protobuf framing) or one RTVI
 *   `raw-audio` message (JSON framing).
 * - In, {@link PeerAudioReceiver}: the bot's `AudioRawFrame`s and `bot-tts-audio`
 *   messages, each at the rate it names (the reference assumes 24 kHz whatever the
 *   frame says; PROTOCOL.md), are decoded, made mono, resampled to the line's rate
 *   and kept until the turn ends; a VAD (`src/audio/vad.ts`) finds turn ends for bots
 *   that do not bracket their speech with `bot-started/stopped-speaking`. What it
 *   keeps is bounded (`./flood_bounds.ts`): audio more than a minute ahead of real
 *   time, or a turn of more than two minutes, is reported to `onBound` once and
 *   nothing more is kept.
 *
 * @module
 */
import type { Clock } from "../bridge/call.ts";
import {
  type Pcm16,
  pcm16,
  pcm16ByteProblem,
  pcm16BytesView,
  pcm16Samples,
  toMono,
} from "../audio/pcm.ts";
import { type PacedChunk, Pacer } from "../audio/pacer.ts";
import { latenessOf } from "../audio/lateness.ts";
import { SentMarks } from "../audio/sent_marks.ts";
import { type ArrivedFrame, placeArrived } from "../audio/arrival.ts";
import { resample, Resampler } from "../audio/resample.ts";
import { SpeechSegmenter, type Vad } from "../audio/vad.ts";
import { DtmfDetector } from "../audio/dtmf.ts";
import type { PcmAudio } from "../protocol/audio_payload.ts";
import {
  AUDIO_AHEAD_EXCEEDED,
  audioAheadBucket,
  type LeakyBucket,
  MAX_TURN_AUDIO_MS,
  MIN_FRAME_MS,
  TURN_AUDIO_EXCEEDED,
} from "./flood_bounds.ts";

/** The rate the caller's audio goes out at (the reference's 16 kHz). */
export const WIRE_SEND_RATE = 16000;
/** One chunk's length: 16 ms, 256 samples, 512 bytes at 16 kHz. */
export const WIRE_CHUNK_MS = 16;

/**
 * The chunk a {@link CallerAudioStream} sends for a slot of pure silence: always this
 * object, so what carries it (a frame) can be encoded once. Never to be written to.
 */
export const SILENT_WIRE_CHUNK: PcmAudio = Object.freeze({
  pcm: new Uint8Array((WIRE_SEND_RATE * WIRE_CHUNK_MS / 1000) * 2),
  sampleRate: WIRE_SEND_RATE,
  numChannels: 1,
});

/** What a {@link CallerAudioStream} has sent so far. */
export interface StreamStats {
  /** Chunks sent (speech and silence). */
  chunks: number;
  /** Chunks holding some speech. */
  speechChunks: number;
  /** Milliseconds of speech sent. */
  speechMs: number;
  /** Samples dropped by barge-in. */
  clearedSamples: number;
  /** How late chunks went out after their slot on the grid (ms): median, 99th percentile, max. */
  late_ms: { p50: number; p99: number; max: number };
}

export interface CallerAudioStreamOptions {
  clock: Clock;
  /** Puts one chunk (PCM16 at {@link WIRE_SEND_RATE}, mono) on the wire. */
  send: (audio: PcmAudio) => void;
  /** Sees each chunk as paced (lateness measurements). */
  onChunk?: (chunk: PacedChunk) => void;
  /** The line's noise for the silence in a chunk (`LineAudio.fill`). */
  fill?: (samples: Int16Array, from: number, atMs: number, sampleRate: number) => void;
  /** The rate chunks go out at (default {@link WIRE_SEND_RATE}; WebRTC's Opus: 48 kHz). */
  sampleRate?: number;
  /** One chunk's length (default {@link WIRE_CHUNK_MS}; WebRTC's Opus: 20 ms). */
  chunkMs?: number;
}

/** The caller's side of the audio, paced onto the wire. */
export class CallerAudioStream {
  readonly #pacer: Pacer;
  readonly #options: CallerAudioStreamOptions;
  readonly #stats = { chunks: 0, speechChunks: 0, speechMs: 0, clearedSamples: 0 };
  readonly #rate: number;
  readonly #marks: SentMarks;
  /** The chunk sent for a slot of pure silence (one object, so its encoding can be kept). */
  readonly silentChunk: PcmAudio;
  /** Each chunk's lateness, ms (a real call of 15 min keeps 56,250 of them). */
  #late: number[] = [];

  constructor(options: CallerAudioStreamOptions) {
    this.#options = options;
    const rate = this.#rate = options.sampleRate ?? WIRE_SEND_RATE;
    const chunkMs = options.chunkMs ?? WIRE_CHUNK_MS;
    this.#marks = new SentMarks(rate);
    this.silentChunk = rate === WIRE_SEND_RATE && chunkMs === WIRE_CHUNK_MS
      ? SILENT_WIRE_CHUNK
      : Object.freeze({
        pcm: new Uint8Array((rate * chunkMs / 1000) * 2),
        sampleRate: rate,
        numChannels: 1,
      });
    this.#pacer = new Pacer({
      clock: options.clock,
      sampleRate: rate,
      chunkMs,
      onChunk: (chunk) => {
        this.#stats.chunks++;
        this.#late.push(chunk.sentAt - chunk.dueAt);
        this.#marks.sent(chunk);
        if (chunk.audioSamples > 0) {
          this.#stats.speechChunks++;
          this.#stats.speechMs += (chunk.audioSamples * 1000) / rate;
        }
        options.onChunk?.(chunk);
        const fill = options.fill;
        const filled = fill !== undefined && chunk.audioSamples < chunk.samples.length;
        let samples = chunk.samples;
        if (filled) {
          // The line's noise fills the silence, in a copy: the pacer's chunk may be shared.
          samples = samples.slice();
          const at = chunk.dueAt + (chunk.audioSamples * 1000) / rate;
          fill(samples, chunk.audioSamples, at, rate);
        }
        options.send(
          chunk.audioSamples === 0 && !filled ? this.silentChunk : {
            // The chunk's own bytes, not a copy: what takes them sends them at once.
            pcm: pcm16BytesView(samples),
            sampleRate: rate,
            numChannels: 1,
          },
        );
      },
    });
  }

  /** Starts the grid (silence until something is played). */
  start(): void {
    this.#pacer.start();
  }

  /**
   * Queues an utterance's audio (any rate, mono or stereo) after what is queued;
   * `onSent` hears the time its first sample goes out, and its slot on the grid
   * (`SentMarks`).
   */
  play(audio: Pcm16, onSent?: (atMs: number, gridMs: number) => void): void {
    const mono = toMono(audio);
    const samples = mono.sampleRate === this.#rate
      ? mono.samples
      : resample(mono.samples, mono.sampleRate, this.#rate);
    this.#marks.queued(samples.length, onSent);
    this.#pacer.enqueue(samples);
  }

  /** Barge-in or a cut: drops what is still queued (silence follows). */
  clear(): void {
    this.#stats.clearedSamples += this.#pacer.clear();
    this.#marks.cleared();
  }

  /** Stops sending. */
  stop(): void {
    this.#pacer.stop();
  }

  get stats(): StreamStats {
    return {
      ...this.#stats,
      late_ms: latenessOf(this.#late),
    };
  }
}

/** One stretch of the peer's audio, as the line is given it. */
export interface HeardAudio {
  pcm: Pcm16;
  /** Call time its first frame arrived (later frames placed as heard: `placeArrived`). */
  startMs: number;
}

/** What a {@link PeerAudioReceiver} has taken in. */
export interface ReceiveStats {
  frames: number;
  /** Milliseconds of audio received (at the frames' own rates). */
  receivedMs: number;
  /** The rates seen, Hz. */
  rates: number[];
}

export interface PeerAudioReceiverOptions {
  clock: Clock;
  /** The line's rate: what the audio is resampled to. */
  sampleRate: number;
  /** A VAD at `sampleRate`: turn ends for bots that do not bracket their speech. */
  vad?: Vad;
  /** VAD hysteresis: silence that ends a turn (default 600 ms). */
  minSilenceMs?: number;
  /** The VAD heard a turn end (not called for bots that bracket their speech). */
  onVadTurnEnd?: () => void;
  /** The peer's audio went past a bound (`./flood_bounds.ts`): told once, then nothing is kept. */
  onBound?: (what: string) => void;
  /** The VAD heard speech begin (not called for bots that bracket their speech). */
  onVadTurnStart?: () => void;
  /** A key decoded from the peer's audio (in-band DTMF, Goertzel). */
  onDtmf?: (key: string) => void;
}

/** A turn's first buffer holds this much audio; it doubles as the turn goes on. */
const TURN_BUFFER_START_MS = 2_000;
/** A turn's buffer up to this size is kept for the next turn (bigger ones are let go). */
const KEPT_TURN_BUFFER_MS = 16_000;

/** The peer's audio, decoded and kept per turn. */
export class PeerAudioReceiver {
  readonly #o: PeerAudioReceiverOptions;
  readonly #resamplers = new Map<number, Resampler>();
  readonly #segmenter?: SpeechSegmenter;
  readonly #dtmf?: DtmfDetector;
  #chunks: ArrivedFrame[] = [];
  #length = 0;
  /**
   * The turn's mono audio, which `#chunks` are views of: `#used` samples of it are
   * written. When it is full a bigger one takes its place (the views keep the old one
   * until the turn is taken); after a take it is written again from the start, kept
   * while it is no bigger than `KEPT_TURN_BUFFER_MS`.
   */
  #turn = new Int16Array(0);
  #used = 0;
  #startMs: number | undefined;
  #speaking = false;
  #cancelGap: () => void = () => {};
  /** The bot brackets its speech: the VAD does not end turns. */
  bracketed = false;
  readonly #stats: ReceiveStats = { frames: 0, receivedMs: 0, rates: [] };
  /** Audio received ahead of real time. */
  readonly #ahead: LeakyBucket;
  /** A bound was passed: nothing more is taken. */
  #over = false;

  constructor(options: PeerAudioReceiverOptions) {
    this.#o = options;
    this.#ahead = audioAheadBucket(options.clock);
    if (options.onDtmf) this.#dtmf = new DtmfDetector({ sampleRate: options.sampleRate });
    if (options.vad) {
      this.#segmenter = new SpeechSegmenter({
        frameMs: options.vad.frameMs,
        minSilenceMs: options.minSilenceMs ?? 600,
      });
    }
  }

  /**
   * Takes one frame's audio (already past the payload guard: a known rate, whole
   * sample frames), which arrived at `arrivedAt` (default now: a wire whose frames are
   * held before they are taken, WebRTC's jitter buffer, says when they came). Returns a
   * problem message for audio that cannot be used.
   */
  push(audio: PcmAudio, arrivedAt?: number): string | undefined {
    if (this.#over) return;
    // It arrived now: before the work on it (a first frame's resampler takes a while to make).
    const now = arrivedAt ?? this.#o.clock.now();
    const problem = pcm16ByteProblem(audio.pcm.length);
    if (problem) return problem;
    const count = audio.pcm.length / 2;
    const frameMs = (count * 1000) / (audio.sampleRate * audio.numChannels);
    if (!this.#ahead.add(Math.max(MIN_FRAME_MS, frameMs))) return this.#bound(AUDIO_AHEAD_EXCEEDED);
    if (count === 0) return;
    this.#stats.frames++;
    this.#stats.receivedMs += (count * 1000) / (audio.sampleRate * audio.numChannels);
    if (!this.#stats.rates.includes(audio.sampleRate)) this.#stats.rates.push(audio.sampleRate);
    let resampler: Resampler | undefined;
    if (audio.sampleRate !== this.#o.sampleRate) {
      const made = this.#resampler(audio.sampleRate);
      if (typeof made === "string") return made;
      resampler = made;
    }
    let samples: Int16Array;
    if (audio.numChannels !== 2) {
      // Mono audio goes from its bytes straight into the turn's buffer, resampled or not:
      // no array is made for a frame only passing through (each one made brings the next
      // full GC nearer, and a GC's pause makes every pacer late).
      samples = resampler
        ? resampler.processBytes(audio.pcm, this.#room(resampler.outputFor(count)))
        : pcm16Samples(audio.pcm, this.#room(count));
      this.#used += samples.length;
    } else {
      const mono = toMono(pcm16(pcm16Samples(audio.pcm), audio.sampleRate, 2)).samples;
      samples = resampler ? resampler.process(mono) : mono;
    }
    // Kept with its arrival: placed as heard when the turn is taken (`placeArrived`).
    this.#startMs ??= now;
    this.#chunks.push({ samples, at: now });
    this.#length += samples.length;
    if (this.#length > (MAX_TURN_AUDIO_MS * this.#o.sampleRate) / 1000) {
      return this.#bound(TURN_AUDIO_EXCEEDED);
    }
    this.#vad(samples);
    for (const e of this.#dtmf?.push(samples) ?? []) this.#o.onDtmf!(e.key);
    this.#armGap();
  }

  /** Room for `count` more samples in the turn's buffer (a bigger buffer when it is full). */
  #room(count: number): Int16Array {
    if (this.#used + count > this.#turn.length) {
      const start = (TURN_BUFFER_START_MS * this.#o.sampleRate) / 1000;
      this.#turn = new Int16Array(Math.max(count, 2 * this.#turn.length, start));
      this.#used = 0;
    }
    return this.#turn.subarray(this.#used, this.#used + count);
  }

  /** The turn's audio is placed or dropped: nothing is kept, and its buffer can be written again. */
  #dropTurn(): void {
    this.#chunks = [];
    this.#length = 0;
    this.#startMs = undefined;
    this.#used = 0;
    if (this.#turn.length > (KEPT_TURN_BUFFER_MS * this.#o.sampleRate) / 1000) {
      this.#turn = new Int16Array(0);
    }
  }

  /** The resampler from `rate` to the receiver's rate, made on first use; a message if none can be. */
  #resampler(rate: number): Resampler | string {
    let r = this.#resamplers.get(rate);
    if (!r) {
      try {
        r = new Resampler(rate, this.#o.sampleRate);
      } catch (e) {
        return (e as Error).message;
      }
      this.#resamplers.set(rate, r);
    }
    return r;
  }

  /**
   * A bot that sends audio only while it speaks sends no silence to hear: the turn
   * also ends once its audio would have played out, plus the hysteresis, with no more.
   */
  #armGap(): void {
    this.#cancelGap();
    if (this.bracketed || !this.#o.vad || this.#startMs === undefined) return;
    const clock = this.#o.clock;
    const playedOut = this.#startMs + (this.#length * 1000) / this.#o.sampleRate;
    const wait = Math.max(0, playedOut - clock.now()) + (this.#o.minSilenceMs ?? 600);
    this.#cancelGap = clock.timer(wait, () => {
      this.#cancelGap = () => {};
      if (this.bracketed || !this.hasAudio) return;
      this.#speaking = false;
      this.#o.onVadTurnEnd?.();
    });
  }

  /** Stops the gap timer (the call is over). */
  cancel(): void {
    this.#cancelGap();
  }

  /** Past a bound: what is kept is dropped, nothing more is taken, `onBound` is told. */
  #bound(what: string): undefined {
    this.#over = true;
    this.#cancelGap();
    this.#dropTurn();
    this.#o.onBound?.(what);
    return undefined;
  }

  /**
   * The bot said it started speaking: its turns are bracketed. The turn still starts
   * at its first audio, whenever the bracket came.
   */
  startedSpeaking(): void {
    this.bracketed = true;
    this.#cancelGap();
  }

  /** When the audio kept so far will have played out (call time), if any is kept. */
  get playedOutAt(): number | undefined {
    if (this.#startMs === undefined || this.#length === 0) return undefined;
    return this.#startMs + (this.#length * 1000) / this.#o.sampleRate;
  }

  /** Audio kept since the last `take`. */
  get hasAudio(): boolean {
    return this.#length > 0;
  }

  /** The VAD hears speech now (unbracketed bots). */
  get speaking(): boolean {
    return this.#speaking;
  }

  /** The audio kept since the last take (with what the resamplers hold back), and resets. */
  take(): HeardAudio | undefined {
    this.#cancelGap();
    for (const r of this.#resamplers.values()) {
      const tail = r.flush();
      if (tail.length > 0) {
        this.#chunks.push({ samples: tail, at: this.#chunks.at(-1)?.at ?? this.#o.clock.now() });
        this.#length += tail.length;
      }
    }
    // Flushed, each resampler is as new: it serves the next turn.
    const startMs = this.#startMs;
    // A copy: the chunks are views of the buffer the next turn writes.
    const placed = this.#length > 0 && startMs !== undefined
      ? placeArrived(this.#chunks, this.#o.sampleRate)
      : undefined;
    this.#dropTurn();
    return placed && { pcm: pcm16(placed.samples, this.#o.sampleRate), startMs: startMs! };
  }

  get stats(): ReceiveStats {
    return { ...this.#stats, rates: [...this.#stats.rates] };
  }

  #vad(samples: Int16Array): void {
    const vad = this.#o.vad;
    if (!vad || !this.#segmenter || this.bracketed) return;
    for (const e of this.#segmenter.push(vad.process(samples))) {
      if (e.type === "start") {
        this.#speaking = true;
        this.#o.onVadTurnStart?.();
      } else {
        this.#speaking = false;
        this.#o.onVadTurnEnd?.();
      }
    }
  }
}

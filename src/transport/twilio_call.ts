/**
 * Twilio's side of one Media Streams call, without the socket: what callbench, playing
 * Twilio, sends to a phone agent's stream endpoint and how it answers, on any `Clock`
 * (a `SimClock` in tests, the real clock on the wire).
 *
 * - Out: `connected`, `start`, then the caller's audio as continuous 20 ms µ-law
 *   `media` frames on a fixed grid (`src/audio/pacer.ts`), silence when the caller is
 *   quiet, as Twilio streams a live call; `dtmf` per key; `stop` at the end.
 * - In: the agent's `media` is queued and played out in real time (20 ms a frame,
 *   as Twilio plays it to the caller); a `mark` is echoed once the audio queued before
 *   it has played; `clear` drops the queued audio (barge-in) and echoes every pending
 *   mark, as Twilio does. What is played is what the caller hears: it goes through the
 *   VAD (`src/audio/vad.ts`) and each stretch of speech becomes one agent turn.
 *
 * @module
 */
import type { Clock } from "../bridge/call.ts";
import { mulawDecode, mulawEncode } from "../audio/mulaw.ts";
import { concatSamples } from "../audio/pcm.ts";
import { Pacer } from "../audio/pacer.ts";
import { SpeechSegmenter, type Vad } from "../audio/vad.ts";
import { DtmfDetector } from "../audio/dtmf.ts";
import {
  type AgentMessage,
  TWILIO_FRAME_MS,
  TWILIO_MEDIA_FORMAT,
  TwilioStream,
  type TwilioStreamInit,
} from "../protocol/twilio.ts";

/** Twilio's sample rate (8 kHz µ-law). */
export const TWILIO_RATE = TWILIO_MEDIA_FORMAT.sampleRate;
/** Audio kept before a detected speech start, so a turn's first syllable is in it. */
const PRE_ROLL_FRAMES = 15;

/** One agent turn, as the caller heard it. */
export interface HeardTurn {
  /** PCM16 at 8 kHz: the turn's audio (with a little silence around it). */
  samples: Int16Array;
  /** Call time the speech started and ended (VAD). */
  startMs: number;
  /** Call time of `samples[0]` (the pre-roll before the speech start). */
  audioStartMs: number;
  endMs: number;
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
  /** VAD hysteresis: silence that ends a turn (default 600 ms). */
  minSilenceMs?: number;
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
  marksEchoed: number;
  clears: number;
}

/** Twilio's side of one stream. */
export class TwilioCall {
  readonly stream: TwilioStream;
  readonly #o: TwilioCallOptions;
  readonly #caller: Pacer;
  readonly #playback: Pacer;
  readonly #segmenter: SpeechSegmenter;
  /** Agent samples queued for playback so far, and played so far. */
  #queuedTotal = 0;
  #playedTotal = 0;
  /** Marks waiting for their audio to play, in order. */
  #marks: { name: string; at: number }[] = [];
  /** Call time of the first played frame (the VAD's time zero). */
  #playStart = 0;
  #recent: Int16Array[] = [];
  #turn?: { startMs: number; audioStartMs: number; chunks: Int16Array[] };
  #begun = false;
  #ended = false;
  readonly #stats: TwilioCallStats = {
    sentMs: 0,
    sentSpeechMs: 0,
    receivedMs: 0,
    clearedMs: 0,
    marksEchoed: 0,
    clears: 0,
  };

  /** In-band keys in the agent's audio. */
  readonly #dtmf?: DtmfDetector;

  constructor(options: TwilioCallOptions) {
    this.#o = options;
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
        this.#stats.sentMs += TWILIO_FRAME_MS;
        this.#stats.sentSpeechMs += (chunk.audioSamples * 1000) / TWILIO_RATE;
        if (this.#o.fill && chunk.audioSamples < chunk.samples.length) {
          const at = chunk.dueAt + (chunk.audioSamples * 1000) / TWILIO_RATE;
          this.#o.fill(chunk.samples, chunk.audioSamples, at, TWILIO_RATE);
        }
        this.#o.send(this.stream.media(mulawEncode(chunk.samples)));
      },
    });
    this.#playback = new Pacer({
      clock: options.clock,
      sampleRate: TWILIO_RATE,
      chunkMs: TWILIO_FRAME_MS,
      onChunk: (chunk) => this.#played(chunk.samples, chunk.audioSamples),
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

  /** Queues the caller's speech (PCM16 at 8 kHz); resolves once it has been sent. */
  speak(samples: Int16Array): Promise<void> {
    if (this.#ended) return Promise.resolve();
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
    if (this.#ended) return;
    switch (message.event) {
      case "media": {
        const samples = mulawDecode(message.mulaw);
        this.#stats.receivedMs += (samples.length * 1000) / TWILIO_RATE;
        this.#queuedTotal += samples.length;
        this.#playback.enqueue(samples);
        return;
      }
      case "mark":
        this.#marks.push({ name: message.name, at: this.#queuedTotal });
        return this.#echoMarks();
      case "clear": {
        this.#stats.clears++;
        const dropped = this.#playback.clear();
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
    return { ...this.#stats };
  }

  /** Ends the stream: a turn in progress ends, `stop` is sent, nothing more. */
  end(): void {
    if (this.#ended) return;
    for (const e of this.#segmenter.flush()) if (e.type === "end") this.#endTurn(e.atMs);
    this.#ended = true;
    this.#caller.stop();
    this.#playback.stop();
    if (this.#begun) this.#o.send(this.stream.stop());
  }

  /** One 20 ms frame played to the caller: marks, VAD, turn audio. */
  #played(samples: Int16Array, audioSamples: number): void {
    if (this.#ended) return;
    this.#playedTotal += audioSamples;
    this.#echoMarks();
    for (const e of this.#dtmf?.push(samples) ?? []) this.#o.onDtmf!(e.key);
    if (this.#turn) this.#turn.chunks.push(samples);
    else {
      this.#recent.push(samples);
      if (this.#recent.length > PRE_ROLL_FRAMES) this.#recent.shift();
    }
    for (const e of this.#segmenter.push(this.#o.vad.process(samples))) {
      if (e.type === "start") {
        const startMs = this.#playStart + e.atMs;
        // The pre-roll's frames end with the frame that completed the speech start.
        const audioStartMs = this.#o.clock.now() - (this.#recent.length - 1) * TWILIO_FRAME_MS;
        this.#turn = { startMs, audioStartMs, chunks: this.#recent };
        this.#recent = [];
        this.#o.onSpeechStart?.(startMs);
      } else this.#endTurn(e.atMs);
    }
  }

  #endTurn(atMs: number): void {
    const turn = this.#turn;
    this.#turn = undefined;
    if (!turn) return;
    this.#o.onTurn({
      samples: concatSamples(turn.chunks),
      startMs: turn.startMs,
      audioStartMs: turn.audioStartMs,
      endMs: this.#playStart + atMs,
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

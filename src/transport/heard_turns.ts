/**
 * The agent's turns as a phone caller hears them, for the wires that play the agent's
 * audio out of a jitter buffer (Twilio Media Streams, `twilio_call.ts`; SIP,
 * `sip_call.ts`). Each 20 ms frame played goes through the VAD, and each stretch of
 * speech is one turn. Its audio starts at the pre-roll's first frame of agent audio: the
 * audio the agent sent since it last sent none for a while, at most 1 s before the speech
 * start. It is placed as it arrived (`placeArrived`): a hole the playout made is not one in
 * what was said, and the buffer's own delay is the line's, not the agent's.
 *
 * @module
 */
import { placeArrived } from "../audio/arrival.ts";
import { SpeechSegmenter, type Vad } from "../audio/vad.ts";
import { MAX_TURN_AUDIO_MS } from "./flood_bounds.ts";
import type { LineTurn } from "./phone_voice.ts";

/** Audio kept before a detected speech start, so a turn's first syllable is in it (1 s). */
const PRE_ROLL_FRAMES = 50;
/** The line's silence this long ends a pre-roll (a shorter hole is the playout's). */
const HOLE_MS = 200;

/** A frame played to the caller. */
export interface PlayedFrame {
  samples: Int16Array;
  /** The agent's samples in it (the rest is the line's silence). */
  audio: Int16Array;
  /** When its agent audio arrived (none: the line's silence fill). */
  arrivedAt: number | undefined;
}

export interface HeardTurnsOptions {
  /** The line's rate, Hz, and its frame, ms. */
  sampleRate: number;
  frameMs: number;
  /** A VAD at `sampleRate`, `frameMs` frames. */
  vad: Vad;
  /** VAD hysteresis: silence that ends a turn (default 600 ms). */
  minSilenceMs?: number;
  /** A turn, heard to its end. */
  onTurn: (turn: LineTurn) => void;
  /** The VAD heard the agent start speaking (call time). */
  onSpeechStart?: (startMs: number) => void;
  /** A frame of a turn in progress was played. */
  onSpeaking?: () => void;
  /** A turn went past {@link MAX_TURN_AUDIO_MS}: it is dropped. */
  onTooLong: () => void;
}

/** Frames played in, the agent's turns out. */
export class HeardTurns {
  readonly #o: HeardTurnsOptions;
  readonly #segmenter: SpeechSegmenter;
  /** Call time the playout started: the VAD's times are from it. */
  #playStart = 0;
  #recent: PlayedFrame[] = [];
  #turn?: { startMs: number; audioStartMs: number; chunks: PlayedFrame[] };
  /** Frames of the line's silence in a row. */
  #fillRun = 0;

  constructor(options: HeardTurnsOptions) {
    this.#o = options;
    this.#segmenter = new SpeechSegmenter({
      frameMs: options.frameMs,
      minSilenceMs: options.minSilenceMs ?? 600,
    });
  }

  /** The playout starts now (call time). */
  begin(playStart: number): void {
    this.#playStart = playStart;
  }

  /** Whether a turn is in progress. */
  get inTurn(): boolean {
    return this.#turn !== undefined;
  }

  /** One frame played. */
  played(frame: PlayedFrame): void {
    const frameMs = this.#o.frameMs;
    this.#fillRun = frame.arrivedAt === undefined ? this.#fillRun + 1 : 0;
    if (this.#turn) {
      this.#turn.chunks.push(frame);
      if (this.#turn.chunks.length * frameMs > MAX_TURN_AUDIO_MS) {
        this.#turn = undefined;
        return this.#o.onTooLong();
      }
      this.#o.onSpeaking?.();
    } else {
      // The agent has sent nothing for a while: its next audio is a new pre-roll.
      if (this.#fillRun * frameMs >= HOLE_MS) this.#recent = [];
      this.#recent.push(frame);
      if (this.#recent.length > PRE_ROLL_FRAMES) this.#recent.shift();
    }
    for (const e of this.#segmenter.push(this.#o.vad.process(frame.samples))) {
      if (e.type === "end") {
        this.#end(e.atMs);
        continue;
      }
      // The pre-roll: from its first frame of agent audio (not the line's own silence).
      const first = this.#recent.findIndex((f) => f.arrivedAt !== undefined);
      if (first < 0) {
        // The VAD's own tail (after a clear) on the line's silence: no agent turn.
        this.#segmenter.flush();
        continue;
      }
      const startMs = this.#playStart + e.atMs;
      const chunks = this.#recent.slice(first);
      this.#turn = { startMs, audioStartMs: chunks[0]!.arrivedAt!, chunks };
      this.#recent = [];
      this.#o.onSpeechStart?.(startMs);
    }
  }

  /**
   * The agent cut its turn off itself at `nowMs` (call time): the turn ends there,
   * interrupted, with `unplayed` (what had arrived and was not yet played) in it.
   */
  cutOff(unplayed: readonly PlayedFrame[], nowMs: number): void {
    if (!this.#turn) return;
    this.#turn.chunks.push(...unplayed);
    this.#segmenter.flush();
    this.#end(nowMs - this.#playStart, true);
  }

  /** The call ends: a turn in progress ends with it. */
  finish(): void {
    for (const e of this.#segmenter.flush()) if (e.type === "end") this.#end(e.atMs);
  }

  /** Drops the turn in progress (the call went past a bound). */
  drop(): void {
    this.#turn = undefined;
  }

  #end(atMs: number, interrupted = false): void {
    const turn = this.#turn;
    this.#turn = undefined;
    if (!turn) return;
    this.#o.onTurn({
      samples: placeArrived(
        turn.chunks.flatMap((c) =>
          c.arrivedAt === undefined ? [] : [{ samples: c.audio, at: c.arrivedAt }]
        ),
        this.#o.sampleRate,
      )?.samples ?? new Int16Array(0),
      startMs: turn.startMs,
      audioStartMs: turn.audioStartMs,
      endMs: this.#playStart + atMs,
      ...(interrupted ? { interrupted: true } : {}),
    });
  }
}

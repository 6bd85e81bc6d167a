/**
 * A session's voice (`serve --audio`): the hosted participant speaks and listens in
 * audio. Speaking: each utterance is synthesized (a `TtsProvider`), then paced out in
 * real time in fixed chunks (src/audio/pacer.ts) at the session's output rate, with
 * the start and end hooks around it (the line sends `bot-started-speaking`, the words,
 * `bot-stopped-speaking`). Listening: the client's audio, at whatever rate and channel
 * count each frame says, is made 16 kHz mono and goes through the WebRTC VAD and a
 * `SpeechSegmenter`; the end of the far end's speech is a turn. A turn's words are the
 * client's own text for it when the client sent some (transcriptions, `send-text` that
 * does not run at once), else the STT provider's when one is set, else unknown ("").
 *
 * Failures of synthesis or transcription are reported (`tts_error`, `stt_error`) and
 * the call goes on: an utterance that cannot be synthesized is still announced with its
 * words, and a turn that cannot be transcribed is delivered with unknown words.
 *
 * @module
 */
import type { CallTime, Clock, SaidUtterance } from "../bridge/call.ts";
import { Pacer } from "../audio/pacer.ts";
import { concatSamples, type Pcm16, pcm16, pcm16FromBytes, toMono } from "../audio/pcm.ts";
import { resample, Resampler } from "../audio/resample.ts";
import { SpeechSegmenter, Vad } from "../audio/vad.ts";
import type { PcmAudio } from "../protocol/audio_payload.ts";
import type { SpeechError, SttProvider, TtsProvider } from "../speech/speech.ts";

/** The rate the session listens at (what the reference's bots expect: 16 kHz). */
export const LISTEN_RATE = 16_000;
/** The rate the session speaks at unless told (what the reference bridge assumes). */
export const DEFAULT_OUTPUT_RATE = 24_000;
/** Outgoing chunk length, ms. */
export const DEFAULT_OUTPUT_CHUNK_MS = 20;
/** Silence that ends the far end's turn, ms (pipecat's VAD `stop_secs` is of this order). */
export const DEFAULT_END_OF_TURN_MS = 600;
/** Audio kept before the VAD's start of speech, for STT, ms. */
const PRE_ROLL_MS = 300;
/** The longest turn kept for STT, ms (longer turns keep their first part). */
const MAX_TURN_MS = 60_000;
const MAX_TURN_SAMPLES = (MAX_TURN_MS * LISTEN_RATE) / 1000;
/** Audio buffered while the VAD loads, ms. */
const MAX_PENDING_MS = 10_000;
const MAX_PENDING_SAMPLES = (MAX_PENDING_MS * LISTEN_RATE) / 1000;

/** How a session speaks and listens. */
export interface SessionAudioOptions {
  /** Synthesizes the hosted participant's words. */
  tts: TtsProvider;
  /** Transcribes the far end's turns when the client sends no text for them. */
  stt?: SttProvider;
  /** The TTS voice (the provider's default unless given). */
  voice?: string;
  /** Rate of the audio sent (default 24000). */
  outputRate?: number;
  /** Length of each outgoing chunk, ms (default 20). */
  chunkMs?: number;
  /** Silence that ends the far end's turn, ms (default 600). */
  endOfTurnMs?: number;
  /** libfvad mode 0-3 (default 2). */
  vadMode?: 0 | 1 | 2 | 3;
}

/** What the audio needs of its session. */
export interface AudioOutlet {
  clock: Clock;
  /** Sends one chunk of speech in the client's framing. */
  sendAudio(samples: Int16Array, sampleRate: number): void;
  /** The far end began to speak. */
  speechStarted(at: CallTime): void;
  /** The far end's turn ended; `text` is "" when its words are unknown. */
  turn(text: string, at: CallTime): void;
  /** A provider failed (reported to the client, never fatal). */
  speechError(error: SpeechError): void;
  log(line: string): void;
}

/** Hooks around one utterance on the line. */
export interface SpeakHooks {
  /** Just before the first chunk (or, without audio, at once). */
  started(): void;
  /** Once the last chunk has played out. */
  stopped(): void;
}

/** One session's speaking and listening. */
export class SessionAudio {
  readonly outputRate: number;
  readonly #o: SessionAudioOptions;
  readonly #out: AudioOutlet;
  readonly #pacer: Pacer;
  readonly #endOfTurnMs: number;
  /** Recent audio kept outside a turn, samples: the pre-roll and the end-of-turn silence. */
  readonly #recentKeep: number;
  /** Bumped by `reset`: queued utterances and pending turns of before are dropped. */
  #generation = 0;
  /** Utterances play one after the other. */
  #speaking: Promise<void> = Promise.resolve();
  /** The last utterance queued has begun (or will not be said). */
  #started: Promise<void> = Promise.resolve();
  /** The utterance playing now, for barge-in. */
  #current?: { interrupt(): void };

  #vad?: Vad;
  #vadLoading?: Promise<void>;
  #vadFailed = false;
  #segmenter: SpeechSegmenter;
  #resamplers = new Map<number, Resampler>();
  /** 16 kHz audio received while the VAD loads. */
  #pending: Int16Array[] = [];
  #pendingSamples = 0;
  /** The client's own words for the turn in progress, and their size. */
  #words: string[] = [];
  #wordBytes = 0;
  /** Recent audio (pre-roll) and the turn's audio, for STT. */
  #recent: Int16Array[] = [];
  #recentSamples = 0;
  #turnAudio?: Int16Array[];
  #turnSamples = 0;
  /** Turns are delivered in order, transcription included. */
  #delivering: Promise<void> = Promise.resolve();
  #closed = false;

  constructor(options: SessionAudioOptions, outlet: AudioOutlet) {
    this.#o = options;
    this.#out = outlet;
    this.outputRate = options.outputRate ?? DEFAULT_OUTPUT_RATE;
    this.#endOfTurnMs = options.endOfTurnMs ?? DEFAULT_END_OF_TURN_MS;
    this.#recentKeep = ((PRE_ROLL_MS + this.#endOfTurnMs) * LISTEN_RATE) / 1000;
    this.#pacer = new Pacer({
      clock: outlet.clock,
      sampleRate: this.outputRate,
      chunkMs: options.chunkMs ?? DEFAULT_OUTPUT_CHUNK_MS,
      silenceFill: false,
      onChunk: (chunk) => {
        if (chunk.audioSamples > 0) this.#out.sendAudio(chunk.samples, this.outputRate);
      },
    });
    this.#segmenter = this.#newSegmenter();
  }

  // ---- speaking -------------------------------------------------------------------

  /**
   * Says `text`: synthesis starts now, playback after what is already being said.
   * The returned utterance tells when the words are out.
   */
  speak(text: string, hooks: SpeakHooks): SaidUtterance {
    const generation = this.#generation;
    const synthesis = this.#o.tts.synthesize({
      text,
      ...(this.#o.voice !== undefined ? { voice: this.#o.voice } : {}),
    });
    this.#out.clock.hold?.(synthesis);
    let end: number | undefined;
    const waiting = new Set<() => void>();
    const out = () => {
      end = this.#out.clock.now();
      for (const fn of [...waiting]) fn();
      waiting.clear();
    };
    let begun = () => {};
    this.#started = new Promise<void>((resolve) => (begun = resolve));
    this.#speaking = this.#speaking.then(async () => {
      const result = await synthesis;
      if (generation !== this.#generation || this.#closed) return out();
      let samples: Int16Array | undefined;
      if (!result.ok) this.#out.speechError(result.error);
      else samples = this.#atOutputRate(result.audio);
      hooks.started();
      begun();
      if (samples && samples.length > 0) await this.#play(samples);
      if (generation === this.#generation) hooks.stopped();
      out();
    }).catch((e) => {
      this.#out.log(`speaking failed: ${(e as Error)?.message ?? e}`);
      out();
    }).finally(begun);
    return {
      get end() {
        return end;
      },
      whenOut: (fn) => {
        if (end !== undefined) {
          fn();
          return () => {};
        }
        waiting.add(fn);
        return () => waiting.delete(fn);
      },
    };
  }

  /** Runs `fn` once everything said so far has played out (or was cut off). */
  afterSpeech(fn: () => void): void {
    void this.#speaking.then(fn);
  }

  /** Runs `fn` once the last utterance said so far has begun (its started hook ran). */
  afterSpeechStarted(fn: () => void): void {
    void this.#started.then(fn);
  }

  /** Cuts off the utterance playing now and drops the queued ones (barge-in). */
  interrupt(): void {
    this.#current?.interrupt();
  }

  /** Paces `samples` out; resolves once the last chunk has played (or on interrupt). */
  async #play(samples: Int16Array): Promise<void> {
    const pacer = this.#pacer;
    const clock = this.#out.clock;
    let cut = false;
    let wake: () => void = () => {};
    const interrupted = new Promise<void>((resolve) => (wake = resolve));
    this.#current = {
      interrupt: () => {
        cut = true;
        pacer.clear();
        wake();
      },
    };
    pacer.enqueue(samples);
    pacer.start();
    await Promise.race([pacer.drained(), interrupted]);
    pacer.stop();
    // The last chunk went out when it began to play: wait until it has played.
    if (!cut) await Promise.race([clock.sleep(pacer.chunkMs), interrupted]);
    pacer.clear();
    this.#current = undefined;
  }

  #atOutputRate(audio: Pcm16): Int16Array {
    const mono = toMono(audio).samples;
    if (audio.sampleRate === this.outputRate) return mono;
    return resample(mono, audio.sampleRate, this.outputRate);
  }

  // ---- listening ------------------------------------------------------------------

  /** Bytes (UTF-8, JSON-escaped) of the client's words kept for the turn in progress. */
  get pendingWordBytes(): number {
    return this.#wordBytes;
  }

  /**
   * The client's words for the turn in progress (or the next one); `bytes` their size
   * as `pendingWordBytes` counts it (UTF-8, JSON-escaped).
   */
  words(text: string, bytes: number): void {
    const t = text.trim();
    if (!t) return;
    this.#words.push(t);
    this.#wordBytes += bytes + 1;
  }

  /** One frame of the client's audio, already checked (whole PCM16 frames, a known rate). */
  hear(audio: PcmAudio): void {
    if (this.#closed) return;
    const decoded = pcm16FromBytes(audio.pcm);
    if (!decoded.ok) return;
    let samples = decoded.samples;
    if (audio.numChannels === 2) samples = toMono(pcm16(samples, audio.sampleRate, 2)).samples;
    if (audio.sampleRate !== LISTEN_RATE) {
      let r = this.#resamplers.get(audio.sampleRate);
      if (!r) {
        r = new Resampler(audio.sampleRate, LISTEN_RATE);
        this.#resamplers.set(audio.sampleRate, r);
      }
      samples = r.process(samples);
    }
    if (samples.length === 0) return;
    if (this.#vad) return this.#listen(samples);
    if (this.#vadFailed) return;
    if (this.#pendingSamples + samples.length <= MAX_PENDING_SAMPLES) {
      this.#pending.push(samples);
      this.#pendingSamples += samples.length;
    }
    this.#loadVad();
  }

  #loadVad(): void {
    if (this.#vadLoading) return;
    this.#vadLoading = Vad.create({
      sampleRate: LISTEN_RATE,
      mode: this.#o.vadMode ?? 2,
      frameMs: 20,
    }).then((vad) => {
      if (this.#closed) return vad.free();
      this.#vad = vad;
      const pending = this.#pending;
      this.#pending = [];
      this.#pendingSamples = 0;
      for (const p of pending) this.#listen(p);
    }, (e) => {
      this.#vadFailed = true;
      this.#pending = [];
      this.#out.log(`the VAD could not be loaded: ${(e as Error)?.message ?? e}`);
    }).catch((e) =>
      // Hearing the buffered audio failed: logged, as `hear` failing is, never unhandled.
      this.#out.log(`hearing the buffered audio failed: ${(e as Error)?.message ?? e}`)
    );
  }

  #listen(samples: Int16Array): void {
    const stt = this.#o.stt !== undefined;
    if (stt) this.#keep(samples);
    for (const event of this.#segmenter.push(this.#vad!.process(samples))) {
      const now = this.#out.clock.now();
      if (event.type === "start") {
        if (stt) this.#beginTurnAudio();
        this.#out.speechStarted(now);
      } else {
        this.#endTurn(now);
      }
    }
  }

  /** Keeps the recent audio (pre-roll) and, during a turn, the turn's audio. */
  #keep(samples: Int16Array): void {
    if (this.#turnAudio) {
      if (this.#turnSamples < MAX_TURN_SAMPLES) {
        this.#turnAudio.push(samples);
        this.#turnSamples += samples.length;
      }
      return;
    }
    this.#recent.push(samples);
    this.#recentSamples += samples.length;
    while (
      this.#recent.length > 1 && this.#recentSamples - this.#recent[0]!.length >= this.#recentKeep
    ) {
      this.#recentSamples -= this.#recent.shift()!.length;
    }
  }

  #beginTurnAudio(): void {
    this.#turnAudio = this.#recent;
    this.#turnSamples = this.#recentSamples;
    this.#recent = [];
    this.#recentSamples = 0;
  }

  #endTurn(at: CallTime): void {
    const words = this.#words.join(" ");
    this.#words = [];
    this.#wordBytes = 0;
    const audio = this.#turnAudio;
    this.#turnAudio = undefined;
    this.#turnSamples = 0;
    const generation = this.#generation;
    const stt = this.#o.stt;
    this.#delivering = this.#delivering.then(async () => {
      let text = words;
      if (!text && stt && audio) {
        const work = stt.transcribe({ audio: pcm16(concatSamples(audio), LISTEN_RATE) });
        this.#out.clock.hold?.(work);
        const r = await work;
        if (r.ok) text = r.text;
        else this.#out.speechError(r.error);
      }
      if (generation === this.#generation && !this.#closed) this.#out.turn(text, at);
    }).catch((e) => this.#out.log(`delivering a turn failed: ${(e as Error)?.message ?? e}`));
  }

  #newSegmenter(): SpeechSegmenter {
    return new SpeechSegmenter({ frameMs: 20, minSilenceMs: this.#endOfTurnMs });
  }

  // ---- lifecycle ------------------------------------------------------------------

  /**
   * The client went away (as the reference's bots reset their STT, TTS and turn
   * taking): speech in progress stops, queued speech and half-heard turns are dropped.
   */
  reset(): void {
    this.#generation++;
    this.#current?.interrupt();
    this.#pacer.stop();
    this.#pacer.clear();
    this.#vad?.reset();
    this.#segmenter = this.#newSegmenter();
    this.#resamplers.clear();
    this.#pending = [];
    this.#pendingSamples = 0;
    this.#words = [];
    this.#wordBytes = 0;
    this.#recent = [];
    this.#recentSamples = 0;
    this.#turnAudio = undefined;
    this.#turnSamples = 0;
  }

  /**
   * Waits for the VAD to load and the turns in flight to be delivered (tests). Speech
   * being played is not waited for: it ends on the clock.
   */
  async idle(): Promise<void> {
    let delivering;
    do {
      delivering = this.#delivering;
      await Promise.all([this.#vadLoading, delivering]);
    } while (delivering !== this.#delivering);
  }

  /** Frees the VAD; nothing more is said or heard. */
  close(): void {
    if (this.#closed) return;
    this.reset();
    this.#closed = true;
    this.#vad?.free();
    this.#vad = undefined;
  }
}

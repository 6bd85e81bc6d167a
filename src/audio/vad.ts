/**
 * Voice activity detection with the WebRTC VAD (`@echogarden/fvad-wasm`, libfvad
 * compiled to WebAssembly), and a segmenter that turns its 10-30 ms frame decisions
 * into speech start and end times. The wasm file is read from `node_modules` and
 * handed to the module, so `--allow-read` is the only permission needed.
 *
 * libfvad takes 8, 16, 32 or 48 kHz; other rates (22.05, 24 kHz) are resampled to
 * 16 kHz on the way in. Modes 0-3 trade recall for precision: 3 is the strictest, for
 * noisy lines.
 *
 * @example
 * ```ts
 * const vad = await Vad.create({ sampleRate: 24000 });
 * const seg = new SpeechSegmenter({ frameMs: vad.frameMs });
 * for (const chunk of agentAudio) {
 *   for (const e of seg.push(vad.process(chunk))) console.log(e.type, e.atMs);
 * }
 * vad.free();
 * ```
 *
 * @module
 */
import { FVAD_PACKAGE, importLazily, lazyPackageFile } from "./lazy_npm.ts";
import { Resampler } from "./resample.ts";

/** Rates libfvad accepts. */
export const VAD_NATIVE_RATES = [8000, 16000, 32000, 48000] as const;

interface FvadModule {
  _fvad_new(): number;
  _fvad_free(inst: number): void;
  _fvad_reset(inst: number): void;
  _fvad_set_mode(inst: number, mode: number): number;
  _fvad_set_sample_rate(inst: number, rate: number): number;
  _fvad_process(inst: number, frame: number, length: number): number;
  _malloc(bytes: number): number;
  _free(ptr: number): void;
  HEAP16: Int16Array;
}

let loaded: Promise<FvadModule> | undefined;

/** Loads libfvad once per thread. */
function loadFvad(): Promise<FvadModule> {
  loaded ??= (async () => {
    const wasmBinary = await Deno.readFile(await lazyPackageFile(FVAD_PACKAGE, "fvad.wasm"));
    const { default: factory } = await importLazily(FVAD_PACKAGE);
    return await (factory as (m: object) => Promise<FvadModule>)({ wasmBinary });
  })();
  loaded.catch(() => loaded = undefined);
  return loaded;
}

export interface VadOptions {
  /** Any rate a `Resampler` takes to 16 kHz; 8/16/32/48 kHz are used as they are. */
  sampleRate: number;
  /** 0 (least aggressive) to 3 (most); default 2. */
  mode?: 0 | 1 | 2 | 3;
  /** 10, 20 or 30; default 20. */
  frameMs?: 10 | 20 | 30;
}

/** A streaming VAD: feed any chunk sizes, get one decision per completed frame. */
export class Vad {
  readonly frameMs: number;
  /** Samples per frame at the rate libfvad sees. */
  readonly frameSamples: number;
  readonly #m: FvadModule;
  #inst: number;
  readonly #buf: number;
  readonly #resampler: Resampler | undefined;
  #pending: Int16Array;
  #pendingLen = 0;
  readonly #rate: number;
  readonly #mode: number;

  private constructor(m: FvadModule, options: VadOptions) {
    this.#m = m;
    this.frameMs = options.frameMs ?? 20;
    const native = (VAD_NATIVE_RATES as readonly number[]).includes(options.sampleRate);
    const rate = native ? options.sampleRate : 16000;
    this.#resampler = native ? undefined : new Resampler(options.sampleRate, 16000);
    this.frameSamples = (rate * this.frameMs) / 1000;
    this.#rate = rate;
    this.#mode = options.mode ?? 2;
    this.#inst = m._fvad_new();
    if (!this.#inst) throw new Error("libfvad could not allocate a VAD");
    if (
      m._fvad_set_sample_rate(this.#inst, rate) !== 0 ||
      m._fvad_set_mode(this.#inst, options.mode ?? 2) !== 0
    ) {
      m._fvad_free(this.#inst);
      throw new RangeError(`libfvad rejected rate ${rate} or mode ${options.mode}`);
    }
    this.#buf = m._malloc(this.frameSamples * 2);
    this.#pending = new Int16Array(this.frameSamples);
  }

  /** Makes a VAD (loading libfvad on first use). */
  static async create(options: VadOptions): Promise<Vad> {
    const frameMs = options.frameMs ?? 20;
    if (![10, 20, 30].includes(frameMs)) throw new RangeError(`Invalid VAD frame ${frameMs} ms`);
    return new Vad(await loadFvad(), options);
  }

  /** Decisions (true: voiced) for each frame completed by this chunk. */
  process(chunk: Int16Array): boolean[] {
    if (!this.#inst) throw new Error("This VAD was freed");
    const input = this.#resampler ? this.#resampler.process(chunk) : chunk;
    const out: boolean[] = [];
    const n = this.frameSamples;
    let at = 0;
    while (at < input.length) {
      const take = Math.min(n - this.#pendingLen, input.length - at);
      this.#pending.set(input.subarray(at, at + take), this.#pendingLen);
      this.#pendingLen += take;
      at += take;
      if (this.#pendingLen === n) {
        // HEAP16 may be replaced when memory grows: look it up each time.
        this.#m.HEAP16.set(this.#pending, this.#buf >> 1);
        const r = this.#m._fvad_process(this.#inst, this.#buf, n);
        if (r < 0) throw new Error("libfvad failed on a frame");
        out.push(r === 1);
        this.#pendingLen = 0;
      }
    }
    return out;
  }

  /** Forgets the adaptive state and any partial frame (a new stream). */
  reset(): void {
    this.#m._fvad_reset(this.#inst);
    // libfvad's reset also puts the rate and mode back to its defaults (8 kHz, 0).
    this.#m._fvad_set_sample_rate(this.#inst, this.#rate);
    this.#m._fvad_set_mode(this.#inst, this.#mode);
    this.#resampler?.flush();
    this.#pendingLen = 0;
  }

  /** Releases the native memory; the VAD cannot be used after. */
  free(): void {
    if (!this.#inst) return;
    this.#m._fvad_free(this.#inst);
    this.#m._free(this.#buf);
    this.#inst = 0;
  }
}

/** A change of speech state, at a time measured from the first frame. */
export interface SpeechEvent {
  type: "start" | "end";
  /** Start: the beginning of the first voiced frame; end: the end of the last one. */
  atMs: number;
}

export interface SegmenterOptions {
  frameMs: number;
  /**
   * Voiced time within a run needed to start speech; default 100 ms (libfvad marks
   * the first 60-80 ms of a new noise floor as voiced).
   */
  minSpeechMs?: number;
  /** Unvoiced time that ends speech; default 300 ms. */
  minSilenceMs?: number;
}

/** Turns frame decisions into speech start/end events (with hysteresis). */
export class SpeechSegmenter {
  readonly #frameMs: number;
  readonly #startFrames: number;
  readonly #endFrames: number;
  #frame = 0;
  #speaking = false;
  #run = 0;
  #runStart = 0;
  #quiet = 0;
  #lastVoicedEnd = 0;

  constructor(options: SegmenterOptions) {
    this.#frameMs = options.frameMs;
    this.#startFrames = Math.max(1, Math.round((options.minSpeechMs ?? 100) / options.frameMs));
    this.#endFrames = Math.max(1, Math.round((options.minSilenceMs ?? 300) / options.frameMs));
  }

  /** Whether speech is on now. */
  get speaking(): boolean {
    return this.#speaking;
  }

  /** Feeds decisions; returns the events they cause. */
  push(decisions: readonly boolean[]): SpeechEvent[] {
    const events: SpeechEvent[] = [];
    for (const voiced of decisions) {
      const start = this.#frame * this.#frameMs;
      this.#frame++;
      if (voiced) {
        if (this.#run === 0) this.#runStart = start;
        this.#run++;
        this.#quiet = 0;
        this.#lastVoicedEnd = start + this.#frameMs;
        if (!this.#speaking && this.#run >= this.#startFrames) {
          this.#speaking = true;
          events.push({ type: "start", atMs: this.#runStart });
        }
      } else {
        this.#run = 0;
        if (this.#speaking && ++this.#quiet >= this.#endFrames) {
          this.#speaking = false;
          events.push({ type: "end", atMs: this.#lastVoicedEnd });
        }
      }
    }
    return events;
  }

  /** Ends the stream: an open segment ends at its last voiced frame. */
  flush(): SpeechEvent[] {
    if (!this.#speaking) return [];
    this.#speaking = false;
    this.#run = 0;
    return [{ type: "end", atMs: this.#lastVoicedEnd }];
  }
}

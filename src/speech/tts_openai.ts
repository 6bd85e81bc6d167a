/**
 * TTS through an OpenAI-compatible `POST /v1/audio/speech`. `response_format` `pcm`
 * is raw 16-bit little-endian mono at 24 kHz (as OpenAI documents it; `pcmRate`
 * overrides for servers that differ); `wav` is read from its header. With
 * `sampleRate` set, audio is resampled to that rate. Results are cached by model,
 * voice and text; every failure is a `tts_error`.
 *
 * @example
 * ```ts
 * const tts = new OpenAiTts({ baseUrl: "https://api.openai.com/v1", apiKey, voice: "alloy" });
 * const r = await tts.synthesize({ text: "Hello." }); // 24 kHz PCM16
 * ```
 *
 * @module
 */
import { type Pcm16, pcm16, pcm16FromBytes } from "../audio/pcm.ts";
import { resample } from "../audio/resample.ts";
import { decodeWav } from "../audio/wav.ts";
import { describeFailure, describeThrown, endpointUrl, requestSignal } from "./_http.ts";
import {
  type SpeechProviderInfo,
  ttsError,
  type TtsProvider,
  type TtsRequest,
  type TtsResult,
} from "./speech.ts";
import { TtsCache } from "./tts_cache.ts";

export interface OpenAiTtsOptions {
  /** E.g. `https://api.openai.com/v1`. */
  baseUrl: string;
  apiKey?: string;
  /** Default "gpt-4o-mini-tts". */
  model?: string;
  /** Default "alloy". */
  voice?: string;
  /** Default "pcm". */
  responseFormat?: "pcm" | "wav";
  /** The rate of `pcm` answers; default 24000. */
  pcmRate?: number;
  /** Resample every utterance to this rate (default: as received). */
  sampleRate?: number;
  /** Default 30000. */
  timeoutMs?: number;
  cache?: TtsCache;
  /** For tests. */
  fetch?: typeof fetch;
}

/** OpenAI-compatible TTS. */
export class OpenAiTts implements TtsProvider {
  readonly info: SpeechProviderInfo;
  readonly cache: TtsCache;
  readonly #o: Required<Omit<OpenAiTtsOptions, "apiKey" | "sampleRate" | "cache">> & {
    apiKey?: string;
    sampleRate?: number;
  };
  readonly #url: string;

  constructor(options: OpenAiTtsOptions) {
    this.#o = {
      model: "gpt-4o-mini-tts",
      voice: "alloy",
      responseFormat: "pcm",
      pcmRate: 24000,
      timeoutMs: 30_000,
      fetch: globalThis.fetch.bind(globalThis),
      ...options,
    };
    this.#url = endpointUrl(options.baseUrl, "audio/speech");
    this.cache = options.cache ?? new TtsCache();
    this.info = {
      provider: "openai",
      model: this.#o.model,
      voice: this.#o.voice,
      ...(this.#o.sampleRate ? { sampleRate: this.#o.sampleRate } : {}),
    };
  }

  synthesize(request: TtsRequest): Promise<TtsResult> {
    const voice = request.voice ?? this.#o.voice;
    const text = request.text.trim();
    const rate = this.#o.sampleRate;
    if (text === "") {
      return Promise.resolve({
        ok: true,
        audio: pcm16(new Int16Array(0), rate ?? this.#o.pcmRate),
      });
    }
    const key = TtsCache.key({
      provider: `openai:${this.#url}:${this.#o.model}:${this.#o.responseFormat}`,
      voice,
      sampleRate: rate,
      text,
    });
    return this.cache.get(key, () => this.#post(voice, text, request.signal));
  }

  async #post(voice: string, text: string, signal?: AbortSignal): Promise<TtsResult> {
    const url = this.#url;
    let response: Response;
    let body: Uint8Array;
    try {
      response = await this.#o.fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...(this.#o.apiKey ? { authorization: `Bearer ${this.#o.apiKey}` } : {}),
        },
        body: JSON.stringify({
          model: this.#o.model,
          voice,
          input: text,
          response_format: this.#o.responseFormat,
        }),
        signal: requestSignal(this.#o.timeoutMs, signal),
      });
      if (!response.ok) return ttsError("openai", await describeFailure(response), response.status);
      body = new Uint8Array(await response.arrayBuffer());
    } catch (e) {
      return ttsError("openai", describeThrown(e, url, this.#o.timeoutMs));
    }
    let audio: Pcm16;
    if (this.#o.responseFormat === "wav") {
      const wav = decodeWav(body);
      if (!wav.ok) return ttsError("openai", wav.message, response.status);
      audio = wav.audio;
      if (audio.channels !== 1) return ttsError("openai", "The speech WAV is not mono");
    } else {
      const pcm = pcm16FromBytes(body);
      if (!pcm.ok) return ttsError("openai", pcm.message, response.status);
      audio = pcm16(pcm.samples, this.#o.pcmRate);
    }
    if (audio.samples.length === 0) return ttsError("openai", "The server sent no audio");
    const rate = this.#o.sampleRate;
    if (rate && rate !== audio.sampleRate) {
      audio = pcm16(resample(audio.samples, audio.sampleRate, rate), rate);
    }
    return { ok: true, audio };
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

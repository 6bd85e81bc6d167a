/**
 * STT through an OpenAI-compatible `POST /v1/audio/transcriptions`: the audio turn
 * goes up as a mono PCM16 WAV file in a multipart form (`file`, `model`,
 * `response_format=json`, optional `language` and `prompt`) and the answer's `text`
 * comes back. Every failure is an `stt_error`.
 *
 * @example
 * ```ts
 * const stt = new OpenAiStt({ baseUrl: "https://api.openai.com/v1", apiKey });
 * const r = await stt.transcribe({ audio: agentTurn }); // { ok: true, text }
 * ```
 *
 * @module
 */
import { z } from "zod";
import { toMono } from "../audio/pcm.ts";
import { encodeWav } from "../audio/wav.ts";
import { describeFailure, describeThrown, endpointUrl, requestSignal } from "./_http.ts";
import {
  primaryLanguage,
  type SpeechProviderInfo,
  sttError,
  type SttProvider,
  type SttRequest,
  type SttResult,
} from "./speech.ts";

export interface OpenAiSttOptions {
  baseUrl: string;
  apiKey?: string;
  /** Default "whisper-1". */
  model?: string;
  /** Used when a request gives none. */
  language?: string;
  /** Default 60000. */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

const transcriptionSchema = z.object({ text: z.string() });

/** OpenAI-compatible STT. */
export class OpenAiStt implements SttProvider {
  readonly info: SpeechProviderInfo;
  readonly #o: OpenAiSttOptions & { model: string; timeoutMs: number; fetch: typeof fetch };
  readonly #url: string;

  constructor(options: OpenAiSttOptions) {
    this.#o = {
      model: "whisper-1",
      timeoutMs: 60_000,
      fetch: globalThis.fetch.bind(globalThis),
      ...options,
    };
    this.#url = endpointUrl(options.baseUrl, "audio/transcriptions");
    this.info = { provider: "openai", model: this.#o.model };
  }

  async transcribe(request: SttRequest): Promise<SttResult> {
    const url = this.#url;
    const form = new FormData();
    const wav = encodeWav(toMono(request.audio));
    form.append(
      "file",
      new Blob([wav], { type: "audio/wav" }),
      "audio.wav",
    );
    form.append("model", this.#o.model);
    form.append("response_format", "json");
    // The API takes ISO 639-1 (`es`), a call's language is BCP 47 (`es-MX`).
    const language = request.language ?? this.#o.language;
    if (language) form.append("language", primaryLanguage(language));
    if (request.prompt) form.append("prompt", request.prompt);
    let response: Response;
    let text: string;
    try {
      response = await this.#o.fetch(url, {
        method: "POST",
        headers: this.#o.apiKey ? { authorization: `Bearer ${this.#o.apiKey}` } : {},
        body: form,
        signal: requestSignal(this.#o.timeoutMs, request.signal),
      });
      if (!response.ok) return sttError("openai", await describeFailure(response), response.status);
      text = await response.text();
    } catch (e) {
      return sttError("openai", describeThrown(e, url, this.#o.timeoutMs));
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return sttError("openai", `The transcription is not JSON: ${text.slice(0, 100)}`);
    }
    const parsed = transcriptionSchema.safeParse(json);
    if (!parsed.success) return sttError("openai", "The transcription has no text field");
    return { ok: true, text: parsed.data.text.trim() };
  }
}

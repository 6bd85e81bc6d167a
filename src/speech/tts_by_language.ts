/**
 * The offline TTS of every language: flite speaks English, espeak-ng the others
 * (`--tts offline`). A request goes to the first provider whose language test
 * takes it; a call's language neither takes is the last one's `tts_error`.
 *
 * @module
 */
import {
  primaryLanguage,
  type SpeechProviderInfo,
  type TtsProvider,
  type TtsRequest,
  type TtsResult,
} from "./speech.ts";

export interface LanguageRoute {
  /** Whether this provider speaks the request's language (undefined: the run's default). */
  speaks(language: string | undefined): boolean;
  provider: TtsProvider;
}

/** Routes each request by its language. */
export class TtsByLanguage implements TtsProvider {
  readonly info: SpeechProviderInfo;
  readonly #routes: readonly LanguageRoute[];

  constructor(routes: readonly LanguageRoute[], info: SpeechProviderInfo) {
    if (routes.length === 0) throw new RangeError("TtsByLanguage needs a route");
    this.#routes = routes;
    this.info = info;
  }

  synthesize(request: TtsRequest): Promise<TtsResult> {
    const route = this.#routes.find((r) => r.speaks(request.language)) ?? this.#routes.at(-1)!;
    return route.provider.synthesize(request);
  }

  async close(): Promise<void> {
    await Promise.all(this.#routes.map((r) => r.provider.close()));
  }
}

/** English, or no language named (the run's default, English). */
export function isEnglish(language: string | undefined): boolean {
  return language === undefined || primaryLanguage(language) === "en";
}

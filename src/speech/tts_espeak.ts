/**
 * An offline TTS for the languages flite does not speak: eSpeak NG, run as a separate
 * program (`espeak-ng`, GPL: never linked, never a dependency; Debian's `espeak-ng`
 * package). Each utterance is one run: the text on stdin, a WAV on stdout in the
 * voice of the call's language (its exact tag where espeak-ng has it, else its
 * primary language: `fr-CA` speaks `fr`), trimmed of near-silence and resampled to
 * the call's rate. No engine for the language, or no espeak-ng at all, is a
 * `tts_error` that says so, never another language's speech.
 *
 * Permissions: run `espeak-ng` (`--allow-run=espeak-ng`).
 *
 * @module
 */
import { pcm16 } from "../audio/pcm.ts";
import { resample } from "../audio/resample.ts";
import { trimSilence } from "../audio/energy.ts";
import {
  primaryLanguage,
  type SpeechProviderInfo,
  ttsError,
  type TtsProvider,
  type TtsRequest,
  type TtsResult,
} from "./speech.ts";
import { TtsCache } from "./tts_cache.ts";

export interface EspeakTtsOptions {
  /** The program to run; "espeak-ng" on the PATH unless given. */
  binary?: string;
  /** Resample every utterance to this rate (default: espeak-ng's 22050 Hz). */
  sampleRate?: number;
  /** Share a cache between providers; a private one unless given. */
  cache?: TtsCache;
  /** The language of a request that names none; "en". */
  language?: string;
}

/** espeak-ng's own output rate. */
const ESPEAK_RATE = 22_050;

/** eSpeak NG as a separate program. */
export class EspeakTts implements TtsProvider {
  readonly info: SpeechProviderInfo;
  readonly cache: TtsCache;
  readonly #binary: string;
  readonly #rate: number;
  readonly #language: string;
  #voices: Promise<Set<string> | string> | undefined;

  constructor(options: EspeakTtsOptions = {}) {
    this.#binary = options.binary ?? "espeak-ng";
    this.#rate = options.sampleRate ?? ESPEAK_RATE;
    this.#language = options.language ?? "en";
    this.cache = options.cache ?? new TtsCache();
    this.info = { provider: "espeak-ng", voice: "by language", sampleRate: this.#rate };
  }

  async synthesize(request: TtsRequest): Promise<TtsResult> {
    const language = request.language ?? this.#language;
    const text = request.text.trim();
    if (text === "") return { ok: true, audio: pcm16(new Int16Array(0), this.#rate) };
    const voices = await (this.#voices ??= this.#listVoices());
    if (typeof voices === "string") {
      return ttsError("espeak-ng", `${voices}: no engine speaks "${language}"`);
    }
    const voice = voiceFor(language, voices);
    if (voice === undefined) {
      return ttsError(
        "espeak-ng",
        `espeak-ng has no voice for the call's language "${language}" (nor for "${
          primaryLanguage(language)
        }")`,
      );
    }
    const key = TtsCache.key({ provider: "espeak-ng", voice, sampleRate: this.#rate, text });
    return await this.cache.get(key, () => this.#speak(voice, text));
  }

  /** The languages espeak-ng has voices for, or why it cannot run. */
  async #listVoices(): Promise<Set<string> | string> {
    const out = await this.#run(["--voices"], "");
    if (typeof out === "string") return out;
    const voices = new Set<string>();
    for (const line of new TextDecoder().decode(out).split("\n").slice(1)) {
      const tag = line.trim().split(/\s+/)[1];
      if (tag) voices.add(tag.toLowerCase());
    }
    return voices;
  }

  async #speak(voice: string, text: string): Promise<TtsResult> {
    const out = await this.#run(["-v", voice, "--stdout"], text);
    if (typeof out === "string") return ttsError("espeak-ng", out);
    const wav = readWav(out);
    if (typeof wav === "string") return ttsError("espeak-ng", wav);
    const trimmed = trimSilence(wav.samples, wav.sampleRate);
    return { ok: true, audio: pcm16(resample(trimmed, wav.sampleRate, this.#rate), this.#rate) };
  }

  /** Runs espeak-ng with `input` on stdin: its stdout, or what went wrong. */
  async #run(args: string[], input: string): Promise<Uint8Array | string> {
    let child;
    try {
      child = new Deno.Command(this.#binary, {
        args,
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) {
        return `espeak-ng is not installed (${this.#binary} not found; Debian: apt-get install espeak-ng)`;
      }
      if (e instanceof Deno.errors.NotCapable || e instanceof Deno.errors.PermissionDenied) {
        return `this run may not start ${this.#binary} (it needs --allow-run=${this.#binary})`;
      }
      return `cannot start ${this.#binary}: ${(e as Error).message}`;
    }
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(input)).catch(() => {});
    await writer.close().catch(() => {});
    const { code, stdout, stderr } = await child.output();
    if (code !== 0) {
      return `${this.#binary} exited with ${code}: ${new TextDecoder().decode(stderr).trim()}`;
    }
    return stdout;
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** espeak-ng's voice for a language: the tag itself, its `xx-xx` form, or its primary language. */
export function voiceFor(language: string, voices: ReadonlySet<string>): string | undefined {
  const tag = language.toLowerCase();
  const primary = primaryLanguage(language);
  for (const v of [tag, `${primary}-${primary}`, primary]) if (voices.has(v)) return v;
  return undefined;
}

/**
 * The 16-bit mono PCM of a WAV: its `fmt ` rate, and the `data` chunk to the end of
 * the bytes (espeak-ng writing to a pipe cannot know the size it puts there).
 */
export function readWav(bytes: Uint8Array): { samples: Int16Array; sampleRate: number } | string {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const tag = (at: number) => String.fromCharCode(...bytes.subarray(at, at + 4));
  if (bytes.length < 12 || tag(0) !== "RIFF" || tag(8) !== "WAVE") return "espeak-ng wrote no WAV";
  let rate = 0;
  for (let at = 12; at + 8 <= bytes.length;) {
    const id = tag(at);
    const size = view.getUint32(at + 4, true);
    if (id === "fmt ") {
      const format = view.getUint16(at + 8, true);
      const channels = view.getUint16(at + 10, true);
      const bits = view.getUint16(at + 22, true);
      if (format !== 1 || channels !== 1 || bits !== 16) {
        return `espeak-ng wrote a WAV that is not 16-bit mono PCM (format ${format}, ${channels} channels, ${bits} bits)`;
      }
      rate = view.getUint32(at + 12, true);
    } else if (id === "data") {
      if (rate === 0) return "espeak-ng's WAV has no fmt chunk before its data";
      const start = at + 8;
      const count = Math.floor((bytes.length - start) / 2);
      const samples = new Int16Array(count);
      for (let i = 0; i < count; i++) samples[i] = view.getInt16(start + 2 * i, true);
      return { samples, sampleRate: rate };
    }
    at += 8 + size + (size % 2);
  }
  return "espeak-ng's WAV has no data chunk";
}

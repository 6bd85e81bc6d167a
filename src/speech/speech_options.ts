/**
 * How an audio run sounds, as plain data: which TTS and STT providers, each side's
 * voice, how keys travel and how often the caller barges in. Serializable (it travels
 * to a runner Worker as it is) and without secrets (an API key is named by its
 * environment variable and read where the providers are opened). `speechConfig` is
 * what goes into the config hash and the record.
 *
 * Providers are opened once per thread and shared by every trial (`openSpeech`), so
 * the TTS cache is warm from the second trial on; `closeSpeech` stops them.
 *
 * @module
 */
import { z } from "zod";
import type { SttProvider, TtsProvider } from "./speech.ts";
import { threadTtsStore, TtsCache } from "./tts_cache.ts";
import { behaviourConfig, CallerBehaviourSchema, hasBehaviour } from "./behaviour.ts";
import { CallerTimingSchema } from "./caller_timing.ts";

/** `eval --audio` settings. */
export const SpeechOptionsSchema = z.object({
  tts: z.object({
    provider: z.enum(["flite", "openai", "espeak", "offline"]).describe(
      "The TTS provider: flite (English), espeak (espeak-ng, a separate program), offline " +
        "(flite for English, espeak-ng for other languages) or openai",
    ),
    model: z.string().optional().describe("The TTS model (openai)"),
    base_url: z.string().optional().describe("The OpenAI-compatible base URL (openai)"),
    api_key_env: z.string().optional().describe(
      "The environment variable holding the API key (openai; default OPENAI_API_KEY)",
    ),
  }).describe("Text to speech for both sides"),
  voices: z.object({
    agent: z.string().optional().describe("The agent's TTS voice (provider default unless set)"),
    user: z.string().optional().describe("The caller's TTS voice"),
  }).describe("Each side's voice"),
  stt: z.object({
    provider: z.enum(["transcript", "openai"]).describe(
      "transcript: the listener hears the speaker's own text; openai: the agent's audio is transcribed",
    ),
    model: z.string().optional().describe("The STT model (openai)"),
    base_url: z.string().optional().describe("The OpenAI-compatible base URL (openai)"),
    api_key_env: z.string().optional().describe("The environment variable holding the API key"),
  }).describe("Speech to text of the agent's audio"),
  dtmf: z.enum(["inband", "event", "info"]).describe(
    "inband: keys and beeps are tones on the line, heard by Goertzel and beep detectors; event: out of band; info: out of band, as SIP INFO on a SIP call where the agent allows it",
  ),
  barge_in: z.number().min(0).max(1).describe(
    "Chance per agent utterance that the scripted caller interrupts it (seeded)",
  ),
  sample_rate: z.number().int().positive().describe("The line's audio rate (Hz)"),
  hints: z.array(z.enum(["transcript"])).optional().describe(
    "What a remote agent is told besides the audio: transcript, the caller's words and turn ends (debugging)",
  ),
  line: z.object({
    preset: z.string().optional().describe(
      'The line as given, e.g. "phone+street@10+loss@3%" (absent: the scenario\'s, else clean)',
    ),
    text: z.string().optional().describe("Its canonical text (src/audio/line/spec.ts lineText)"),
    both: z.boolean().describe("The agent's audio crosses the line too, as callbench hears it"),
  }).optional().describe(
    "The phone line the caller's audio crosses (absent: clean, or the scenario's)",
  ),
  voice_spread: z.number().int().min(1).optional().describe(
    "Spread the trials over this many caller voices (flite personas), one per trial from its seed",
  ),
  behaviour: CallerBehaviourSchema.optional().describe(
    "The caller's full-duplex behaviours (absent: none, or the scenario's)",
  ),
  caller_timing: CallerTimingSchema.optional().describe(
    "When the scripted or LLM caller takes its turn (absent: DEFAULT_CALLER_TIMING)",
  ),
});
/** `eval --audio` settings, as `SpeechOptionsSchema` parses them. */
// The type is generated from the schema above (`deno task schema`): the package
// exports it without naming zod's types, and a test holds the two the same.
export type { SpeechOptions } from "../../schemas/types.ts";
import type { SpeechOptions } from "../../schemas/types.ts";

/** The defaults of `eval --audio`: flite, voices rms (agent) and slt (caller), transcripts, in-band keys. */
export function defaultSpeechOptions(): SpeechOptions {
  return {
    tts: { provider: "flite" },
    voices: { agent: "rms", user: "slt" },
    stt: { provider: "transcript" },
    dtmf: "inband",
    barge_in: 0,
    sample_rate: 16000,
  };
}

/** What shapes an audio call, for the config hash and the record (no secrets). */
export function speechConfig(o: SpeechOptions): Record<string, unknown> {
  return {
    tts: {
      provider: o.tts.provider,
      ...(o.tts.provider === "openai"
        ? { model: o.tts.model ?? null, base_url: o.tts.base_url ?? null }
        : {}),
    },
    voices: { agent: o.voices.agent ?? null, user: o.voices.user ?? null },
    stt: {
      provider: o.stt.provider,
      ...(o.stt.provider === "openai"
        ? { model: o.stt.model ?? null, base_url: o.stt.base_url ?? null }
        : {}),
    },
    dtmf: o.dtmf,
    barge_in: o.barge_in,
    sample_rate: o.sample_rate,
    ...(o.hints && o.hints.length > 0 ? { hints: [...o.hints] } : {}),
    // A clean line given sets the speech's level: a configuration of its own.
    ...(o.line?.text !== undefined ? { line: o.line.text } : {}),
    ...(o.line?.both ? { line_both: true } : {}),
    ...(hasBehaviour(o.behaviour) ? { caller_behaviour: behaviourConfig(o.behaviour) } : {}),
    ...(o.voice_spread ? { voice_spread: o.voice_spread } : {}),
    // The default timing is this version's caller; a timing given is part of the configuration.
    ...(o.caller_timing ? { caller_timing: { ...o.caller_timing } } : {}),
  };
}

/** Opened providers for one configuration. */
export interface OpenSpeech {
  tts: TtsProvider;
  stt?: SttProvider;
}

const opened = new Map<string, Promise<OpenSpeech>>();

/**
 * What the providers of `o` are made from, and nothing else: the line, the keys and
 * the caller's behaviour are applied after synthesis, so every line of a sweep shares
 * one synthesizer (one flite Worker, one TTS cache) instead of opening its own.
 */
function providerKey(o: SpeechOptions): string {
  return JSON.stringify({
    tts: o.tts,
    stt: o.stt,
    sample_rate: o.sample_rate,
    // Only a remote TTS is opened with a voice; flite is told one per request.
    ...(o.tts.provider === "openai" ? { agent_voice: o.voices.agent ?? null } : {}),
  });
}

/** The providers for `o`, opened once per thread and providers' settings (a shared TTS cache). */
export function openSpeech(o: SpeechOptions): Promise<OpenSpeech> {
  const key = providerKey(o);
  let p = opened.get(key);
  if (!p) {
    p = makeSpeech(o);
    opened.set(key, p);
    p.catch(() => opened.delete(key));
  }
  return p;
}

/** Stops every provider `openSpeech` opened on this thread (the flite Worker keeps a process alive). */
export async function closeSpeech(): Promise<void> {
  const all = [...opened.values()];
  opened.clear();
  for (const p of await Promise.allSettled(all)) {
    if (p.status === "fulfilled") await p.value.tts.close();
  }
}

function envKey(name: string | undefined): string | undefined {
  try {
    return Deno.env.get(name ?? "OPENAI_API_KEY");
  } catch {
    return undefined; // no permission: the server may not need a key
  }
}

async function makeSpeech(o: SpeechOptions): Promise<OpenSpeech> {
  let tts: TtsProvider;
  if (o.tts.provider === "flite") {
    const { FliteTts } = await import("./tts_flite.ts");
    // Each thread's flite makes its own: on 2 Workers, sharing flite's utterances halved
    // the syntheses but made the run 20% longer (one Worker's engine made most of them
    // while the other's idled), so only a remote TTS, billed per request, is shared.
    const flite = new FliteTts({ sampleRate: o.sample_rate, cache: new TtsCache() });
    flite.start();
    tts = flite;
  } else if (o.tts.provider === "espeak" || o.tts.provider === "offline") {
    const [{ EspeakTts }, { TtsByLanguage, isEnglish }] = await Promise.all([
      import("./tts_espeak.ts"),
      import("./tts_by_language.ts"),
    ]);
    const espeak = new EspeakTts({ sampleRate: o.sample_rate, cache: new TtsCache() });
    if (o.tts.provider === "espeak") tts = espeak;
    else {
      const { FliteTts } = await import("./tts_flite.ts");
      const flite = new FliteTts({ sampleRate: o.sample_rate, cache: new TtsCache() });
      flite.start();
      tts = new TtsByLanguage([
        { speaks: isEnglish, provider: flite },
        { speaks: () => true, provider: espeak },
      ], { provider: "offline", voice: flite.info.voice, sampleRate: o.sample_rate });
    }
  } else {
    if (!o.tts.base_url) throw new Error("TTS openai needs a base URL");
    const { OpenAiTts } = await import("./tts_openai.ts");
    const apiKey = envKey(o.tts.api_key_env);
    tts = new OpenAiTts({
      baseUrl: o.tts.base_url,
      ...(o.tts.model ? { model: o.tts.model } : {}),
      ...(o.voices.agent ? { voice: o.voices.agent } : {}),
      ...(apiKey ? { apiKey } : {}),
      sampleRate: o.sample_rate,
      // The pool's Workers ask the service once per utterance between them.
      cache: new TtsCache(undefined, threadTtsStore()),
    });
  }
  if (o.stt.provider === "transcript") return { tts };
  if (!o.stt.base_url) throw new Error("STT openai needs a base URL");
  const { OpenAiStt } = await import("./stt_openai.ts");
  const apiKey = envKey(o.stt.api_key_env);
  const stt = new OpenAiStt({
    baseUrl: o.stt.base_url,
    ...(o.stt.model ? { model: o.stt.model } : {}),
    ...(apiKey ? { apiKey } : {}),
  });
  return { tts, stt };
}

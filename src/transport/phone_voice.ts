/**
 * The voice of a participant that is reached by phone (a Twilio Media Stream or a SIP
 * call): the caller's words made into audio at the line's rate, and an agent turn heard
 * on the line turned into what the call is told. `./twilio.ts` and `./sip.ts` share it;
 * only their wires differ.
 *
 * @module
 */
import type { CallLine } from "../bridge/call.ts";
import { ParticipantError } from "../bridge/call.ts";
import { concatSamples, type Pcm16, pcm16, toMono } from "../audio/pcm.ts";
import { resample, Resampler } from "../audio/resample.ts";
import { yieldToRealTime } from "../audio/pacer.ts";
import type { SttProvider, TtsProvider } from "../speech/speech.ts";
import { WORDS_UNKNOWN } from "./mapping.ts";

/** Mono samples of `audio` at `rate` (resampled when it is at another). */
export function monoAt(audio: Pcm16, rate: number): Int16Array {
  const mono = toMono(audio);
  return mono.sampleRate === rate ? mono.samples : resample(mono.samples, mono.sampleRate, rate);
}

/** Input samples resampled between two turns of the event loop (about 0.3 ms of work). */
const RESAMPLE_BLOCK = 4000;

/**
 * {@link monoAt} for an utterance about to be played on a live call: the same samples,
 * resampled a block at a time with a `yieldToRealTime()` between blocks, so the other
 * calls' chunks due meanwhile go out (a whole utterance at once held this thread for
 * milliseconds at every caller turn of every call).
 */
export async function monoAtGivingWay(audio: Pcm16, rate: number): Promise<Int16Array> {
  const mono = toMono(audio);
  if (mono.sampleRate === rate) return mono.samples;
  const resampler = new Resampler(mono.sampleRate, rate);
  const parts: Int16Array[] = [];
  for (let at = 0; at < mono.samples.length; at += RESAMPLE_BLOCK) {
    if (at > 0) await yieldToRealTime();
    parts.push(resampler.process(mono.samples.subarray(at, at + RESAMPLE_BLOCK)));
  }
  parts.push(resampler.flush());
  return concatSamples(parts);
}

/** The caller's words as audio, or the call's failure when its TTS fails (`user_error`). */
export async function callerWords(
  tts: TtsProvider,
  text: string,
  voice: string | undefined,
): Promise<Pcm16 | ParticipantError> {
  const result = await tts.synthesize({ text, ...(voice ? { voice } : {}) });
  if (result.ok) return result.audio;
  return new ParticipantError(
    "user_error",
    `${result.error.provider} TTS: ${result.error.message}`,
  );
}

/** One agent turn as the caller heard it on the line. */
export interface LineTurn {
  /** PCM16 at the line's rate, from its first frame of agent audio, placed as it arrived. */
  samples: Int16Array;
  /** Call time the speech started and ended (VAD). */
  startMs: number;
  endMs: number;
  /** Call time `samples[0]` arrived. */
  audioStartMs: number;
  /** The agent cut it off itself (a Twilio `clear`). */
  interrupted?: boolean;
}

/**
 * Tells the call what the agent said in `turn`: its words from `stt` when there is one
 * and it heard any (else they are unknown), with the audio as heard on audio calls.
 */
export async function sayHeardTurn(
  line: CallLine,
  stt: SttProvider | undefined,
  turn: LineTurn,
  rate: number,
): Promise<void> {
  let text = WORDS_UNKNOWN;
  let transcribed = false;
  const audio = pcm16(turn.samples, rate);
  if (stt) {
    const result = await stt.transcribe({ audio });
    if (result.ok && result.text.trim() !== "") {
      text = result.text.trim();
      transcribed = true;
    } else if (!result.ok) line.trace({ type: "stt_error", ...result.error });
  }
  line.trace({ type: "agent_turn_audio", start_ms: turn.startMs, end_ms: turn.endMs });
  if (!line.audio) return void line.say(text);
  // The turn's audio as the caller heard it, from its first (pre-roll) sample.
  line.say(text, {
    audio: {
      pcm: audio,
      startMs: turn.audioStartMs,
      transcribed,
      ...(turn.interrupted ? { interrupted: true } : {}),
    },
  });
}

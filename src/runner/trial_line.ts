/**
 * A trial's phone lines (audio calls): the line the caller's audio crosses, from
 * `eval --line` or else the scenario's `user.line`, seeded from the trial's seed so
 * the same trial gets the same noise and the same lost frames everywhere; with `both`,
 * a second line (its own seed) for the agent's audio as callbench hears it. And the
 * record's `audio.line` block. A clean line is no line.
 *
 * @module
 */
import type { CallOutcome } from "../bridge/bridge.ts";
import type { Side } from "../domains/domain.ts";
import { Line, seedFrom } from "../audio/line/line.ts";
import { isClean, parseLine } from "../audio/line/spec.ts";
import type { SpeechOptions } from "../speech/speech_options.ts";
import type { AudioBlock } from "./audio_block.ts";
import { FLITE_PERSONAS } from "../speech/_flite_wasi.ts";
import { prepareLineBeds } from "../speech/babble.ts";

/** A trial's lines and how to report them. */
export interface TrialLines {
  line: Partial<Record<Side, Line>>;
  block(outcome: CallOutcome): NonNullable<AudioBlock["line"]>;
}

/**
 * The trial's lines, or undefined on a clean line both ways; what their noise beds need
 * is made first (the babble's flite talkers, once per thread).
 */
export async function trialLines(
  speech: SpeechOptions,
  scenarioLine: string | undefined,
  seed: string,
): Promise<TrialLines | undefined> {
  const preset = speech.line?.preset ?? scenarioLine;
  if (preset === undefined) return undefined;
  const spec = parseLine(preset);
  if (isClean(spec)) return undefined;
  await prepareLineBeds(spec);
  const both = speech.line?.both ?? false;
  const user = new Line(spec, seedFrom(`${seed}\nline\nuser`));
  const line: Partial<Record<Side, Line>> = { user };
  if (both) line.agent = new Line(spec, seedFrom(`${seed}\nline\nagent`));
  return {
    line,
    block: (outcome) => {
      const frames = user.frames(outcome.durationMs);
      return {
        preset,
        text: user.text,
        both,
        snr_db: (outcome.audio ?? []).filter((a) => a.side === "user" && a.utterance.audio).map((
          a,
        ) => a.snr_db ?? null),
        frames_total: frames.total,
        frames_lost: frames.lost,
        frames_late: frames.late,
      };
    },
  };
}

/**
 * The caller's voice in this trial: with a voice spread of N, one of the first N flite
 * personas, picked from the trial's seed; else the configured one.
 */
export function trialVoice(speech: SpeechOptions, seed: string): string | undefined {
  const n = Math.min(speech.voice_spread ?? 0, FLITE_PERSONAS.length);
  if (n < 1 || speech.tts.provider !== "flite") return speech.voices.user;
  return FLITE_PERSONAS[seedFrom(`${seed}\nvoice`) % n];
}

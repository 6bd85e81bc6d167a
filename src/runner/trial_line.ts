/**
 * A trial's phone lines (audio calls): the line the caller's audio crosses, from
 * `eval --line` or else the scenario's `user.line`, seeded from the trial's seed so
 * the same trial gets the same noise and the same lost frames everywhere; with `both`,
 * a second line (its own seed) for the agent's audio as callbench hears it. And the
 * record's `audio.line` block. A clean line given is a line (it sets the speech's level);
 * none given is none.
 *
 * @module
 */
import type { CallOutcome } from "../bridge/bridge.ts";
import type { Side } from "../domains/domain.ts";
import { Line, seedFrom, speechLevelDbfs } from "../audio/line/line.ts";
import { parseLine } from "../audio/line/spec.ts";
import type { SpeechOptions } from "../speech/speech_options.ts";
import type { AudioBlock } from "./audio_block.ts";
import { FLITE_PERSONAS, parseFliteVoice } from "../speech/_flite_wasi.ts";
import type { UserVoice } from "../speech/user_voice.ts";
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
  // A clean line given is a line: it sets the speech's level as every line does.
  const spec = parseLine(preset);
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
        speech_dbfs: (outcome.audio ?? []).filter((a) => a.side === "user" && a.heard).map((a) =>
          speechLevelDbfs(a.heard!, a.utterance.audio!)
        ),
        frames_total: frames.total,
        frames_lost: frames.lost,
        frames_late: frames.late,
      };
    },
  };
}

/** Who chose a trial's caller voice. */
export type VoiceChoice = "scenario" | "spread" | "run";

/**
 * The caller's voice in this trial, and who chose it: the scenario's `user.voice` (its
 * name, else the voice the run would give, with its rate and pitch for flite) wins; else,
 * with a voice spread of N, one of the first N flite personas, picked from the trial's
 * seed; else the configured one.
 */
export function trialVoice(
  speech: SpeechOptions,
  seed: string,
  persona?: UserVoice,
): { voice: string | undefined; from: VoiceChoice } {
  const n = Math.min(speech.voice_spread ?? 0, FLITE_PERSONAS.length);
  const spread = n >= 1 && speech.tts.provider === "flite";
  const run = spread ? FLITE_PERSONAS[seedFrom(`${seed}\nvoice`) % n] : speech.voices.user;
  if (!persona) return { voice: run, from: spread ? "spread" : "run" };
  if (speech.tts.provider !== "flite") return { voice: persona.name ?? run, from: "scenario" };
  const base = parseFliteVoice(run ?? "slt");
  const name = persona.name ?? base?.name ?? "slt";
  // A persona's own rate and pitch, else those of the voice it takes its name from.
  const rate = persona.rate ?? (persona.name ? undefined : base?.rate);
  const pitch = persona.pitch ?? (persona.name ? undefined : base?.pitch);
  return {
    voice: `${name}${rate !== undefined ? `:rate=${rate}` : ""}${
      pitch !== undefined ? `:pitch=${pitch}` : ""
    }`,
    from: "scenario",
  };
}

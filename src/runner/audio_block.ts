/**
 * The trial record's `audio` block (audio calls): its schema only, so that reading
 * records loads no audio code. `audio_metrics.ts` fills it.
 *
 * @module
 */
import { z } from "zod";

/** A quiet stretch at least this long counts as a silence gap. */
export const SILENCE_GAP_MS = 1000;

const ms = z.number();

/** The record's `audio` block (audio calls only). */
export const AudioBlockSchema = z.object({
  tts: z.object({
    provider: z.string().describe('The TTS provider, e.g. "flite"'),
    model: z.string().optional().describe("The TTS model, when it has one"),
    voices: z.object({
      agent: z.string().nullable().describe("The agent's voice (null: the provider's default)"),
      user: z.string().nullable().describe("The caller's voice"),
    }),
  }).describe("Text to speech used for both sides"),
  stt: z.string().describe('Speech to text of the agent\'s audio: "transcript" or "openai"'),
  dtmf: z.enum(["inband", "event"]).describe("How keys and beeps travelled"),
  sample_rate: z.number().int().describe("The line's audio rate (Hz)"),
  sides: z.object({
    agent: z.object({ sent_s: ms, received_s: ms }),
    user: z.object({ sent_s: ms, received_s: ms }),
  }).describe("Seconds of audio each side sent and received (speech and tones)"),
  ttfa_ms: ms.nullable().describe(
    "Time to first audio: call start to the agent's first voiced audio (VAD); null if none",
  ),
  turns: z.array(z.object({
    turn: z.number().int().nonnegative().describe("Index into `turns` of the agent turn"),
    v2v_ms: ms.describe(
      "Voice-to-voice latency: end of the caller's voiced audio to the agent's first voiced audio (VAD)",
    ),
    ref_frame_ms: ms.describe(
      "Reference live latency: the agent's first audio frame after the caller stopped speaking",
    ),
    ref_segment_ms: ms.describe(
      "Reference post-hoc latency: agent segment start − (caller segment end − 0.3 s)",
    ),
  })).describe("Per agent turn that answers the caller"),
  barge_ins: z.array(z.object({
    at_ms: ms.describe("When the caller started speaking over the agent"),
    agent_turn: z.number().int().nonnegative().describe("Index into `turns` of the agent turn"),
    yielded: z.boolean().describe("The agent stopped before its utterance's end"),
    yield_ms: ms.describe("From the caller's start to the end of the agent's audio"),
  })).describe("The caller interrupting the agent"),
  silence: z.object({
    count: z.number().int().nonnegative().describe(`Gaps of ${SILENCE_GAP_MS} ms or more`),
    total_ms: ms.describe("Their total length"),
    max_ms: ms.describe("The longest quiet stretch between first and last voiced audio"),
  }).describe("Stretches in which neither side's audio was voiced"),
  talk_over_ms: ms.describe("Time both sides' audio was voiced at once"),
  tones: z.array(z.object({
    side: z.enum(["agent", "user"]),
    kind: z.enum(["dtmf", "beep"]),
    at_ms: ms,
    sent: z.string().describe('The keys pressed, or "beep"'),
    heard: z.string().describe('What the listener\'s detector heard ("" nothing)'),
  })).describe("In-band key and beep tones"),
  pacer_late_ms: z.object({
    chunks: z.number().int().nonnegative(),
    p50: ms,
    p99: ms,
    max: ms,
  }).optional().describe(
    "Real-clock calls: how late this call's paced audio chunks went out after their slots " +
      "(the bound is p99 < 5 ms); a late call is visible here",
  ),
  wav: z.string().optional().describe("The stereo recording, relative to the output folder"),
  wav_error: z.string().optional().describe("Why the recording could not be written"),
});
export type AudioBlock = z.infer<typeof AudioBlockSchema>;

/** How the call was configured, named in the block. */
export type AudioConfig = Pick<AudioBlock, "tts" | "stt" | "dtmf" | "sample_rate">;

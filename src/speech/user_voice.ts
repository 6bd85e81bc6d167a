/**
 * A caller's voice as scenario and flow files give it (`user.voice`, a flow scenario's
 * `voice`): a TTS voice name, and for flite a speaking rate and a pitch. The runner
 * turns it into the provider's voice (`trialVoice`, src/runner/trial_line.ts).
 *
 * @module
 */
import { z } from "zod";

const RATE = "expected a speaking rate from 0.5 to 2 (1 is the voice's own)";
const PITCH = "expected a pitch from 50 to 400 Hz";
/** The longest voice name taken (the providers' names are a few characters). */
export const MAX_VOICE_NAME_CHARS = 200;
/** A caller's voice (audio calls): a voice, and flite's speaking rate and pitch. */
export const UserVoiceSchema = z.object({
  name: z.string().min(1).max(MAX_VOICE_NAME_CHARS).optional().describe(
    "The TTS voice (flite: slt, rms, awb, kal16 or kal; openai: its voice name); absent: the run's",
  ),
  rate: z.number().min(0.5, RATE).max(2, RATE).optional().describe(
    "flite: speaking rate, 1 is the voice's own, 1.2 is 20% faster (0.5 to 2)",
  ),
  pitch: z.number().min(50, PITCH).max(400, PITCH).optional().describe(
    "flite: the mean pitch in Hz (50 to 400), e.g. 190 for a higher voice",
  ),
}).strict().refine(
  (v) => v.name !== undefined || v.rate !== undefined || v.pitch !== undefined,
  "expected at least one of name, rate and pitch",
);
/** A scenario's caller voice. */
export type UserVoice = z.infer<typeof UserVoiceSchema>;

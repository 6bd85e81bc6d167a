/**
 * The trial record's `audio` block (audio calls): its schema only, so that reading
 * records loads no audio code. `audio_metrics.ts` fills it.
 *
 * @module
 */
import { z } from "zod";
import { BEHAVIOURS } from "../speech/behaviour.ts";

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
    user_voice_from: z.enum(["scenario", "spread", "run"]).optional().describe(
      "Who chose the caller's voice: the scenario's user.voice (it wins), the run's voice " +
        "spread, or the run's caller voice (else the default)",
    ),
  }).describe("Text to speech used for both sides"),
  stt: z.string().describe('Speech to text of the agent\'s audio: "transcript" or "openai"'),
  dtmf: z.enum(["inband", "event", "info"]).describe("How keys and beeps travelled"),
  sample_rate: z.number().int().describe("The line's audio rate (Hz)"),
  sides: z.object({
    agent: z.object({ sent_s: ms, received_s: ms }),
    user: z.object({ sent_s: ms, received_s: ms }),
  }).describe("Seconds of audio each side sent and received (speech and tones)"),
  connect_ms: ms.optional().describe(
    "Call time the call was connected: both ends set up, the handshakes done (kept apart from TTFA)",
  ),
  ttfa_ms: ms.nullable().describe(
    "Time to first audio: from the connection (connect_ms) to the agent's first speech by energy; null if none",
  ),
  turns: z.array(z.object({
    turn: z.number().int().nonnegative().describe("Index into `turns` of the agent turn"),
    v2v_ms: ms.describe(
      "Voice-to-voice latency: the caller's last speech frame as sent to the agent's first as heard (energy, 10 ms frames)",
    ),
    ref_frame_ms: ms.describe(
      "Reference live latency: the agent's first audio frame heard − the caller's last audio sample sent",
    ),
    ref_segment_ms: ms.describe(
      "Reference post-hoc latency: agent turn's audio start − (caller turn's audio end − 0.3 s)",
    ),
  })).describe("Per agent turn that answers the caller"),
  agent_turns: z.array(z.object({
    turn: z.number().int().nonnegative().describe("Index into `turns` of the agent turn"),
    voiced_ms: ms.describe("Milliseconds of the turn's audio the VAD found voiced"),
    source: z.enum(["agent_audio", "harness_playout"]).describe(
      "agent_audio: the agent's own audio, as received; harness_playout: callbench's synthesis of its text",
    ),
  })).optional().describe("Each agent turn with words, and how much of its audio was voiced"),
  barge_ins: z.array(z.object({
    at_ms: ms.describe("When the caller started speaking over the agent"),
    agent_turn: z.number().int().nonnegative().describe("Index into `turns` of the agent turn"),
    yielded: z.boolean().describe(
      "The agent stopped: its own voice before the caller's ended (agent_audio), or callbench cut its synthesis (harness_playout)",
    ),
    yield_ms: ms.describe(
      "From the caller's start of speech to the agent's end of speech in that turn, both by energy (agent_audio), or to the end of callbench's playout (harness_playout)",
    ),
    source: z.enum(["agent_audio", "harness_playout"]).optional().describe(
      "agent_audio: measured on the agent's own audio; harness_playout: callbench synthesized the agent's text and cut it itself, so the figure is the harness's, not the agent's",
    ),
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
  line: z.object({
    preset: z.string().describe(
      "The line as given (the run's, else the scenario's user.line), e.g. phone+street@10",
    ),
    text: z.string().describe(
      "Its canonical text: every term in the order it applies, every value written out",
    ),
    both: z.boolean().describe("The agent's audio crossed the line too, as callbench heard it"),
    snr_db: z.array(z.number().nullable()).describe(
      "The SNR measured on each caller utterance, in order (active speech over the noise added; null: silent or no noise bed)",
    ),
    speech_dbfs: z.array(z.number().nullable()).optional().describe(
      "The active level of each caller utterance as the agent heard it, in order (dBFS, noise included; " +
        "every line sets speech to -26 dBFS first, then volume@ moves it; null: silent)",
    ),
    frames_total: z.number().int().nonnegative().describe(
      "The caller's 20 ms frames over the call",
    ),
    frames_lost: z.number().int().nonnegative().describe("Of those, lost by the network (loss@)"),
    frames_late: z.number().int().nonnegative().describe(
      "Of those, late past the jitter buffer (jitter@)",
    ),
  }).optional().describe(
    "The phone line the caller's audio crossed (absent: none given; a clean line given is here); the WAV's caller channel is what the agent heard",
  ),
  caller_events: z.array(z.object({
    kind: z.enum(BEHAVIOURS).describe("The behaviour acted out"),
    start_ms: ms.describe("Its start: the utterance's, or for pause and late the silence's"),
    end_ms: ms.describe("Its end"),
    turn: z.number().int().nonnegative().describe("Index into `turns` of the caller utterance"),
  })).optional().describe(
    "The caller's behaviours acted out (the run's or the scenario's user.behaviour), at their call times: " +
      "backchannel, filler, side and interrupt are the utterance's span, pause and late the silence before it",
  ),
  wav: z.string().optional().describe("The stereo recording, relative to the output folder"),
  wav_error: z.string().optional().describe("Why the recording could not be written"),
});
export type AudioBlock = z.infer<typeof AudioBlockSchema>;

/** How the call was configured, named in the block. */
export type AudioConfig = Pick<AudioBlock, "tts" | "stt" | "dtmf" | "sample_rate">;

/**
 * A TTS for tests of audio calls: every utterance is a 300 Hz tone at 16 kHz (−18 dBFS),
 * 100 ms a word, voiced to the end of its last frame, so every time in a test follows
 * from the words.
 */
import { pcm16, sine } from "../audio/pcm.ts";
import type { TtsProvider, TtsResult } from "../speech/speech.ts";

export const toneTts: TtsProvider = {
  info: { provider: "fake", sampleRate: 16000 },
  synthesize(r: { text: string }): Promise<TtsResult> {
    const words = r.text.split(/\s+/).length;
    return Promise.resolve({ ok: true, audio: pcm16(sine(16000, 300, 100 * words, 6000), 16000) });
  },
  close: () => Promise.resolve(),
};

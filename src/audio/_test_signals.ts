/**
 * Speech-like test signals: a synthetic voiced signal (a glottal pulse train with a
 * wandering pitch through vowel formants, with syllable-rate amplitude) and real TTS
 * speech from flite, synthesized on this thread for tests.
 *
 * @module
 */
import { mulberry32 } from "../random/mulberry32.ts";
import {
  fliteVoiceRate,
  loadFlite,
  silenceWasiWarning,
  synthesizeWithFlite,
} from "../speech/_flite_wasi.ts";
import type { FliteVoice } from "../speech/_flite_wasi.ts";
import { clip16 } from "./pcm.ts";
import { resample } from "./resample.ts";

const VOWELS = [[730, 1090, 2440], [270, 2290, 3010], [300, 870, 2240], [530, 1840, 2480], [
  570,
  840,
  2410,
]];

/**
 * A seeded vowel-like signal: pitch 90-250 Hz, formants, syllables of 150-300 ms,
 * scaled to an RMS of `rms` (default 3000, about -21 dBFS).
 */
export function voicedSignal(sampleRate: number, ms: number, seed: number, rms = 3000): Int16Array {
  const rand = mulberry32(seed);
  const n = Math.round((sampleRate * ms) / 1000);
  const raw = new Float64Array(n);
  // Two-pole resonators per formant.
  const state = [0, 0, 0, 0, 0, 0];
  let phase = 0;
  let f0 = 90 + rand() * 160;
  let vowel = VOWELS[0]!;
  let syllableLeft = 0;
  let syllableLen = 1;
  for (let i = 0; i < n; i++) {
    if (syllableLeft <= 0) {
      syllableLen = Math.round(sampleRate * (0.15 + rand() * 0.15));
      syllableLeft = syllableLen;
      vowel = VOWELS[Math.floor(rand() * VOWELS.length)]!;
      f0 = Math.min(250, Math.max(90, f0 + (rand() - 0.5) * 60));
    }
    syllableLeft--;
    phase += f0 / sampleRate;
    const pulse = phase >= 1 ? 1 : 0;
    if (phase >= 1) phase -= 1;
    let y = pulse + (rand() - 0.5) * 0.02;
    for (let f = 0; f < 3; f++) {
      const freq = vowel[f]!;
      if (freq >= sampleRate / 2) continue;
      const r = Math.exp((-Math.PI * 80 * (f + 1)) / sampleRate);
      const c = 2 * r * Math.cos((2 * Math.PI * freq) / sampleRate);
      const v = y + c * state[2 * f]! - r * r * state[2 * f + 1]!;
      state[2 * f + 1] = state[2 * f]!;
      state[2 * f] = v;
      y = v * (1 - r);
    }
    const env = Math.sin((Math.PI * (syllableLen - syllableLeft)) / syllableLen);
    raw[i] = y * env;
  }
  let p = 0;
  for (const x of raw) p += x * x;
  const gain = p > 0 ? rms / Math.sqrt(p / n) : 0;
  return Int16Array.from(raw, (x) => clip16(x * gain));
}

let fliteDir: string | undefined;
/** Flite output by voice and text, at the voice's own rate. */
const spoken = new Map<string, Promise<Int16Array>>();

/** Flite speech at `sampleRate` (resampled from the voice's rate when they differ). */
export async function fliteSpeech(
  text: string,
  sampleRate = 16000,
  voice: FliteVoice = "slt",
): Promise<Int16Array> {
  const key = JSON.stringify([text, voice]);
  let made = spoken.get(key);
  if (!made) {
    made = (async () => {
      silenceWasiWarning();
      if (!fliteDir) {
        const dir = await Deno.makeTempDir({ prefix: "callbench-test-flite-" });
        fliteDir = dir;
        globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));
      }
      return (await synthesizeWithFlite(await loadFlite(), voice, text, fliteDir)).samples;
    })();
    spoken.set(key, made);
  }
  const samples = await made;
  const rate = fliteVoiceRate(voice);
  return rate === sampleRate ? samples.slice() : resample(samples, rate, sampleRate);
}

/** Sentences for tests (written for this project). */
export const TEST_SENTENCES = [
  "Thank you for calling. How can I help you today?",
  "I would like to change my flight to Tuesday morning, please.",
  "Your confirmation code is seven, Q, four, Z, nine, B.",
  "I am sorry, I did not catch that. Could you repeat the last four digits?",
  "The refund of two hundred and twelve dollars will reach your card in five days.",
  "Please hold while I check the seats on the later departure.",
];

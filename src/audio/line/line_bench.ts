/**
 * A line's cost per call stage, on `phone+street@10+loss@3%` at 16 kHz: one 3 s
 * utterance through the line (the speech's part cached, as for TTS-cached audio) and
 * read, the same with its samples never read (the SNR reference alone: what an
 * in-process listener that ignores audio costs), and 20 s of the line's noise into a
 * recording's silence.
 *
 * @module
 */
import { pcm16 } from "../pcm.ts";
import { voicedSignal } from "../_test_signals.ts";
import { Line, seedFrom } from "./line.ts";
import { parseLine } from "./spec.ts";

const rate = 16000;
const spec = parseLine("phone+street@10+loss@3%");
const utterance = pcm16(voicedSignal(rate, 3000, 1), rate);
let call = 0;

Deno.bench(
  "line: a 3 s utterance through phone+street@10+loss@3%, heard",
  { group: "line" },
  () => {
    const line = new Line(spec, seedFrom(`trial-${call++}`));
    line.apply(utterance, 1000 + (call % 50) * 137).samples;
  },
);
Deno.bench("line: the same, its SNR only (samples never read)", { group: "line" }, () => {
  const line = new Line(spec, seedFrom(`trial-${call++}`));
  line.apply(utterance, 1000 + (call % 50) * 137);
});
const recording = new Int16Array(rate * 20);
Deno.bench("line: 20 s of the line's noise into a recording", { group: "line" }, () => {
  const line = new Line(spec, seedFrom(`trial-${call++}`));
  line.fill(recording, 0, 0, rate);
});

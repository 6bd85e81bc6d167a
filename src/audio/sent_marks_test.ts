import assert from "node:assert/strict";
import type { PacedChunk } from "./pacer.ts";
import { SentMarks } from "./sent_marks.ts";

const RATE = 16000;
/** A 16 ms chunk (256 samples) with `audio` samples of queued audio in it. */
const chunk = (index: number, audio: number, late = 0): PacedChunk => ({
  samples: new Int16Array(256),
  index,
  dueAt: index * 16,
  sentAt: index * 16 + late,
  audioSamples: audio,
});

Deno.test("SentMarks: an utterance starts at its chunk's slot, after what was queued before it", () => {
  const marks = new SentMarks(RATE);
  const at: number[] = [];
  marks.queued(128, (ms) => at.push(ms));
  marks.queued(256, (ms) => at.push(ms));
  marks.sent(chunk(3, 256));
  assert.deepEqual(at, [48, 56]);
});

Deno.test("SentMarks: a chunk sent late (the pacer catching up) carries its audio out when it was sent, not at its slot", () => {
  const marks = new SentMarks(RATE);
  const at: number[] = [];
  marks.queued(256, (ms) => at.push(ms));
  marks.sent(chunk(0, 256, 21));
  assert.deepEqual(at, [21]);
});

Deno.test("SentMarks: a late chunk's audio also tells its slot on the grid, where the rest of the utterance is", () => {
  const marks = new SentMarks(RATE);
  const at: [number, number][] = [];
  marks.queued(128, (ms, grid) => at.push([ms, grid]));
  marks.queued(256, (ms, grid) => at.push([ms, grid]));
  marks.sent(chunk(2, 256, 21));
  assert.deepEqual(at, [[53, 32], [61, 40]]);
});

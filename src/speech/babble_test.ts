import assert from "node:assert/strict";
import { hasBabbleTalkers, noiseBed } from "../audio/line/beds.ts";
import { parseLine } from "../audio/line/spec.ts";
import { LINE_FRAME_MS } from "../audio/line/line.ts";
import { BABBLE_VOICES, babbleSentence, prepareLineBeds } from "./babble.ts";

Deno.test("babble sentences are seeded: the same every run, varied within and between talkers", () => {
  const all = BABBLE_VOICES.flatMap((_, k) => [0, 1, 2, 3].map((i) => babbleSentence(k, i)));
  assert.deepEqual(
    all,
    BABBLE_VOICES.flatMap((_, k) => [0, 1, 2, 3].map((i) => babbleSentence(k, i))),
  );
  assert.ok(new Set(all).size >= all.length - 2, `${new Set(all).size} of ${all.length} differ`);
  for (const s of all) assert.match(s, /^[A-Z][A-Za-z ,]+\.$/);
});

/** Coefficient of variation of the 20 ms frames' power: speech comes and goes, noise stays. */
function frameVariation(x: Float32Array, rate: number): number {
  const f = (rate * LINE_FRAME_MS) / 1000;
  const p: number[] = [];
  for (let i = 0; i + f <= x.length; i += f) {
    let s = 0;
    for (let j = i; j < i + f; j++) s += x[j]! * x[j]!;
    p.push(s / f);
  }
  const mean = p.reduce((a, b) => a + b, 0) / p.length;
  const sd = Math.sqrt(p.reduce((a, b) => a + (b - mean) ** 2, 0) / p.length);
  return sd / mean;
}

Deno.test("the babble bed is flite talkers, made once per thread: it comes and goes like speech", async () => {
  await prepareLineBeds(parseLine("clean"));
  await prepareLineBeds(parseLine("phone+babble@10"));
  assert.ok(hasBabbleTalkers());
  const started = performance.now();
  await prepareLineBeds(parseLine("babble@5"));
  assert.ok(performance.now() - started < 50, "made once: a second line waits for nothing");
  const rate = 16000;
  const babble = noiseBed("babble", rate, 0);
  const pink = noiseBed("pink", rate, 0);
  const white = noiseBed("white", rate, 0);
  // Six talkers still leave the level moving with their syllables and pauses (measured:
  // babble 0.68, pink 0.48, white 0.08).
  const v = (x: Float32Array) => frameVariation(x, rate);
  assert.ok(v(babble) > 1.2 * v(pink) && v(babble) > 4 * v(white), `babble ${v(babble)}`);
  // Variants differ (another mix of offsets and levels); a variant is the same bytes again.
  assert.notDeepEqual(noiseBed("babble", rate, 1), babble);
  assert.equal(noiseBed("babble", rate, 0), babble);
});

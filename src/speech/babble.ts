/**
 * The talkers of the `babble` noise bed: several flite voices, each saying seeded
 * sentences (made here from short word lists, not taken from any text), trimmed and
 * strung together with pauses. Made once per thread, the first time a line with
 * `babble` is prepared, in a flite Worker of its own (the thread's event loop keeps
 * running), then handed to the bed (`setBabbleTalkers`, src/audio/line/beds.ts), which
 * mixes them at seeded offsets and levels into its loops. Deterministic: the same
 * voices, sentences and pauses every time.
 *
 * @example
 * ```ts
 * await prepareLineBeds(parseLine("phone+babble@10")); // a second or so, once
 * const line = new Line(parseLine("phone+babble@10"), seed);
 * ```
 *
 * @module
 */
import { BED_LOOP_S, hasBabbleTalkers, setBabbleTalkers } from "../audio/line/beds.ts";
import type { LineSpec } from "../audio/line/spec.ts";
import { mulberry32 } from "../random/mulberry32.ts";
import { FLITE_PERSONAS } from "./_flite_wasi.ts";

/** The babble's talkers: six flite personas (four voices, two of them at other rates and pitches). */
export const BABBLE_VOICES: readonly string[] = FLITE_PERSONAS.slice(0, 6);
/** The rate the talkers are made at (flite's general voices' own). */
export const BABBLE_RATE = 16000;

const SUBJECTS = [
  "the bus",
  "my brother",
  "our table",
  "the new manager",
  "that little shop",
  "her cousin",
  "the coffee here",
  "this weekend",
  "the match",
  "your order",
  "the garden",
  "his car",
];
const VERBS = ["was", "is", "will be", "seemed", "looked", "felt"];
const COMPLEMENTS = [
  "late again",
  "really good",
  "closed on Monday",
  "much too loud",
  "back in town",
  "right on the corner",
  "quite expensive",
  "almost ready",
  "full of people",
  "a bit strange",
];
const TAILS = ["", "", "I think", "you know", "last night", "by the way", "after lunch"];

/** Sentence `i` of talker `k` (seeded, the same every run). */
export function babbleSentence(k: number, i: number): string {
  const rand = mulberry32(0xbabb1e + 7919 * k + i);
  const pick = (xs: readonly string[]) => xs[Math.floor(rand() * xs.length)]!;
  const s = `${pick(SUBJECTS)} ${pick(VERBS)} ${pick(COMPLEMENTS)}`;
  const tail = pick(TAILS);
  return `${s[0]!.toUpperCase()}${s.slice(1)}${tail ? `, ${tail}` : ""}.`;
}

let made: Promise<void> | undefined;

/** Makes the babble's talkers once per thread (later calls wait for the first). */
export function prepareBabble(): Promise<void> {
  if (hasBabbleTalkers()) return Promise.resolve();
  made ??= makeTalkers();
  // A failure (flite could not load) is tried again next time.
  made.catch(() => made = undefined);
  return made;
}

/** Whatever the line's noise beds need made before a call: the babble's talkers. */
export async function prepareLineBeds(spec: LineSpec): Promise<void> {
  if (spec.noise.some((n) => n.bed === "babble")) await prepareBabble();
}

async function makeTalkers(): Promise<void> {
  const { FliteTts } = await import("./tts_flite.ts");
  const tts = new FliteTts({ sampleRate: BABBLE_RATE });
  try {
    // A bit more than a loop per talker, so no talker repeats within one.
    const need = Math.ceil((BED_LOOP_S + 0.5) * BABBLE_RATE);
    const tracks = await Promise.all(BABBLE_VOICES.map(async (voice, k) => {
      const rand = mulberry32(0x5eed + k);
      const parts: Int16Array[] = [];
      let length = 0;
      for (let i = 0; length < need; i++) {
        const r = await tts.synthesize({ text: babbleSentence(k, i), voice });
        if (!r.ok) throw new Error(`Cannot make the babble bed: ${r.error.message}`);
        // A pause of 0.2–0.8 s after each sentence (the track ends in one: a clean wrap).
        const pause = new Int16Array(Math.round((0.2 + 0.6 * rand()) * BABBLE_RATE));
        parts.push(r.audio.samples, pause);
        length += r.audio.samples.length + pause.length;
      }
      const track = new Int16Array(length);
      let o = 0;
      for (const p of parts) {
        track.set(p, o);
        o += p.length;
      }
      return track;
    }));
    setBabbleTalkers(tracks, BABBLE_RATE);
  } finally {
    await tts.close();
  }
}

/**
 * `deno task bench:voice-truth --random N`: N seeded random conversations a wire
 * (`tests/_conversation_gen.ts`) against the truth agents on the real clock, each
 * figure against the agent's own log; prints per wire the number of figures, the bias
 * and the largest error of v2v and of the WAV's placement, and the seeds that missed the
 * truth tests' bound (median 20 ms, each 40 ms), so any one can be run again.
 *
 * @module
 */
import type { TtsProvider } from "../src/speech/speech.ts";
import {
  describe,
  type GeneratedResult,
  type GeneratedWire,
  runGenerated,
} from "../tests/_conversation_gen.ts";
import { boundMisses } from "../tests/_truth_checks.ts";

const f = (x: number) => Number.isFinite(x) ? x.toFixed(1) : "-";

function stats(xs: number[]): { n: number; bias: number; max: number } {
  const ok = xs.filter((x) => Number.isFinite(x));
  const bias = ok.reduce((a, b) => a + b, 0) / Math.max(1, ok.length);
  return { n: ok.length, bias, max: Math.max(0, ...ok.map(Math.abs)) };
}

/** Runs `n` seeds (from `first`) on each wire, `concurrency` calls at a time. */
export async function runRandom(
  n: number,
  wires: readonly GeneratedWire[],
  tts: TtsProvider,
  concurrency: number,
  first = 1,
): Promise<boolean> {
  let allOk = true;
  console.log(
    `| wire | calls | v2v n | v2v bias | v2v max | WAV n | WAV bias | WAV max | seeds missed |`,
  );
  console.log(`|---|---|---|---|---|---|---|---|---|`);
  for (const wire of wires) {
    const results: GeneratedResult[] = [];
    const seeds = Array.from({ length: n }, (_, i) => first + i);
    let next = 0;
    await Promise.all(Array.from({ length: Math.max(1, concurrency) }, async () => {
      while (next < seeds.length) {
        const seed = seeds[next++]!;
        try {
          results.push(await runGenerated(seed, wire, tts));
        } catch (e) {
          console.error(`seed ${seed} over ${wire}: ${e instanceof Error ? e.message : e}`);
          allOk = false;
        }
      }
    }));
    const v = stats(results.flatMap((r) => r.v2v.map((m) => m.errorMs)));
    const w = stats(results.flatMap((r) => r.wav.map((m) => m.errorMs)));
    const missed = results.filter((r) => boundMisses(r.v2v).length + boundMisses(r.wav).length > 0);
    for (const r of missed) console.error(describe(r, [...r.v2v, ...r.wav]));
    if (missed.length > 0) allOk = false;
    console.log(
      `| ${wire} | ${results.length} | ${v.n} | ${f(v.bias)} | ${f(v.max)} | ${w.n} | ${
        f(w.bias)
      } | ${f(w.max)} | ${missed.map((r) => r.conversation.seed).join(" ") || "none"} |`,
    );
  }
  return allOk;
}

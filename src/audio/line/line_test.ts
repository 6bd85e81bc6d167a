import assert from "node:assert/strict";
import { mulawDecode, mulawEncode } from "../mulaw.ts";
import { clip16, pcm16, sine } from "../pcm.ts";
import { Biquad, cascade } from "./filters.ts";
import { BED_LOOP_S, noiseBed } from "./beds.ts";
import { GilbertElliott, JitterBuffer } from "./loss.ts";
import {
  activePower,
  g711RoundTrip,
  Line,
  LINE_FRAME_MS,
  NOMINAL_SPEECH_DBFS,
  seedFrom,
  speechLevelDbfs,
} from "./line.ts";
import { LineSyntaxError, lineText, NOISE_BEDS, parseLine } from "./spec.ts";
import { prepareBabble } from "../../speech/babble.ts";

/** A speech-like test signal: a 200 Hz buzz with harmonics, in syllables, with a pause. */
function speechLike(rate: number, ms: number): Int16Array {
  const n = Math.round((rate * ms) / 1000);
  const x = new Int16Array(n);
  for (let i = 0; i < n; i++) {
    const t = i / rate;
    const env = (t % 0.25) < 0.18 && (t < 0.8 || t > 1.1) ? 1 : 0;
    const v = Math.sin(2 * Math.PI * 200 * t) + 0.5 * Math.sin(2 * Math.PI * 400 * t) +
      0.3 * Math.sin(2 * Math.PI * 1200 * t);
    x[i] = Math.round(6000 * env * v);
  }
  return x;
}

Deno.test("parseLine() reads presets and compositions; lineText() is the same for every spelling", () => {
  assert.equal(lineText(parseLine("clean")), "clean");
  assert.equal(
    lineText(parseLine("phone+street@10+loss@3%")),
    "street@10+phone+loss@0.03/2/silence",
  );
  assert.equal(
    lineText(parseLine("loss@3%+street@10dB+phone")),
    lineText(parseLine("phone+street@10+loss@0.03")),
  );
  assert.deepEqual(parseLine("loss@5%/4/repeat").loss, { rate: 0.05, burst: 4, conceal: "repeat" });
  assert.deepEqual(parseLine("noisy-cafe").noise, [{ bed: "noisy-cafe", snr_db: 10 }]);
  assert.equal(parseLine("white@15").noise[0]!.snr_db, 15);
  assert.equal(parseLine("jitter@30").jitter_ms, 30);
  assert.equal(parseLine("volume@-6").volume_db, -6);
  assert.equal(parseLine("muffled").muffled_hz, 1000);
  assert.equal(parseLine("clip").clip_db, 20);
  for (
    const bad of [
      "hiss",
      "loss@150%",
      "phone+phone",
      "clean+phone",
      "white@loud",
      "loss",
      "jitter@-1",
    ]
  ) {
    assert.throws(() => parseLine(bad), LineSyntaxError, bad);
  }
});

Deno.test("every noise bed mixes at the SNR asked, measured on the utterance within 0.5 dB", async () => {
  await prepareBabble();
  const rate = 16000;
  const speech = pcm16(speechLike(rate, 2500), rate);
  for (const bed of NOISE_BEDS) {
    for (const snr of [0, 10, 20]) {
      for (const seed of [1, 2, 3]) {
        const line = new Line(parseLine(`${bed}@${snr}`), seed);
        const heard = line.apply(speech, 1234 * seed);
        // Measured again from outside: the speech at the nominal level against what was added.
        const gain = Math.sqrt(
          32768 * 32768 * 10 ** (NOMINAL_SPEECH_DBFS / 10) / activePower(speech.samples, rate),
        );
        const clean = Float32Array.from(speech.samples, (v) => v * gain);
        const noise = Float32Array.from(heard.samples, (v, i) => v - clean[i]!);
        const got = 10 * Math.log10(activePower(clean, rate) / activeNoiseOf(clean, noise, rate));
        assert.ok(Math.abs(got - snr) < 0.5, `${bed}@${snr} seed ${seed}: ${got.toFixed(2)} dB`);
        assert.ok(Math.abs(line.snrDb[0]! - snr) < 0.5, `${bed}@${snr}: recorded ${line.snrDb[0]}`);
      }
    }
  }
});

function activeNoiseOf(speech: Float32Array, noise: Float32Array, rate: number): number {
  const f = (rate * LINE_FRAME_MS) / 1000;
  let max = 0;
  const p: number[] = [];
  for (let i = 0; i < speech.length; i += f) {
    let s = 0;
    for (let j = i; j < Math.min(speech.length, i + f); j++) s += speech[j]! * speech[j]!;
    p.push(s);
    max = Math.max(max, s);
  }
  let sum = 0;
  let n = 0;
  p.forEach((s, k) => {
    if (s < max / 1000) return;
    for (let j = k * f; j < Math.min(speech.length, (k + 1) * f); j++) {
      sum += noise[j]! * noise[j]!;
      n++;
    }
  });
  return sum / n;
}

Deno.test("phone at 8 kHz is the band-limit then our G.711 codec's round trip, bit for bit", () => {
  const rate = 8000;
  const x = speechLike(rate, 1000);
  const heard = new Line(parseLine("phone"), 7).apply(pcm16(x, rate), 0).samples;
  // What the codec let through is a fixed point of our codec: a second round trip changes nothing.
  assert.deepEqual(g711RoundTrip(heard), heard);
  assert.deepEqual(mulawDecode(mulawEncode(heard)), heard);
  // And it is our codec's round trip of the band-limited signal, set to the nominal level
  // first (within a µ-law step: the line scales after its filters, this before them).
  const ref = g711RoundTrip(bandPass(atNominal(x, rate), 8000));
  heard.forEach((v, i) => {
    const r = ref[i]!;
    assert.ok(Math.abs(v - r) <= Math.max(8, Math.abs(r) / 16), `sample ${i}: ${v} vs ${r}`);
  });
});

/** `x` set to the nominal active level, as every line sets speech first. */
function atNominal(x: Int16Array, rate: number): Int16Array {
  const g = Math.sqrt(32768 * 32768 * 10 ** (NOMINAL_SPEECH_DBFS / 10) / activePower(x, rate));
  return Int16Array.from(x, (v) => clip16(v * g));
}

/** The phone stage's band-limit alone (the same four sections the line uses). */
function bandPass(x: Int16Array, rate: number): Int16Array {
  const f = cascade(Float32Array.from(x), [
    Biquad.highPass(300, rate),
    Biquad.highPass(300, rate),
    Biquad.lowPass(3400, rate),
    Biquad.lowPass(3400, rate),
  ]);
  return Int16Array.from(f, (v) => clip16(v));
}

Deno.test("phone at 16 kHz removes what is above the 8 kHz band", () => {
  const rate = 16000;
  const tone = (hz: number) => pcm16(sine(rate, hz, 500, 8000), rate);
  const line = new Line(parseLine("phone"), 1);
  const level = (hz: number) => activePower(line.apply(tone(hz), 0).samples.subarray(1600), rate);
  assert.ok(level(1000) > 1e6, `1 kHz passes: ${level(1000)}`);
  assert.ok(level(6000) < level(1000) / 1000, `6 kHz is 30 dB down: ${level(6000)}`);
  assert.ok(level(100) < level(1000) / 10, `100 Hz is 10 dB down: ${level(100)}`);
});

Deno.test("Gilbert-Elliott loses the asked share within 10% (20 runs of 10^4 frames), in bursts of the asked mean", () => {
  const total = 10_000;
  for (const [rate, burst] of [[0.03, 2], [0.01, 1], [0.1, 4], [0.2, 3]] as const) {
    let lost = 0;
    let bursts = 0;
    const runs = 20;
    for (let s = 0; s < runs; s++) {
      const ge = new GilbertElliott(rate, burst, 1000 + s);
      for (let k = 0; k < total; k++) {
        if (ge.lost(k)) {
          lost++;
          if (!ge.lost(k - 1) || k === 0) bursts++;
        }
      }
    }
    const got = lost / (runs * total);
    assert.ok(Math.abs(got - rate) / rate < 0.1, `loss ${rate}: got ${got}`);
    const meanBurst = lost / bursts;
    assert.ok(Math.abs(meanBurst - burst) / burst < 0.1, `burst ${burst}: got ${meanBurst}`);
  }
});

Deno.test("a line's lost frames are the line's frames: silence or a repeat of the frame before", () => {
  const rate = 16000;
  const x = pcm16(sine(rate, 440, 2000, 8000), rate);
  const spec = parseLine("loss@20%");
  const line = new Line(spec, 5);
  const heard = line.apply(x, 100).samples;
  const nominal = atNominal(x.samples, rate);
  const f = (rate * LINE_FRAME_MS) / 1000;
  // The audio starts at 100 ms: frame k of the call spans samples (20k - 100) * 16 ...
  const ge = new GilbertElliott(0.2, 2, (5 ^ 0x9e3779b9) >>> 0);
  let checked = 0;
  for (let k = 5; k < 100; k++) {
    const j0 = (k * 20 - 100) * 16;
    const frame = heard.subarray(j0, j0 + f);
    if (ge.lost(k)) {
      assert.ok(frame.every((v) => v === 0), `frame ${k} is silent`);
      checked++;
    } else {
      // The rest is the audio as said, set to the nominal level (within a rounding).
      const said = nominal.subarray(j0, j0 + f);
      assert.ok(frame.every((v, i) => Math.abs(v - said[i]!) <= 1), `frame ${k} is the audio`);
    }
  }
  assert.ok(checked > 5);
  const rep = new Line(parseLine("loss@20%/2/repeat"), 5).apply(x, 100).samples;
  for (let k = 6; k < 100; k++) {
    if (!ge.lost(k)) continue;
    const j0 = (k * 20 - 100) * 16;
    assert.deepEqual(rep.subarray(j0, j0 + f), rep.subarray(j0 - f, j0), `frame ${k} repeats`);
  }
  assert.equal(line.frames(2100).total, 105);
  assert.equal(line.frames(2100).lost, ge.count(105));
});

Deno.test("jitter conceals the frames later than the 60 ms buffer", () => {
  const total = 10_000;
  const share = (ms: number) => new JitterBuffer(ms, 3).count(total) / total;
  assert.equal(share(10), 0);
  assert.ok(Math.abs(share(30) - 0.0228) < 0.005, `${share(30)}`);
  assert.ok(Math.abs(share(60) - 0.1587) < 0.015, `${share(60)}`);
});

Deno.test("the same seed gives the same bytes, whatever order the audio is asked for in; another seed differs", () => {
  const rate = 16000;
  const a = pcm16(speechLike(rate, 1500), rate);
  const b = pcm16(speechLike(rate, 800), rate);
  const spec = parseLine("phone+street@10+loss@3%+muffled+volume@-3");
  const run = (seed: number, reversed: boolean) => {
    const line = new Line(spec, seed);
    const fill = new Int16Array(320);
    if (reversed) {
      const hb = line.apply(b, 5000).samples;
      line.fill(fill, 0, 3000, rate);
      const ha = line.apply(a, 1000).samples;
      return [ha, hb, fill];
    }
    const ha = line.apply(a, 1000).samples;
    line.fill(fill, 0, 3000, rate);
    return [ha, line.apply(b, 5000).samples, fill];
  };
  assert.deepEqual(run(seedFrom("trial-1"), false), run(seedFrom("trial-1"), true));
  assert.notDeepEqual(run(seedFrom("trial-1"), false), run(seedFrom("trial-2"), false));
});

Deno.test("heard audio read late, twice or out of order is the bytes read at once", () => {
  const rate = 16000;
  const a = pcm16(speechLike(rate, 1500), rate);
  const b = pcm16(speechLike(rate, 800), rate);
  const spec = parseLine("phone+street@10+loss@3%/2/repeat");
  const eager = new Line(spec, 7);
  const ea = eager.apply(a, 1000).samples.slice();
  const eb = eager.apply(b, 4000).samples.slice();
  const lazy = new Line(spec, 7);
  const la = lazy.apply(a, 1000);
  const lb = lazy.apply(b, 4000);
  lazy.fill(new Int16Array(rate), 0, 9000, rate); // frames far ahead asked first
  assert.deepEqual(lazy.snrDb, eager.snrDb); // the SNR is known before the samples
  assert.deepEqual(lb.samples, eb);
  assert.deepEqual(la.samples, ea);
  assert.equal(la.samples, la.samples); // worked out once
});

Deno.test("the line's noise fills silence at the bed's level; a clean line and a noiseless one add nothing", () => {
  const rate = 16000;
  const silent = () => new Int16Array(rate);
  const noisy = silent();
  new Line(parseLine("white@20"), 1).fill(noisy, 0, 0, rate);
  const level = 10 * Math.log10(activePower(noisy, rate) / (32768 * 32768));
  assert.ok(Math.abs(level - (NOMINAL_SPEECH_DBFS - 20)) < 0.5, `${level} dBFS`);
  for (const text of ["clean", "phone+loss@3%+volume@6"]) {
    const s = silent();
    new Line(parseLine(text), 1).fill(s, 0, 0, rate);
    assert.ok(s.every((v) => v === 0), text);
  }
  // Only the stretch from `from` on is filled.
  const part = silent();
  new Line(parseLine("white@20"), 1).fill(part, 100, 0, rate);
  assert.ok(part.subarray(0, 100).every((v) => v === 0));
  assert.ok(part.subarray(100).some((v) => v !== 0));
});

Deno.test("volume, muffled and clip do what they say", () => {
  const rate = 16000;
  const tone = (hz: number, amp = 8000) => pcm16(sine(rate, hz, 500, amp), rate);
  const p = (text: string, hz: number, amp?: number) =>
    activePower(new Line(parseLine(text), 1).apply(tone(hz, amp), 0).samples.subarray(800), rate);
  // Every line sets the speech to the nominal level first; the device works from there.
  const ref = 32768 * 32768 * 10 ** (NOMINAL_SPEECH_DBFS / 10);
  assert.ok(Math.abs(10 * Math.log10(p("volume@-6", 1000) / ref) + 6) < 0.1);
  assert.ok(p("muffled", 4000) < ref / 300, "4 kHz through a 1 kHz muffle: > 25 dB down");
  assert.ok(Math.abs(10 * Math.log10(p("muffled", 200) / ref)) < 0.5, "200 Hz passes");
  // A tone's peak is 3 dB over its level (speech's 12-20): 30 dB of drive clips it hard.
  const clipped = new Line(parseLine("clip@30"), 1).apply(tone(500), 0).samples;
  assert.ok(clipped.filter((v) => v === 32767 || v === -32768).length > clipped.length / 2);
});

Deno.test("noise beds are seamless loops at unit power", async () => {
  await prepareBabble();
  for (const bed of NOISE_BEDS) {
    const x = noiseBed(bed, 16000, 0);
    assert.equal(x.length, BED_LOOP_S * 16000);
    let p = 0;
    for (const v of x) p += v * v;
    assert.ok(Math.abs(p / x.length - 1) < 1e-3, bed);
    // The wrap is no bigger a step than the bed's typical one.
    let step = 0;
    for (let i = 1; i < x.length; i++) step = Math.max(step, Math.abs(x[i]! - x[i - 1]!));
    assert.ok(Math.abs(x[0]! - x[x.length - 1]!) <= step, bed);
  }
});

/** sha256 of each line's bytes for fixed utterances, seeds and call times (hex, first 16). */
async function lineDigest(text: string, rate: number, seed: number): Promise<string> {
  const line = new Line(parseLine(text), seed);
  const parts: Int16Array[] = [];
  for (const [ms, at] of [[1500, 400], [900, 2300], [2600, 9100], [700, 17_000]] as const) {
    parts.push(line.apply(pcm16(speechLike(rate, ms), rate), at).samples);
  }
  const fill = new Int16Array(rate * 2);
  line.fill(fill, 10, 12_345, rate);
  parts.push(fill);
  const bytes = new Uint8Array(parts.reduce((t, p) => t + p.byteLength, 0));
  let o = 0;
  for (const p of parts) {
    bytes.set(new Uint8Array(p.buffer, p.byteOffset, p.byteLength), o);
    o += p.byteLength;
  }
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return [...hash.subarray(0, 8)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

// The bytes a line gives for one seed are part of its contract (trials re-run alike):
// a change to them must be deliberate, and then these digests change with a reason.
Deno.test("a line's bytes for a fixed seed are the recorded ones (speed work keeps them bit for bit)", async () => {
  await prepareBabble();
  const got: Record<string, string> = {};
  for (
    const [text, rate] of [
      ["phone+street@10+loss@3%", 16000],
      ["phone+street@10+loss@3%", 8000],
      ["noisy-cafe@5+phone+loss@5%/3/repeat+jitter@30", 16000],
      ["car@15+muffled+volume@-6", 16000],
      ["office+clip+phone", 16000],
      ["babble@10", 24000],
    ] as const
  ) got[`${text} ${rate}`] = await lineDigest(text, rate, seedFrom(`${text}|${rate}`));
  assert.deepEqual(got, LINE_DIGESTS);
});

const LINE_DIGESTS: Record<string, string> = {
  "phone+street@10+loss@3% 16000": "b76b8201f71566c9",
  "phone+street@10+loss@3% 8000": "88b152df9ac2fb12",
  "noisy-cafe@5+phone+loss@5%/3/repeat+jitter@30 16000": "8aba502d981f5287",
  "car@15+muffled+volume@-6 16000": "0196d056831b1532",
  "office+clip+phone 16000": "c53eadf2ff9a2df9",
  // Changed on purpose: babble became six flite voices (it was speech-shaped noise).
  "babble@10 24000": "b55fd2f88626c9d4",
};

Deno.test("every line sets the caller's speech to the same nominal active level: clean and white@10 within 1 dB, whatever level it was said at; volume@dB moves it on purpose (issue 29 point 3)", () => {
  const rate = 16000;
  const level = (text: string, amp: number) => {
    const said = pcm16(speechLike(rate, 2000).map((v) => Math.round(v * amp)), rate);
    return speechLevelDbfs(new Line(parseLine(text), 3).apply(said, 0), said)!;
  };
  for (const amp of [0.25, 1, 3]) {
    const clean = level("clean", amp);
    assert.ok(Math.abs(clean - NOMINAL_SPEECH_DBFS) < 0.2, `clean at ×${amp}: ${clean} dBFS`);
    const noisy = level("white@10", amp);
    assert.ok(Math.abs(noisy - clean) < 1, `white@10 ${noisy} dBFS, clean ${clean} (×${amp})`);
    const louder = level("volume@6", amp);
    assert.ok(Math.abs(louder - clean - 6) < 0.2, `volume@6 ${louder} dBFS, clean ${clean}`);
  }
});

/**
 * What a phone line does to the audio, as text and as data: a preset (`clean`,
 * `phone`, `noisy-cafe`, `street`, `car`, `office`, `babble`, `white@SNR`, `loss@P`,
 * `jitter@MS`, `volume@dB`, `muffled`, `clip`) or several joined by `+`
 * (`phone+street@10+loss@3%`). `parseLine` turns the text into a {@link LineSpec};
 * `lineText` gives the canonical text of a spec (the same for every spelling of one
 * line, so it is what the configuration hash takes).
 *
 * Whatever order the terms are written in, they apply in the order of the path a
 * voice takes: the caller's room (noise beds), the caller's device (`volume`,
 * `muffled`, `clip`), the codec (`phone`), then the network (`loss`, `jitter`).
 *
 * @module
 */

/** The generated noise beds (`src/audio/line/beds.ts`). */
export const NOISE_BEDS = [
  "white",
  "pink",
  "brown",
  "noisy-cafe",
  "street",
  "car",
  "office",
  "babble",
] as const;
export type NoiseBed = (typeof NOISE_BEDS)[number];

/** Each bed's SNR (dB) when the term gives none. */
export const DEFAULT_SNR_DB: Record<NoiseBed, number> = {
  white: 20,
  pink: 20,
  brown: 20,
  "noisy-cafe": 10,
  street: 10,
  car: 15,
  office: 20,
  babble: 10,
};

/** How a lost frame is concealed. */
export type Conceal = "silence" | "repeat";

/** A line, as data. Every field absent: a clean line. */
export interface LineSpec {
  /** Noise beds at the caller's end, each at its own SNR (dB). */
  noise: { bed: NoiseBed; snr_db: number }[];
  /** Gain of the caller's device, dB (negative: quieter). */
  volume_db?: number;
  /** Low-pass cut-off of a muffled microphone, Hz. */
  muffled_hz?: number;
  /** A hot microphone: this much drive (dB), then hard clipping at full scale. */
  clip_db?: number;
  /** G.711: band-limit to 300–3400 Hz, 8 kHz, µ-law encode and decode. */
  phone?: boolean;
  /** Gilbert-Elliott loss of 20 ms frames: mean rate (0–1), mean burst length (frames). */
  loss?: { rate: number; burst: number; conceal: Conceal };
  /** Network jitter: delay spread (ms, standard deviation); frames later than the 60 ms buffer are concealed. */
  jitter_ms?: number;
}

/** The default of `muffled`, `clip` and `loss`'s burst. */
export const MUFFLED_HZ = 1000;
export const CLIP_DB = 20;
export const LOSS_BURST = 2;

/** A term of a line that cannot be read: its text and why. */
export class LineSyntaxError extends Error {
  constructor(readonly term: string, reason: string) {
    super(`"${term}": ${reason}`);
    this.name = "LineSyntaxError";
  }
}

/** The names a line term may have (for hints). */
export const LINE_TERMS = [
  "clean",
  "phone",
  ...NOISE_BEDS.map((b) => `${b}[@SNRdB]`),
  "loss@P[/BURST][/silence|repeat]",
  "jitter@MS",
  "volume@dB",
  "muffled[@HZ]",
  "clip[@dB]",
] as const;

function num(term: string, text: string, what: string): number {
  const x = Number(text);
  if (text.trim() === "" || !Number.isFinite(x)) {
    throw new LineSyntaxError(term, `expected ${what}`);
  }
  return x;
}

function rate(term: string, text: string): number {
  const pct = text.endsWith("%");
  const x = num(term, pct ? text.slice(0, -1) : text, "a loss rate (3% or 0.03)");
  const r = pct ? x / 100 : x;
  if (!(r >= 0 && r < 1)) throw new LineSyntaxError(term, "a loss rate is from 0 to under 100%");
  return r;
}

/** Reads a line's text (`phone+street@10+loss@3%`); throws {@link LineSyntaxError}. */
export function parseLine(text: string): LineSpec {
  const spec: LineSpec = { noise: [] };
  const terms = text.trim().toLowerCase().split("+").map((t) => t.trim());
  for (const term of terms) {
    const at = term.indexOf("@");
    const name = at < 0 ? term : term.slice(0, at);
    const arg = at < 0 ? undefined : term.slice(at + 1);
    const once = (key: keyof LineSpec) => {
      if (spec[key] !== undefined && key !== "noise") {
        throw new LineSyntaxError(term, "given twice");
      }
    };
    if (name === "clean" && arg === undefined) {
      if (terms.length > 1) throw new LineSyntaxError(term, "clean cannot be combined");
      continue;
    }
    if ((NOISE_BEDS as readonly string[]).includes(name)) {
      const bed = name as NoiseBed;
      const snr = arg === undefined
        ? DEFAULT_SNR_DB[bed]
        : num(term, arg.replace(/db$/, ""), "an SNR in dB");
      if (spec.noise.some((n) => n.bed === bed)) throw new LineSyntaxError(term, "given twice");
      spec.noise.push({ bed, snr_db: snr });
    } else if (name === "phone" && arg === undefined) {
      once("phone");
      spec.phone = true;
    } else if (name === "volume" && arg !== undefined) {
      once("volume_db");
      spec.volume_db = num(term, arg.replace(/db$/, ""), "a gain in dB");
    } else if (name === "muffled") {
      once("muffled_hz");
      const hz = arg === undefined
        ? MUFFLED_HZ
        : num(term, arg.replace(/hz$/, ""), "a cut-off in Hz");
      if (!(hz >= 100 && hz <= 8000)) {
        throw new LineSyntaxError(term, "a cut-off from 100 to 8000 Hz");
      }
      spec.muffled_hz = hz;
    } else if (name === "clip") {
      once("clip_db");
      const db = arg === undefined ? CLIP_DB : num(term, arg.replace(/db$/, ""), "a drive in dB");
      if (!(db >= 0 && db <= 60)) throw new LineSyntaxError(term, "a drive from 0 to 60 dB");
      spec.clip_db = db;
    } else if (name === "loss" && arg !== undefined) {
      once("loss");
      const [p, ...rest] = arg.split("/");
      let burst = LOSS_BURST;
      let conceal: Conceal = "silence";
      for (const r of rest) {
        if (r === "silence" || r === "repeat") conceal = r;
        else {
          burst = num(term, r, "a mean burst length in frames, silence or repeat");
          if (!(burst >= 1)) throw new LineSyntaxError(term, "a mean burst is at least 1 frame");
        }
      }
      spec.loss = { rate: rate(term, p!), burst, conceal };
    } else if (name === "jitter" && arg !== undefined) {
      once("jitter_ms");
      const ms = num(term, arg.replace(/ms$/, ""), "a delay spread in ms");
      if (!(ms >= 0 && ms <= 1000)) throw new LineSyntaxError(term, "a spread from 0 to 1000 ms");
      spec.jitter_ms = ms;
    } else {
      throw new LineSyntaxError(term, "unknown line term");
    }
  }
  return spec;
}

/** Whether the line changes nothing. */
export function isClean(spec: LineSpec): boolean {
  return lineText(spec) === "clean";
}

/** The canonical text of a line: its terms in the order they apply, every value written out. */
export function lineText(spec: LineSpec): string {
  const terms: string[] = [];
  for (
    const n of [...spec.noise].sort((a, b) => NOISE_BEDS.indexOf(a.bed) - NOISE_BEDS.indexOf(b.bed))
  ) {
    terms.push(`${n.bed}@${n.snr_db}`);
  }
  if (spec.volume_db !== undefined && spec.volume_db !== 0) terms.push(`volume@${spec.volume_db}`);
  if (spec.muffled_hz !== undefined) terms.push(`muffled@${spec.muffled_hz}`);
  if (spec.clip_db !== undefined) terms.push(`clip@${spec.clip_db}`);
  if (spec.phone) terms.push("phone");
  if (spec.loss && spec.loss.rate > 0) {
    terms.push(`loss@${spec.loss.rate}/${spec.loss.burst}/${spec.loss.conceal}`);
  }
  if (spec.jitter_ms) terms.push(`jitter@${spec.jitter_ms}`);
  return terms.length === 0 ? "clean" : terms.join("+");
}

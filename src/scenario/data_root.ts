/**
 * The data root: a folder laid out as the reference's (`<domain>/...`). Files are
 * read and parsed once per process and frozen, so every scenario and trial shares
 * one copy of each world. The cache is keyed by each file's real path, so every
 * spelling of a path (`a/./db`, `./a/db`, a symlink inside the root) shares that copy,
 * and a path whose real location is outside the root (`..`, an absolute path, a
 * symlink leading out) is refused.
 *
 * @module
 */
import { join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { deepFreeze, freezeWithin } from "../env/deep_freeze.ts";
import { bigIntegerProblem, MAX_DOCUMENT_DEPTH, TOO_DEEP } from "../canonical/document_limits.ts";
import { InputError } from "../problem/problem.ts";
import { locateJsonError } from "../problem/json_error.ts";

/** The bundled data root (`fixtures/`), used when none is given. */
export const BUNDLED_DATA_ROOT = fileURLToPath(new URL("../../fixtures/", import.meta.url));

/** A data root on disk: reads and caches its files, refusing paths that lead out of it. */
export class DataRoot {
  /** The folder, as given. */
  readonly path: string;
  /** Parsed files by real path (a folder of shards by its real path and `/`). */
  readonly #json = new Map<string, unknown>();
  /** Texts by real path, until parsed. */
  readonly #text = new Map<string, string>();
  #realRoot?: string;

  /** A data root at `path` (nothing is read until asked). */
  constructor(path: string) {
    this.path = path;
  }

  /** The root's own real path (symlinks resolved), or its path if it cannot be resolved. */
  get realPath(): string {
    if (this.#realRoot === undefined) {
      try {
        this.#realRoot = Deno.realPathSync(this.path);
      } catch {
        return this.path;
      }
    }
    return this.#realRoot;
  }

  /** How many files and shard folders are held parsed or read (diagnostics, tests). */
  get cachedEntries(): number {
    return this.#json.size + this.#text.size;
  }

  /** Absolute path of `rel`, refusing paths that leave the root as written. */
  resolve(rel: string): string {
    const parts = rel.split(/[\\/]+/);
    if (rel.startsWith("/") || rel.startsWith("\\") || parts.includes("..")) {
      throw new InputError({ file: rel, message: "path leaves the data root" });
    }
    return join(this.path, rel);
  }

  /**
   * The real path of `rel` (symlinks resolved), refusing one that lands outside the
   * root; the key its contents are cached by. The error names `rel` as given, never
   * where a link leads. A path that does not exist is its own key (reading it fails).
   */
  cacheKey(rel: string): string {
    const path = this.resolve(rel);
    let real: string;
    try {
      real = Deno.realPathSync(path);
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) return path;
      throw new InputError({ file: path, message: `cannot read: ${osReason(e)}` });
    }
    const root = this.realPath;
    if (real !== root && !real.startsWith(root.endsWith(sep) ? root : root + sep)) {
      throw new InputError({ file: path, message: "path leaves the data root (through a link)" });
    }
    return real;
  }

  /** Whether `rel` names something inside the root (false too for a path that leaves it). */
  exists(rel: string): boolean {
    try {
      Deno.statSync(this.resolve(rel));
      return true;
    } catch {
      return false;
    }
  }

  /** Text of `rel`, cached. */
  text(rel: string): string {
    const real = this.cacheKey(rel);
    let t = this.#text.get(real);
    if (t === undefined) {
      try {
        t = Deno.readTextFileSync(real);
      } catch (e) {
        throw new InputError({ file: this.resolve(rel), message: `cannot read: ${osReason(e)}` });
      }
      this.#text.set(real, t);
    }
    return t;
  }

  /**
   * Parsed JSON of `rel`, neither frozen nor kept: for a file read once to build an
   * index (its text is not kept either). A parse error names the file and line.
   */
  jsonOnce<T = unknown>(rel: string): T {
    const real = this.cacheKey(rel);
    if (this.#json.has(real)) return this.#json.get(real) as T;
    const text = this.text(rel);
    this.#text.delete(real);
    try {
      return JSON.parse(text) as T;
    } catch (e) {
      throw new InputError({ file: this.resolve(rel), ...jsonErrorLocation(text, e as Error) });
    }
  }

  /** Parsed and frozen JSON of `rel`, cached. A parse error names the file and line. */
  json<T = unknown>(rel: string): T {
    const real = this.cacheKey(rel);
    if (this.#json.has(real)) return this.#json.get(real) as T;
    const text = this.text(rel);
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch (e) {
      throw new InputError({ file: this.resolve(rel), ...jsonErrorLocation(text, e as Error) });
    }
    // Frozen and checked for depth in one walk; the integers by the text.
    const problem = bigIntegerProblem(text) ??
      (freezeWithin(v, MAX_DOCUMENT_DEPTH) ? undefined : TOO_DEEP);
    if (problem) throw new InputError({ file: this.resolve(rel), message: problem });
    this.#json.set(real, v);
    this.#text.delete(real);
    return v as T;
  }

  /**
   * A database by path, as the reference's loader: `<path>.json` as one file, else
   * `<path>/` as a folder of shards `{stem: contents}`.
   */
  db(rel: string): Record<string, unknown> {
    const stem = rel.replace(/\.json$/, "");
    if (this.exists(`${stem}.json`)) return this.json(`${stem}.json`);
    if (!this.exists(stem)) {
      throw new InputError({
        file: this.resolve(rel),
        message: "no such database (file or folder of shards)",
      });
    }
    const folder = this.cacheKey(stem);
    const key = `${folder}${sep}`;
    if (this.#json.has(key)) return this.#json.get(key) as Record<string, unknown>;
    let entries: string[];
    try {
      // Links among the shards are read too, each checked to stay inside the root.
      entries = [...Deno.readDirSync(folder)].filter((e) =>
        (e.isFile || e.isSymlink) && e.name.endsWith(".json")
      )
        .map((e) => e.name).sort();
    } catch {
      throw new InputError({
        file: this.resolve(rel),
        message: "no such database (file or folder of shards)",
      });
    }
    const db: Record<string, unknown> = {};
    for (const name of entries) db[name.replace(/\.json$/, "")] = this.json(`${stem}/${name}`);
    deepFreeze(db);
    this.#json.set(key, db);
    return db;
  }
}

/** An OS error's reason without the path it names (`No such file or directory (os error 2)`). */
function osReason(e: unknown): string {
  const message = e instanceof Error ? e.message : String(e);
  return message.replace(/:\s*\w+ '.*'$/s, "");
}

function jsonErrorLocation(text: string, e: Error): { line?: number; message: string } {
  const at = locateJsonError(text);
  if (!at) return { message: `invalid JSON: ${e.message}` };
  return { line: at.line, message: `invalid JSON at column ${at.column}: ${at.message}` };
}

/**
 * Opens the data root at `path` (default the bundled fixtures). A missing folder, or
 * one this run may not read, is an input problem about the option `data_root` naming
 * the path. (The CLI's `openDataRoot` in `src/cli/data_root.ts` picks the path from
 * its flag and the environment.)
 */
export function openDataRoot(path: string = BUNDLED_DATA_ROOT): DataRoot {
  let ok = false;
  try {
    ok = Deno.statSync(path).isDirectory;
  } catch (e) {
    if (e instanceof Deno.errors.NotCapable || e instanceof Deno.errors.PermissionDenied) {
      throw new InputError({
        file: path,
        option: "data_root",
        code: "data_root_unreadable",
        message: "this run may not read the data root",
        hint: "grant read access to that folder",
      });
    }
  }
  if (!ok) {
    throw new InputError({
      file: path,
      option: "data_root",
      code: "data_root_not_found",
      message: "data root not found",
      hint: "give a folder laid out as <domain>/...",
    });
  }
  return new DataRoot(resolve(path));
}

/**
 * The data root: a folder laid out as the reference's (`<domain>/...`). Files are
 * read and parsed once per process and frozen, so every scenario and trial shares
 * one copy of each world.
 *
 * @module
 */
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { deepFreeze } from "../env/deep_freeze.ts";
import { InputError } from "../cli/problem.ts";
import { locateJsonError } from "../cli/json_error.ts";
import type { Io } from "../cli/io.ts";

/** The bundled data root (`fixtures/`), used when none is given. */
export const BUNDLED_DATA_ROOT = fileURLToPath(new URL("../../fixtures/", import.meta.url));

export class DataRoot {
  readonly path: string;
  readonly #json = new Map<string, unknown>();
  readonly #text = new Map<string, string>();

  constructor(path: string) {
    this.path = path;
  }

  /** Absolute path of `rel`, refusing paths that leave the root. */
  resolve(rel: string): string {
    const parts = rel.split(/[\\/]+/);
    if (rel.startsWith("/") || parts.includes("..")) {
      throw new InputError({ file: rel, message: "path leaves the data root" });
    }
    return join(this.path, rel);
  }

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
    let t = this.#text.get(rel);
    if (t === undefined) {
      try {
        t = Deno.readTextFileSync(this.resolve(rel));
      } catch (e) {
        throw new InputError({
          file: this.resolve(rel),
          message: `cannot read: ${(e as Error).message}`,
        });
      }
      this.#text.set(rel, t);
    }
    return t;
  }

  /** Parsed and frozen JSON of `rel`, cached. A parse error names the file and line. */
  json<T = unknown>(rel: string): T {
    if (this.#json.has(rel)) return this.#json.get(rel) as T;
    const text = this.text(rel);
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch (e) {
      throw new InputError({ file: this.resolve(rel), ...jsonErrorLocation(text, e as Error) });
    }
    deepFreeze(v);
    this.#json.set(rel, v);
    this.#text.delete(rel);
    return v as T;
  }

  /**
   * A database by path, as the reference's loader: `<path>.json` as one file, else
   * `<path>/` as a folder of shards `{stem: contents}`.
   */
  db(rel: string): Record<string, unknown> {
    const stem = rel.replace(/\.json$/, "");
    if (this.exists(`${stem}.json`)) return this.json(`${stem}.json`);
    const key = `${stem}/`;
    if (this.#json.has(key)) return this.#json.get(key) as Record<string, unknown>;
    let entries: string[];
    try {
      entries = [...Deno.readDirSync(this.resolve(stem))].filter((e) =>
        e.isFile && e.name.endsWith(".json")
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

function jsonErrorLocation(text: string, e: Error): { line?: number; message: string } {
  const at = locateJsonError(text);
  if (!at) return { message: `invalid JSON: ${e.message}` };
  return { line: at.line, message: `invalid JSON at column ${at.column}: ${at.message}` };
}

/**
 * The data root of a command: `--data-root`, else `EVAL_DATA_ROOT`, else the bundled
 * fixtures. A missing folder names the path and how to set it.
 */
export function openDataRoot(flag: string | undefined, io: Pick<Io, "env">): DataRoot {
  const fromEnv = io.env("EVAL_DATA_ROOT");
  const path = flag ?? fromEnv ?? BUNDLED_DATA_ROOT;
  let ok = false;
  try {
    ok = Deno.statSync(path).isDirectory;
  } catch (e) {
    if (e instanceof Deno.errors.NotCapable || e instanceof Deno.errors.PermissionDenied) {
      throw new InputError({
        file: path,
        message: "this run may not read the data root",
        hint: "run it with --allow-read for that folder (deno task cli can read anywhere)",
      });
    }
  }
  if (!ok) {
    const via = flag ? "--data-root" : fromEnv ? "EVAL_DATA_ROOT" : "the bundled fixtures";
    throw new InputError({
      file: path,
      message: `data root not found (from ${via})`,
      hint: "pass --data-root DIR or set EVAL_DATA_ROOT to a folder laid out as <domain>/...",
    });
  }
  return new DataRoot(resolve(path));
}

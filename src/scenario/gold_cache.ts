/**
 * An on-disk cache of gold replays, so that a process that needs expected states
 * (`gold`, `eval`, `scaffold`) does not replay every reference action again.
 *
 * Location: `$XDG_CACHE_HOME/callbench/gold/`, else `$HOME/.cache/callbench/gold/`.
 * Deleting the folder is always safe. The cache is used only when the run may read
 * those variables and read and write the folder (`deno task cli` may); otherwise
 * gold is computed in memory as before, and no permission prompt is raised.
 *
 * One file per scenario, `<key>.json`. The key is the SHA-256 of:
 * - the code that computes gold: the text of every module reachable by relative
 *   imports from the replay's entry module, and `deno.json` (the pinned npm
 *   versions). Any edit to that code changes every key;
 * - the content (SHA-256 of the bytes) of each world file the scenario opens, or of
 *   every shard of a world folder, named;
 * - the scenario as loaded, without its expected hashes (this covers the task's
 *   reference actions, initialisation actions, assertions, date and worlds).
 *
 * Content rather than file identity (size, mtime): the worlds are a few MB, hashed
 * once per process and only when gold is needed, and no clock or copy tool can
 * make a changed file look unchanged. Stale entries are never read again (their key
 * no longer occurs) and can be deleted.
 *
 * Entries are self-verifying: the first line of a file is an HMAC-SHA256 of the
 * rest (format, key, scenario name and the computed gold) under a secret kept
 * outside the cache folder (`$XDG_CONFIG_HOME/callbench/gold-cache.key`, else
 * `$HOME/.config/callbench/gold-cache.key`, made once with 32 random bytes and mode
 * 0600). Whoever can write the cache folder but not that file (a shared CI cache)
 * cannot make an entry that is read. Only regular files of at most
 * {@link MAX_ENTRY_BYTES} are opened (no link, FIFO or device). An entry that is
 * not a regular file, too large, unparsable, of another shape, key or scenario, or
 * whose MAC does not verify is discarded, reported to the cache's warning listener
 * and recomputed; when the secret cannot be read or made, nothing is cached.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import type { DataRoot } from "./data_root.ts";
import type { Scenario } from "./scenario.ts";
import type { Gold } from "./suite.ts";
import { AssertionVerdictSchema } from "./scenario.ts";

/** Bumped when the entry format changes. */
const FORMAT = 2;

/** The largest entry file opened (a gold entry is a few KB). */
export const MAX_ENTRY_BYTES = 4 * 1024 * 1024;

/** The secret's size, in bytes (kept as hex in its file). */
const SECRET_BYTES = 32;

/** What an entry stores: the computed parts of a gold (the rest is the scenario's). */
const StoredGoldSchema = z.object({
  expected_db_sha256: z.string().nullable(),
  expected_user_db_sha256: z.string().nullable().optional(),
  reference_records: z.array(z.looseObject({ action_type: z.string() })).optional(),
  assertions: z.array(AssertionVerdictSchema).optional(),
  errors: z.array(z.object({ index: z.number().int(), name: z.string(), result: z.unknown() }))
    .optional(),
});

const EntrySchema = z.object({
  format: z.literal(FORMAT),
  key: z.string(),
  name: z.string(),
  gold: StoredGoldSchema,
});

/** The default cache folder, or undefined when the run may not read the variables. */
export function defaultGoldCacheDir(): string | undefined {
  const xdg = _env("XDG_CACHE_HOME");
  if (xdg) return join(xdg, "callbench", "gold");
  const home = _env("HOME");
  return home ? join(home, ".cache", "callbench", "gold") : undefined;
}

/** The default secret file, outside the cache folder; undefined when the run may not read the variables. */
export function defaultGoldKeyFile(): string | undefined {
  const xdg = _env("XDG_CONFIG_HOME");
  if (xdg) return join(xdg, "callbench", "gold-cache.key");
  const home = _env("HOME");
  return home ? join(home, ".config", "callbench", "gold-cache.key") : undefined;
}

/** Counts of one cache's work (tests, diagnostics). */
export interface GoldCacheStats {
  hits: number;
  misses: number;
  /** Entries found but not trusted (not a regular file, too large, unparsable, wrong schema, other key, bad MAC). */
  rejected: number;
}

/** Where a cache finds its secret and tells of entries it discarded. */
export interface GoldCacheOptions {
  /** The secret's file; undefined = {@link defaultGoldKeyFile}. */
  keyFile?: string;
  /** Told of each entry discarded (its path and why); the commands print it as a warning. */
  onWarning?: (file: string, message: string) => void;
}

/**
 * Gold replays cached on disk. `dir` undefined means the default folder, resolved
 * on first use; `null` means no disk cache (compute every time).
 */
export class GoldCache {
  readonly stats: GoldCacheStats = { hits: 0, misses: 0, rejected: 0 };
  /** Told of each entry discarded (settable: the commands set it to their warning printer). */
  onWarning: ((file: string, message: string) => void) | undefined;
  readonly #entry: URL;
  #dir: string | null | undefined;
  #code: string | null | undefined;
  #keyFile: string | undefined;
  #secret: Uint8Array | null | undefined;

  /**
   * @param entry the module whose import closure computes gold
   * @param dir the cache folder; undefined = {@link defaultGoldCacheDir}, null = none
   * @param options the secret's file and the warning listener
   */
  constructor(entry: URL, dir?: string | null, options: GoldCacheOptions = {}) {
    this.#entry = entry;
    this.#dir = dir;
    this.#keyFile = options.keyFile;
    this.onWarning = options.onWarning;
  }

  /** The scenario's gold: from the cache when a trusted entry exists, else computed and stored. */
  async get(
    root: DataRoot,
    scenario: Scenario,
    compute: () => Promise<Gold>,
  ): Promise<Gold> {
    const dir = this.#folder();
    const key = dir ? this.#key(root, scenario) : undefined;
    if (!dir || !key) {
      this.stats.misses++;
      return compute();
    }
    const file = join(dir, `${key}.json`);
    const stored = this.#read(file, key, scenario.name);
    if (stored) {
      this.stats.hits++;
      return {
        name: scenario.name,
        domain: scenario.domain,
        expected_db_sha256: stored.expected_db_sha256,
        ...("expected_user_db_sha256" in stored
          ? { expected_user_db_sha256: stored.expected_user_db_sha256 }
          : {}),
        reference_actions: scenario.expect.reference_actions ?? [],
        ...("reference_records" in stored ? { reference_records: stored.reference_records } : {}),
        ...("assertions" in stored ? { assertions: stored.assertions } : {}),
        ...("errors" in stored ? { errors: stored.errors } : {}),
      } as Gold;
    }
    this.stats.misses++;
    const gold = await compute();
    this.#write(dir, file, key, scenario.name, gold);
    return gold;
  }

  #folder(): string | null {
    if (this.#dir === undefined) this.#dir = defaultGoldCacheDir() ?? null;
    if (this.#dir === null) return null;
    if (!_granted("read", this.#dir) || !_granted("write", this.#dir)) this.#dir = null;
    else if (!this.#secretBytes()) this.#dir = null;
    return this.#dir;
  }

  /** The MAC secret, read or made once; null when it can be neither (then nothing is cached). */
  #secretBytes(): Uint8Array | null {
    if (this.#secret === undefined) {
      const file = this.#keyFile ?? defaultGoldKeyFile();
      this.#secret = file ? readOrMakeSecret(file) : null;
    }
    return this.#secret;
  }

  #mac(payload: string): string {
    return createHmac("sha256", this.#secretBytes()!).update(payload, "utf8").digest("hex");
  }

  #reject(file: string, why: string): undefined {
    this.stats.rejected++;
    try {
      Deno.removeSync(file); // a link is removed, never its target
    } catch {
      // overwritten below all the same
    }
    this.onWarning?.(file, `gold cache entry discarded (${why}); recomputed`);
    return undefined;
  }

  #key(root: DataRoot, scenario: Scenario): string | undefined {
    const code = this.#codeFingerprint();
    if (!code) return undefined;
    const worlds: [string, string][] = [];
    for (const [side, source] of Object.entries(scenario.world)) {
      if (!source || !("path" in source)) continue; // inline worlds are in the scenario text
      const fp = worldFingerprint(root, source.path);
      if (!fp) return undefined;
      worlds.push([side, fp]);
    }
    const { db_sha256: _db, user_db_sha256: _user, ...expect } = scenario.expect;
    return _sha256(JSON.stringify([FORMAT, code, worlds, { ...scenario, expect }]));
  }

  #codeFingerprint(): string | null {
    if (this.#code === undefined) this.#code = codeFingerprint(this.#entry);
    return this.#code;
  }

  #read(file: string, key: string, name: string): z.infer<typeof StoredGoldSchema> | undefined {
    const read = readBoundedFile(file, MAX_ENTRY_BYTES);
    if ("missing" in read) return undefined; // not cached yet
    if ("refused" in read) return this.#reject(file, read.refused);
    const text = read.text;
    const newline = text.indexOf("\n");
    const payload = text.slice(newline + 1);
    if (newline !== 64 || !_sameText(text.slice(0, 64), this.#mac(payload))) {
      return this.#reject(file, "its MAC does not verify");
    }
    try {
      const raw = JSON.parse(payload);
      const ok = EntrySchema.safeParse(raw);
      // The parsed JSON, not zod's output: zod rebuilds objects in schema key order.
      if (ok.success && ok.data.key === key && ok.data.name === name) return raw.gold;
    } catch {
      // corrupt: recomputed below
    }
    return this.#reject(file, "not an entry of this scenario");
  }

  #write(dir: string, file: string, key: string, name: string, gold: Gold): void {
    const { name: _n, domain: _d, reference_actions: _a, ...computed } = gold;
    const payload = JSON.stringify({ format: FORMAT, key, name, gold: computed });
    const text = `${this.#mac(payload)}\n${payload}`;
    const tmp = `${file}.${Deno.pid}.${crypto.randomUUID()}.tmp`;
    try {
      Deno.mkdirSync(dir, { recursive: true });
      Deno.writeTextFileSync(tmp, text);
      Deno.renameSync(tmp, file); // atomic: a reader sees the old entry or the new one
    } catch {
      try {
        Deno.removeSync(tmp);
      } catch {
        // nothing was written
      }
    }
  }
}

/**
 * The SHA-256 of `deno.json` and of every module reachable from `entry` by relative
 * static or literal dynamic imports, in a fixed order; null when the sources cannot
 * be read (a compiled binary, a remote import, no read permission).
 */
export function codeFingerprint(entry: URL): string | null {
  if (entry.protocol !== "file:") return null;
  const seen = new Set<string>();
  const queue = [entry.href, import.meta.url];
  const hash = createHash("sha256");
  const base = new URL("../../", import.meta.url).href;
  const config = new URL("deno.json", base);
  try {
    if (!_granted("read", fileURLToPath(config))) return null;
    hash.update(Deno.readTextFileSync(config));
    while (queue.length > 0) {
      const href = queue.shift()!;
      if (seen.has(href)) continue;
      seen.add(href);
      const path = fileURLToPath(href);
      if (!_granted("read", path)) return null;
      let text: string;
      try {
        text = Deno.readTextFileSync(path);
      } catch (e) {
        // A specifier in a comment or string; a real import would not have loaded.
        if (e instanceof Deno.errors.NotFound) continue;
        throw e;
      }
      hash.update(`\0${href.startsWith(base) ? href.slice(base.length) : href}\0${text}`);
      for (const m of text.matchAll(IMPORT)) {
        queue.push(new URL(m[1] ?? m[2]!, href).href);
      }
    }
  } catch {
    return null;
  }
  return hash.digest("hex");
}

/** A relative specifier after `from` or inside a dynamic import with a literal. */
const IMPORT = /\bfrom\s+"(\.{1,2}\/[^"]+)"|\bimport\(\s*"(\.{1,2}\/[^"]+)"\s*\)/g;

const fingerprints = new WeakMap<DataRoot, Map<string, string | null>>();

/**
 * The SHA-256 of a world's bytes as the data root resolves it (`<path>.json`, else
 * the `.json` shards of `<path>/`, named); null when the files cannot be read
 * directly (an in-memory data root, no permission). Read once per root and path.
 */
export function worldFingerprint(root: DataRoot, rel: string): string | null {
  let byPath = fingerprints.get(root);
  if (!byPath) fingerprints.set(root, byPath = new Map());
  let fp = byPath.get(rel);
  if (fp === undefined) byPath.set(rel, fp = _readWorldFingerprint(root, rel));
  return fp;
}

function _readWorldFingerprint(root: DataRoot, rel: string): string | null {
  const stem = rel.replace(/\.json$/, "");
  const hash = createHash("sha256");
  try {
    const file = root.resolve(`${stem}.json`);
    if (!_granted("read", dirname(file))) return null;
    if (_isFile(file)) {
      hash.update(Deno.readFileSync(file));
      return hash.digest("hex");
    }
    const folder = root.resolve(stem);
    const shards = [...Deno.readDirSync(folder)]
      .filter((e) => e.isFile && e.name.endsWith(".json"))
      .map((e) => e.name)
      .sort();
    for (const name of shards) {
      hash.update(`\0${name}\0`);
      hash.update(Deno.readFileSync(join(folder, name)));
    }
    return hash.digest("hex");
  } catch {
    return null;
  }
}

/**
 * The secret in `file` (hex, {@link SECRET_BYTES} bytes), made with mode 0600 when
 * there is none; null when it is not a regular file of that form or cannot be made.
 */
export function readOrMakeSecret(file: string): Uint8Array | null {
  if (!_granted("read", file)) return null;
  for (let attempt = 0; attempt < 2; attempt++) {
    const text = readBounded(file, 4 * SECRET_BYTES);
    if (text !== undefined) {
      const hex = text.trim();
      return /^[0-9a-f]+$/.test(hex) && hex.length === 2 * SECRET_BYTES
        ? Uint8Array.from(hex.match(/../g)!, (b) => parseInt(b, 16))
        : null;
    }
    if (!_granted("write", file)) return null;
    try {
      Deno.mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
      // createNew: two processes making it at once agree on the first one's secret.
      Deno.writeTextFileSync(file, `${randomBytes(SECRET_BYTES).toString("hex")}\n`, {
        createNew: true,
        mode: 0o600,
      });
    } catch (e) {
      if (!(e instanceof Deno.errors.AlreadyExists)) return null;
    }
  }
  return null;
}

/** What {@link readBoundedFile} found: the text, no file, or why the file was not read. */
export type BoundedRead = { text: string } | { missing: true } | { refused: string };

/**
 * A regular file's text, read only when it is one and at most `max` bytes (checked
 * before it is opened, so a FIFO, a device or a link is never opened, and again on
 * the open file, which must be the same inode).
 */
export function readBoundedFile(path: string, max: number): BoundedRead {
  let info: Deno.FileInfo;
  try {
    info = Deno.lstatSync(path);
  } catch {
    return { missing: true };
  }
  if (!info.isFile) return { refused: "not a regular file" };
  if (info.size > max) return { refused: `${info.size} bytes, over ${max}` };
  let f: Deno.FsFile | undefined;
  try {
    f = Deno.openSync(path, { read: true });
    const opened = f.statSync();
    if (!opened.isFile || opened.ino !== info.ino) return { refused: "replaced while opened" };
    if (opened.size > max) return { refused: `${opened.size} bytes, over ${max}` };
    // One byte more than it holds: a file still growing is caught past `max`.
    const buf = new Uint8Array(opened.size + 1);
    let n = 0;
    while (n < buf.length) {
      const got = f.readSync(buf.subarray(n));
      if (got === null) break;
      n += got;
    }
    if (n > max) return { refused: `over ${max} bytes` };
    return { text: new TextDecoder().decode(buf.subarray(0, n)) };
  } catch (e) {
    return { refused: `cannot be read (${(e as Error).name})` };
  } finally {
    f?.close();
  }
}

/** {@link readBoundedFile}'s text, or undefined when it found none. */
export function readBounded(path: string, max: number): string | undefined {
  const read = readBoundedFile(path, max);
  return "text" in read ? read.text : undefined;
}

/** Equal strings, compared in constant time (a MAC against the one computed). */
function _sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function _isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

function _sha256(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/** Whether the run holds a permission already (never prompts). */
function _granted(name: "read" | "write", path: string): boolean {
  try {
    return Deno.permissions.querySync({ name, path }).state === "granted";
  } catch {
    return false;
  }
}

function _env(variable: string): string | undefined {
  try {
    if (Deno.permissions.querySync({ name: "env", variable }).state !== "granted") return undefined;
    return Deno.env.get(variable) || undefined;
  } catch {
    return undefined;
  }
}

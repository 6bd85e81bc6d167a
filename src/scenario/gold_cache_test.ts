import { deepEqual, equal, notEqual } from "node:assert/strict";
import { createHash, createHmac } from "node:crypto";
import { join } from "node:path";
import { BUNDLED_DATA_ROOT, DataRoot } from "./data_root.ts";
import {
  codeFingerprint,
  GoldCache,
  MAX_ENTRY_BYTES,
  readBounded,
  worldFingerprint,
} from "./gold_cache.ts";
import type { Scenario } from "./scenario.ts";
import type { Gold } from "./suite.ts";
import { configs } from "./tau2/suites.ts";
import { replayGold } from "./tau2/gold.ts";
import { tau2Suite } from "./tau2/tau2_suite.ts";

const GOLD_MODULE = new URL("./tau2/gold.ts", import.meta.url);
const RETAIL = configs.find((c) => c.id === "tau2_retail")!;

/** A data root on disk holding a copy of the bundled retail folder. */
async function retailCopy(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "callbench-gold-root-" });
  await Deno.mkdir(join(dir, "tau2_retail"));
  for (const e of Deno.readDirSync(join(BUNDLED_DATA_ROOT, "tau2_retail"))) {
    await Deno.copyFile(
      join(BUNDLED_DATA_ROOT, "tau2_retail", e.name),
      join(dir, "tau2_retail", e.name),
    );
  }
  return dir;
}

/** The retail scenarios of a fresh process: a fresh root and suite, nothing remembered. */
async function fresh(rootDir: string, cacheDir: string) {
  const calls: string[] = [];
  const warnings: string[] = [];
  const cache = new GoldCache(GOLD_MODULE, cacheDir, {
    keyFile: keyFileFor(cacheDir),
    onWarning: (file, message) => warnings.push(`${file}: ${message}`),
  });
  const replay = (root: DataRoot, s: Scenario): Promise<Gold> => {
    calls.push(s.name);
    return replayGold(root, s);
  };
  const suite = tau2Suite(RETAIL, { replay, cache });
  const root = new DataRoot(rootDir);
  const { scenarios } = await suite.load(root, { expected: false });
  return { calls, cache, suite, root, scenarios, warnings };
}

/** Each test's secret, outside its cache folder (as the default one is). */
function keyFileFor(cacheDir: string): string {
  return `${cacheDir}.key`;
}

/** A retail root and a cache holding the entry of its first scenario: its path and text. */
async function oneCachedEntry() {
  const rootDir = await retailCopy();
  const cacheDir = await Deno.makeTempDir({ prefix: "callbench-gold-cache-" });
  const first = await fresh(rootDir, cacheDir);
  const truth = await first.suite.gold(first.root, first.scenarios[0]!);
  const [file] = entries(cacheDir);
  return { rootDir, cacheDir, truth, file: file!, good: Deno.readTextFileSync(file!) };
}

/**
 * A fresh process finds the bad entry in `file`: it is discarded with a warning
 * naming `why`, replayed, and `good` (the entry it replaces) is written again.
 */
async function assertRecomputed(
  rootDir: string,
  cacheDir: string,
  file: string,
  good: string,
  truth: Gold,
  why: string,
): Promise<void> {
  const next = await fresh(rootDir, cacheDir);
  const gold = await next.suite.gold(next.root, next.scenarios[0]!);
  deepEqual(next.calls, ["tau2_retail__0"]);
  equal(next.cache.stats.rejected, 1);
  deepEqual(next.warnings, [`${file}: gold cache entry discarded (${why}); recomputed`]);
  equal(JSON.stringify(gold), JSON.stringify(truth));
  equal(Deno.readTextFileSync(file), good);
}

function entries(dir: string): string[] {
  return [...Deno.readDirSync(dir)].map((e) => join(dir, e.name)).sort();
}

Deno.test("gold cache: a second process reads every gold from disk and replays nothing", async () => {
  const rootDir = await retailCopy();
  const cacheDir = await Deno.makeTempDir({ prefix: "callbench-gold-cache-" });
  const first = await fresh(rootDir, cacheDir);
  await first.suite.expect(first.root, first.scenarios);
  equal(first.calls.length, 3);
  equal(entries(cacheDir).length, 3);

  const second = await fresh(rootDir, cacheDir);
  await second.suite.expect(second.root, second.scenarios);
  deepEqual(second.calls, []);
  equal(second.cache.stats.hits, 3);
  for (let i = 0; i < 3; i++) {
    const a = await first.suite.gold(first.root, first.scenarios[i]!);
    const b = await second.suite.gold(second.root, second.scenarios[i]!);
    // Byte-identical to what the replay printed.
    equal(JSON.stringify(b), JSON.stringify(a));
    equal(second.scenarios[i]!.expect.db_sha256, first.scenarios[i]!.expect.db_sha256);
  }
});

Deno.test("gold cache: a corrupt or foreign entry is recomputed and overwritten, never trusted", async () => {
  const { rootDir, cacheDir, truth, file, good } = await oneCachedEntry();
  const entry = JSON.parse(good.slice(good.indexOf("\n") + 1));
  // Signed with the right secret, so only the checks after the MAC can refuse them.
  const sign = (payload: unknown) => {
    const text = JSON.stringify(payload);
    const secret = Deno.readTextFileSync(keyFileFor(cacheDir)).trim();
    const bytes = Uint8Array.from(secret.match(/../g)!, (b) => parseInt(b, 16));
    return `${createHmac("sha256", bytes).update(text).digest("hex")}\n${text}`;
  };

  for (
    const [bad, why] of [
      [good.slice(0, good.length / 2), "its MAC does not verify"], // truncated
      [sign({ ...entry, gold: { expected_db_sha256: 7 } }), "not an entry of this scenario"],
      [sign({ ...entry, key: "0".repeat(64) }), "not an entry of this scenario"], // another key
      // A plausible entry with a wrong hash but for another scenario.
      [
        sign({
          ...entry,
          name: "tau2_retail__9",
          gold: { ...entry.gold, expected_db_sha256: "f".repeat(64) },
        }),
        "not an entry of this scenario",
      ],
    ]
  ) {
    Deno.writeTextFileSync(file, bad!);
    await assertRecomputed(rootDir, cacheDir, file, good, truth, why!);
  }
});

Deno.test("gold cache: a changed world invalidates the entries of its scenarios", async () => {
  const rootDir = await retailCopy();
  const cacheDir = await Deno.makeTempDir({ prefix: "callbench-gold-cache-" });
  const first = await fresh(rootDir, cacheDir);
  await first.suite.expect(first.root, first.scenarios);
  const before = worldFingerprint(first.root, "tau2_retail/db.json");

  // Same size, same modification time: only the content tells.
  const path = join(rootDir, "tau2_retail", "db.json");
  const { mtime } = Deno.statSync(path);
  const text = Deno.readTextFileSync(path);
  const edited = text.replace('"price": 5', '"price": 6');
  notEqual(edited, text);
  Deno.writeTextFileSync(path, edited);
  Deno.utimeSync(path, mtime!, mtime!);

  const second = await fresh(rootDir, cacheDir);
  notEqual(worldFingerprint(second.root, "tau2_retail/db.json"), before);
  await second.suite.expect(second.root, second.scenarios);
  equal(second.calls.length, 3);
  equal(second.cache.stats.hits, 0);
  equal(entries(cacheDir).length, 6);
});

Deno.test("gold cache: a changed task invalidates only its own scenario", async () => {
  const rootDir = await retailCopy();
  const cacheDir = await Deno.makeTempDir({ prefix: "callbench-gold-cache-" });
  const first = await fresh(rootDir, cacheDir);
  await first.suite.expect(first.root, first.scenarios);

  const path = join(rootDir, "tau2_retail", "tasks.json");
  const tasks = JSON.parse(Deno.readTextFileSync(path));
  tasks[1].evaluation_criteria.actions.pop();
  Deno.writeTextFileSync(path, JSON.stringify(tasks, null, 2));

  const second = await fresh(rootDir, cacheDir);
  await second.suite.expect(second.root, second.scenarios);
  deepEqual(second.calls, ["tau2_retail__1"]);
});

Deno.test("gold cache: the code fingerprint follows every module the entry imports", async () => {
  const dir = await Deno.makeTempDir({ prefix: "callbench-gold-code-" });
  Deno.writeTextFileSync(
    join(dir, "a.ts"),
    'import { b } from "./lib/b.ts";\nexport const a = b;\n',
  );
  Deno.mkdirSync(join(dir, "lib"));
  Deno.writeTextFileSync(join(dir, "lib", "b.ts"), 'export const b = () => import("./c.ts");\n');
  Deno.writeTextFileSync(join(dir, "lib", "c.ts"), "export const c = 1;\n");
  const entry = new URL(`file://${join(dir, "a.ts")}`);
  const before = codeFingerprint(entry);
  equal(typeof before, "string");
  equal(codeFingerprint(entry), before);
  Deno.writeTextFileSync(join(dir, "lib", "c.ts"), "export const c = 2;\n");
  notEqual(codeFingerprint(entry), before);
});

Deno.test("gold cache: with no folder (no permission, null), gold is computed every time", async () => {
  const cache = new GoldCache(GOLD_MODULE, null);
  const root = new DataRoot(BUNDLED_DATA_ROOT);
  let computed = 0;
  const suite = tau2Suite(RETAIL, {
    cache,
    replay: (r, s) => {
      computed++;
      return replayGold(r, s);
    },
  });
  const { scenarios } = await suite.load(root, { expected: false });
  await suite.gold(root, scenarios[0]!);
  await suite.gold(root, scenarios[0]!); // once per process all the same
  equal(computed, 1);
  equal(cache.stats.misses, 1);
});

Deno.test("gold cache: an entry edited without the secret is discarded with a warning, never trusted", async () => {
  const { rootDir, cacheDir, truth, file, good } = await oneCachedEntry();
  const newline = good.indexOf("\n");
  const payload = JSON.parse(good.slice(newline + 1));
  const forged = JSON.stringify({
    ...payload,
    gold: { ...payload.gold, expected_db_sha256: "f".repeat(64) },
  });
  for (
    const bad of [
      `${good.slice(0, newline)}\n${forged}`, // the old MAC over a changed gold
      // A digest anyone can compute (no secret) is not a MAC.
      `${createHash("sha256").update(forged).digest("hex")}\n${forged}`,
      forged, // no MAC at all
    ]
  ) {
    Deno.writeTextFileSync(file, bad);
    await assertRecomputed(rootDir, cacheDir, file, good, truth, "its MAC does not verify");
  }

  // Another secret (another machine's, or a lost one) trusts nothing it did not write.
  Deno.removeSync(keyFileFor(cacheDir));
  const other = await fresh(rootDir, cacheDir);
  await other.suite.gold(other.root, other.scenarios[0]!);
  deepEqual(other.calls, ["tau2_retail__0"]);
  equal(other.cache.stats.rejected, 1);
});

Deno.test("gold cache: a FIFO, a link to a device and an oversized file are refused unread", async () => {
  const { rootDir, cacheDir, truth, file, good } = await oneCachedEntry();
  const makers: [string, () => void][] = [
    ["not a regular file", () => {
      const r = new Deno.Command("mkfifo", { args: [file] }).outputSync();
      equal(r.code, 0);
    }],
    ["not a regular file", () => Deno.symlinkSync("/dev/zero", file)],
    [`${MAX_ENTRY_BYTES + 1} bytes, over ${MAX_ENTRY_BYTES}`, () => {
      const f = Deno.openSync(file, { write: true, create: true });
      f.truncateSync(MAX_ENTRY_BYTES + 1); // sparse: costs no disk
      f.close();
    }],
  ];
  for (const [why, make] of makers) {
    Deno.removeSync(file);
    make();
    // Replaced by a regular entry again (a FIFO that was opened would hang here).
    await assertRecomputed(rootDir, cacheDir, file, good, truth, why);
  }
});

Deno.test("gold cache: readBounded opens regular files only, and no more than its bound", async () => {
  const dir = await Deno.makeTempDir({ prefix: "callbench-bounded-" });
  const small = join(dir, "small");
  Deno.writeTextFileSync(small, "abc");
  equal(readBounded(small, 3), "abc");
  equal(readBounded(small, 2), undefined);
  Deno.symlinkSync(small, join(dir, "link"));
  equal(readBounded(join(dir, "link"), 10), undefined);
  equal(readBounded(dir, 10), undefined);
  equal(readBounded(join(dir, "missing"), 10), undefined);
});

Deno.test("gold cache: without a secret nothing is written or read from disk", async () => {
  const rootDir = await retailCopy();
  const cacheDir = await Deno.makeTempDir({ prefix: "callbench-gold-cache-" });
  // The secret's path is a folder: it can be neither read nor made.
  const keyDir = await Deno.makeTempDir({ prefix: "callbench-gold-key-" });
  const cache = new GoldCache(GOLD_MODULE, cacheDir, { keyFile: keyDir });
  const suite = tau2Suite(RETAIL, { cache });
  const root = new DataRoot(rootDir);
  const { scenarios } = await suite.load(root, { expected: false });
  await suite.gold(root, scenarios[0]!);
  deepEqual(entries(cacheDir), []);
  equal(cache.stats.misses, 1);
});

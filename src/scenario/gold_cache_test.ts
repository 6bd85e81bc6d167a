import { deepEqual, equal, notEqual } from "node:assert/strict";
import { join } from "node:path";
import { BUNDLED_DATA_ROOT, DataRoot } from "./data_root.ts";
import { codeFingerprint, GoldCache, worldFingerprint } from "./gold_cache.ts";
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
  const cache = new GoldCache(GOLD_MODULE, cacheDir);
  const replay = (root: DataRoot, s: Scenario): Promise<Gold> => {
    calls.push(s.name);
    return replayGold(root, s);
  };
  const suite = tau2Suite(RETAIL, { replay, cache });
  const root = new DataRoot(rootDir);
  const { scenarios } = await suite.load(root, { expected: false });
  return { calls, cache, suite, root, scenarios };
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
  const rootDir = await retailCopy();
  const cacheDir = await Deno.makeTempDir({ prefix: "callbench-gold-cache-" });
  const first = await fresh(rootDir, cacheDir);
  const truth = await first.suite.gold(first.root, first.scenarios[0]!);
  const [file] = entries(cacheDir);
  const good = Deno.readTextFileSync(file!);

  for (
    const bad of [
      good.slice(0, good.length / 2), // truncated
      JSON.stringify({ ...JSON.parse(good), gold: { expected_db_sha256: 7 } }), // wrong shape
      JSON.stringify({ ...JSON.parse(good), key: "0".repeat(64) }), // another key
      // A plausible entry with a wrong hash but for another scenario.
      JSON.stringify({
        ...JSON.parse(good),
        name: "tau2_retail__9",
        gold: { ...JSON.parse(good).gold, expected_db_sha256: "f".repeat(64) },
      }),
    ]
  ) {
    Deno.writeTextFileSync(file!, bad);
    const next = await fresh(rootDir, cacheDir);
    const gold = await next.suite.gold(next.root, next.scenarios[0]!);
    deepEqual(next.calls, ["tau2_retail__0"]);
    equal(next.cache.stats.rejected, 1);
    equal(JSON.stringify(gold), JSON.stringify(truth));
    equal(Deno.readTextFileSync(file!), good);
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

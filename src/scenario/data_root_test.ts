import assert from "node:assert/strict";
import { join } from "node:path";
import { DataRoot } from "./data_root.ts";

/** A data root in a fresh temporary folder, with a secret just outside it. */
function tempRoot(): { root: DataRoot; dir: string; outside: string } {
  const dir = Deno.makeTempDirSync({ prefix: "callbench_root_" });
  const inside = join(dir, "root");
  Deno.mkdirSync(join(inside, "toy", "db"), { recursive: true });
  Deno.writeTextFileSync(join(inside, "toy", "world.json"), '{"color":"green"}');
  Deno.writeTextFileSync(join(inside, "toy", "db", "houses.json"), '{"a":{"color":"red"}}');
  const outside = join(dir, "outside");
  Deno.mkdirSync(outside);
  Deno.writeTextFileSync(join(outside, "secret.json"), '{"color":"stolen"}');
  return { root: new DataRoot(inside), dir, outside };
}

Deno.test("200 spellings of one path share one parsed copy", () => {
  const { root, dir } = tempRoot();
  try {
    const spellings = Array.from({ length: 200 }, (_, i) => {
      const dots = "./".repeat(i % 20);
      const slashes = "/".repeat(1 + (i % 3));
      return i % 2 ? `${dots}toy${slashes}world.json` : `toy/${dots}world`;
    });
    const copies = new Set(spellings.map((s) => root.db(s)));
    assert.equal(copies.size, 1);
    assert.equal(root.cachedEntries, 1);
    // A folder of shards, spelt two ways, is one entry too (plus its shard file).
    assert.equal(root.db("toy/db"), root.db("./toy/./db/"));
    assert.equal(root.cachedEntries, 3);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("a symlink inside the data root is followed only while it stays inside", () => {
  const { root, dir, outside } = tempRoot();
  try {
    Deno.symlinkSync(join(outside, "secret.json"), join(root.path, "toy", "leak.json"));
    Deno.symlinkSync(outside, join(root.path, "toy", "escape"));
    Deno.symlinkSync(join(outside, "secret.json"), join(root.path, "toy", "db", "leak.json"));
    Deno.symlinkSync(join(root.path, "toy", "world.json"), join(root.path, "toy", "alias.json"));
    for (
      const rel of ["toy/leak.json", "toy/leak", "toy/escape/secret.json", "toy/escape/secret"]
    ) {
      assert.throws(() => root.db(rel), /path leaves the data root/, rel);
    }
    assert.throws(() => root.text("toy/leak.json"), /path leaves the data root/);
    // A shard that links out makes the whole folder refused, not silently partial.
    assert.throws(() => root.db("toy/db"), /path leaves the data root/);
    // The message names the path as given, never where the link leads.
    try {
      root.db("toy/leak");
    } catch (e) {
      assert.ok(!(e as Error).message.includes(outside), (e as Error).message);
    }
    // A link that stays inside is the same file, and the same cached copy.
    assert.equal(root.db("toy/alias"), root.db("toy/world"));
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("a missing file's error does not repeat the OS's absolute path", () => {
  const { root, dir } = tempRoot();
  try {
    assert.throws(() => root.text("toy/none.json"), (e: Error) => {
      assert.match(e.message, /cannot read: No such file/);
      // Once as the located file, never again inside the OS message.
      assert.equal(e.message.split(root.path).length - 1, 1, e.message);
      return true;
    });
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("a world nested past the reference's recursion limit, or holding an integer past 2^53, is a located error", () => {
  const { root, dir } = tempRoot();
  try {
    const toy = join(dir, "root", "toy");
    Deno.writeTextFileSync(join(toy, "deep.json"), "[".repeat(100_000) + "]".repeat(100_000));
    Deno.writeTextFileSync(join(toy, "ok.json"), "[".repeat(1000) + "]".repeat(1000));
    Deno.writeTextFileSync(join(toy, "big.json"), '{"points": 12345678901234567890}');
    assert.throws(() => root.db("toy/deep"), /toy\/deep\.json.*nested deeper than 1000 levels/s);
    assert.throws(() => root.db("toy/big"), /the integer 12345678901234567890/);
    const ok = root.db("toy/ok") as unknown;
    assert.ok(Object.isFrozen(ok));
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

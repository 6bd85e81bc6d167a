/** `cli.ts hash` on documents the reference would hash differently or not at all. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { cli } from "./_cli.ts";

Deno.test("hash: a 100k-deep document exits 2 naming the file and the depth limit", async () => {
  const dir = await Deno.makeTempDir({ prefix: "callbench-hash-" });
  const file = join(dir, "deep.json");
  Deno.writeTextFileSync(file, "[".repeat(100_000) + "]".repeat(100_000));
  const r = await cli(["hash", file]);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, new RegExp(`${file}: cannot hash: nested deeper than 1000 levels`));
  assert.doesNotMatch(r.stderr, /call stack/);
});

Deno.test("hash: an integer beyond 2^53 is refused, never hashed rounded", async () => {
  const dir = await Deno.makeTempDir({ prefix: "callbench-hash-" });
  const file = join(dir, "big.json");
  Deno.writeTextFileSync(file, '{"users": {"u1": {"points": 12345678901234567890}}}');
  const r = await cli(["hash", file]);
  assert.equal(r.code, 2, r.stderr);
  assert.equal(r.stdout, "");
  assert.match(r.stderr, /the integer 12345678901234567890 \(key "points"\) is beyond 2\^53/);
  // 2^53 - 1 is exact in both languages and hashes as before.
  Deno.writeTextFileSync(file, '{"points": 9007199254740991}');
  const ok = await cli(["hash", file]);
  assert.equal(ok.code, 0, ok.stderr);
});

Deno.test("hash A B C: each file's hash or its error, in order, then exit 2 (as sha256sum)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "callbench-hash-" });
  const [a, b, c, d] = ["a", "b", "c", "d"].map((n) => join(dir, `${n}.json`)) as [
    string,
    string,
    string,
    string,
  ];
  Deno.writeTextFileSync(a, '{"x": 1}');
  Deno.writeTextFileSync(b, '{"points": 12345678901234567890}');
  Deno.writeTextFileSync(c, '{"y": 2}');
  const r = await cli(["hash", a, b, c, d]);
  assert.equal(r.code, 2, r.stderr);
  const out = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(out.map((o) => o.input), [a, c]);
  const one = await cli(["hash", c]);
  assert.equal(out[1].sha256, JSON.parse(one.stdout).sha256);
  const errors = r.stderr.trim().split("\n");
  assert.equal(errors.length, 2, r.stderr);
  assert.match(errors[0]!, new RegExp(`^${b}: cannot hash: the integer`));
  assert.match(errors[1]!, new RegExp(`^${d}: cannot read`));
});

import assert from "node:assert/strict";
import { join } from "node:path";
import { run } from "../../cli.ts";
import { memoryIo } from "../cli/io.ts";
import { dbHash } from "../canonical/hash.ts";

Deno.test("hash takes a sharded database folder as the reference loads it: {stem: contents}", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const flights = { F1: { origin: "JFK", price: 1.0 } };
    const users = { u1: { name: "Ann" } };
    await Deno.mkdir(join(dir, "db"));
    await Deno.writeTextFile(join(dir, "db", "users.json"), JSON.stringify(users));
    await Deno.writeTextFile(join(dir, "db", "flights.json"), JSON.stringify(flights));
    await Deno.writeTextFile(join(dir, "db", "notes.txt"), "not a shard");
    const io = memoryIo();
    assert.equal(await run(["hash", join(dir, "db")], io), 0, io.stderr.join("\n"));
    assert.deepEqual(io.stdout.map((l) => JSON.parse(l)), [
      { input: join(dir, "db"), sha256: dbHash({ flights, users }) },
    ]);
    await Deno.mkdir(join(dir, "empty"));
    const empty = memoryIo();
    assert.equal(await run(["hash", join(dir, "empty")], empty), 2);
    assert.match(empty.stderr.join("\n"), /holds no \.json files/);
    await Deno.writeTextFile(join(dir, "db", "users.json"), '{\n  "u1": }');
    const bad = memoryIo();
    assert.equal(await run(["hash", join(dir, "db")], bad), 2);
    assert.match(bad.stderr.join("\n"), /users\.json:2/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

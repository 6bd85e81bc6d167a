import assert from "node:assert/strict";
import { join } from "node:path";
import { run } from "../../cli.ts";
import { memoryIo } from "../cli/io.ts";

/** A scenario written from scratch on the bundled retail world, with no expected hash yet. */
const SCENARIO = `name: mine__lamp_exchange
domain: tau2_retail
world:
  db: { path: tau2_retail/db.json }
agent:
  prompt: You are a retail support agent. Verify the caller, then help.
  tools: [find_user_id_by_name_zip, get_order_details, exchange_delivered_order_items]
user:
  opening: I want to swap the lamp in my order W5100001 for the white one.
  known_info: { first name: Iris, last name: Okafor, zip code: "55802" }
expect:
  reference_actions:
    - name: find_user_id_by_name_zip
      arguments: { first_name: Iris, last_name: Okafor, zip: "55802" }
    - name: exchange_delivered_order_items
      arguments:
        order_id: "#W5100001"
        item_ids: ["7100000001"]
        new_item_ids: ["7100000002"]
        payment_method_id: credit_card_3105521
success_signals: [db_state_match, clean_exit]
`;

async function inDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await Deno.makeTempDir();
  try {
    return await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("gold FILE replays the file's reference actions: expected hash and the call list", async () => {
  await inDir(async (dir) => {
    const file = join(dir, "mine.yaml");
    await Deno.writeTextFile(file, SCENARIO);
    // Without the hash it does not validate ...
    const before = memoryIo();
    assert.equal(await run(["validate", file], before), 2);
    assert.match(before.stderr.join("\n"), /"db_state_match" can never apply/);
    // ... and gold computes it from the reference actions.
    const io = memoryIo();
    assert.equal(await run(["gold", file], io), 0, io.stderr.join("\n"));
    assert.equal(io.stdout.length, 1);
    const g = JSON.parse(io.stdout[0]!);
    assert.equal(g.name, "mine__lamp_exchange");
    assert.equal(g.file, file);
    assert.match(g.expected_db_sha256, /^[0-9a-f]{64}$/);
    assert.deepEqual(g.reference_actions.map((a: { name: string }) => a.name), [
      "find_user_id_by_name_zip",
      "exchange_delivered_order_items",
    ]);
    assert.deepEqual(
      g.reference_records.map((r: { name: string }) => r.name),
      ["exchange_delivered_order_items"],
    );
    // The initial world's hash differs: the exchange changed it.
    const initial = memoryIo();
    await run(["hash", "fixtures/tau2_retail/db.json"], initial);
    assert.notEqual(JSON.parse(initial.stdout[0]!).sha256, g.expected_db_sha256);

    // With the hash in the file: valid, and the oracle reaches it.
    await Deno.writeTextFile(
      file,
      SCENARIO.replace("expect:\n", `expect:\n  db_sha256: ${g.expected_db_sha256}\n`),
    );
    const valid = memoryIo();
    assert.equal(await run(["validate", file], valid), 0, valid.stderr.join("\n"));
    const ev = memoryIo();
    assert.equal(await run(["eval", file, "--agent", "oracle"], ev), 0, ev.stderr.join("\n"));
    const record = JSON.parse(ev.stdout[0]!);
    assert.equal(record.final.db_sha256, g.expected_db_sha256);
  });
});

Deno.test("gold FILE reports a reference call that fails on the world, located, exit 2", async () => {
  await inDir(async (dir) => {
    const file = join(dir, "bad.yaml");
    await Deno.writeTextFile(
      file,
      SCENARIO.replace('order_id: "#W5100001"', 'order_id: "#W0000000"'),
    );
    const io = memoryIo();
    assert.equal(await run(["gold", file], io), 2);
    assert.match(
      io.stderr.join("\n"),
      new RegExp(
        `^${file}: mine__lamp_exchange: field "expect.reference_actions\\[1\\]": exchange_delivered_order_items failed on the world`,
        "m",
      ),
    );
    assert.ok(JSON.parse(io.stdout[0]!).errors.length === 1);
  });
});

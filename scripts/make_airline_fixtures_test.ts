import assert from "node:assert/strict";
import { airlineFixtureFiles, FIXTURE_DIR, replayTask, TASKS } from "./make_airline_fixtures.ts";
import { run } from "../cli.ts";
import { memoryIo } from "../src/cli/io.ts";
import { BUNDLED_DATA_ROOT, DataRoot } from "../src/scenario/data_root.ts";
import { suites } from "../src/scenario/tau2/suites.ts";
import { openEnvironment } from "../src/scenario/open_environment.ts";

Deno.test("the bundled airline fixtures are what make_airline_fixtures.ts generates", () => {
  for (const [name, text] of Object.entries(airlineFixtureFiles())) {
    const onDisk = Deno.readTextFileSync(`${FIXTURE_DIR}${name}`);
    assert.equal(onDisk, text, `${name} is stale: re-run scripts/make_airline_fixtures.ts`);
  }
});

Deno.test("the airline fixture's tasks cancel, book and add bags; the refusal changes nothing", async () => {
  const root = new DataRoot(BUNDLED_DATA_ROOT);
  const airline = suites.find((s) => s.id === "tau2_airline")!;
  const { scenarios, problems } = await airline.load(root);
  assert.deepEqual(problems, []);
  const changed: Record<string, boolean> = {};
  for (const s of scenarios) {
    const gold = await airline.gold(root, s);
    assert.equal(gold.errors, undefined, s.name);
    const { env } = await openEnvironment(root, s, "initial");
    changed[s.name] = env.hashes().db_sha256 !== s.expect.db_sha256;
    if (s.name === "tau2_airline__1") {
      const writes = (s.expect.reference_actions ?? []).map((a) => a.name);
      assert.ok(writes.includes("book_reservation"));
    }
  }
  assert.deepEqual(changed, {
    tau2_airline__0: true,
    tau2_airline__1: true,
    tau2_airline__2: true,
    tau2_airline__3: false,
  });
});

Deno.test("eval --domain tau2_airline --agent oracle runs offline on the bundled fixtures", async () => {
  const io = memoryIo(); // no EVAL_DATA_ROOT: the bundled fixtures
  assert.equal(
    await run(["eval", "--domain", "tau2_airline", "--agent", "oracle"], io),
    0,
    io.stderr.join("\n"),
  );
  const records = io.stdout.map((l) => JSON.parse(l));
  assert.deepEqual(records.map((r) => r.key.scenario).sort(), [
    "tau2_airline__0",
    "tau2_airline__1",
    "tau2_airline__2",
    "tau2_airline__3",
  ]);
  for (const r of records) {
    assert.equal(r.status, "completed", r.key.scenario);
    assert.ok(r.clean_exit, r.key.scenario);
    assert.equal(r.final.db_sha256, r.expect.db_sha256, r.key.scenario);
  }
});

Deno.test("the generator refuses a task whose reference call fails or whose writes do not show", () => {
  const cancel = TASKS.find((t) => t.id === "0")!;
  const broken = structuredClone(cancel);
  broken.actions[2] = ["cancel_reservation", { reservation_id: "NOSUCH" }];
  assert.throws(() => replayTask(broken), /task 0: cancel_reservation failed/);
  assert.throws(
    () => replayTask({ ...cancel, writes: false }),
    /task 0: the world changed/,
  );
  const refusal = TASKS.find((t) => t.id === "3")!;
  assert.throws(() => replayTask({ ...refusal, writes: true }), /did not change/);
});

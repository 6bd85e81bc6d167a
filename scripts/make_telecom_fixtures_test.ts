import assert from "node:assert/strict";
import { FIXTURE_DIR, telecomFixtureFiles } from "./make_telecom_fixtures.ts";
import { run } from "../cli.ts";
import { memoryIo } from "../src/cli/io.ts";

Deno.test("the bundled telecom fixtures are what make_telecom_fixtures.ts generates", () => {
  for (const [name, text] of Object.entries(telecomFixtureFiles())) {
    const onDisk = Deno.readTextFileSync(`${FIXTURE_DIR}${name}`);
    assert.equal(onDisk, text, `${name} is stale: re-run scripts/make_telecom_fixtures.ts`);
  }
});

for (const suite of ["tau2_telecom", "tau2_telecom_workflow"]) {
  Deno.test(`eval --domain ${suite} --agent oracle runs offline on the bundled fixtures`, async () => {
    const io = memoryIo(); // no EVAL_DATA_ROOT: the bundled fixtures
    assert.equal(
      await run(["eval", "--domain", suite, "--agent", "oracle"], io),
      0,
      io.stderr.join("\n"),
    );
    const records = io.stdout.map((l) => JSON.parse(l));
    assert.equal(records.length, 3);
    for (const r of records) {
      assert.ok(r.key.scenario.startsWith(`${suite}__`));
      assert.equal(r.status, "completed", r.key.scenario);
      assert.ok(r.clean_exit, r.key.scenario);
      assert.ok(
        r.assertions.length > 0 && r.assertions.every((a: { passed: boolean }) => a.passed),
      );
    }
  });
}

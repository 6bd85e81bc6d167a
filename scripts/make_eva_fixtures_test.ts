import assert from "node:assert/strict";
import { evaFixtureFiles, FIXTURE_DIR } from "./make_eva_fixtures.ts";

Deno.test("the bundled eva fixtures are what make_eva_fixtures.ts generates", () => {
  const files = evaFixtureFiles();
  assert.ok(Object.keys(files).length >= 5);
  for (const [name, text] of Object.entries(files)) {
    const onDisk = Deno.readTextFileSync(`${FIXTURE_DIR}${name}`);
    assert.equal(onDisk, text, `${name} is stale: re-run scripts/make_eva_fixtures.ts`);
  }
});

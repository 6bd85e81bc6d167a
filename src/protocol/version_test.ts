import assert from "node:assert/strict";
import { checkClientVersion } from "./version.ts";

Deno.test("checkClientVersion accepts our major and serves major 1 as legacy", () => {
  assert.deepEqual(checkClientVersion("2.1.0"), { ok: true, legacy: false, version: "2.1.0" });
  assert.deepEqual(checkClientVersion("2.0.3"), { ok: true, legacy: false, version: "2.0.3" });
  assert.deepEqual(checkClientVersion("1.1.0"), { ok: true, legacy: true, version: "1.1.0" });
});

Deno.test("checkClientVersion explains incompatible, malformed and missing versions", () => {
  assert.match((checkClientVersion("3.0.0") as { error: string }).error, /not compatible/);
  assert.match((checkClientVersion("2.1") as { error: string }).error, /Invalid client version/);
  assert.match((checkClientVersion("two") as { error: string }).error, /Invalid client version/);
  assert.match((checkClientVersion(undefined) as { error: string }).error, /unknown/);
  assert.match((checkClientVersion(2) as { error: string }).error, /unknown/);
});

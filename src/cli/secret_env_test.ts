import assert from "node:assert/strict";
import { memoryIo } from "./io.ts";
import { envWithKey } from "./secret_env.ts";

Deno.test("envWithKey reads the named key variable and every other variable from io", () => {
  const io = memoryIo("", { MY_KEY: "sk-mine", OPENAI_BASE_URL: "http://h/v1" });
  const env = envWithKey(io, "MY_KEY", "--api-key-env");
  assert.equal(env("MY_KEY"), "sk-mine");
  assert.equal(env("OPENAI_BASE_URL"), "http://h/v1");
  assert.equal(env("UNSET_HERE"), undefined);
  assert.equal(envWithKey(io, undefined, "--api-key-env")("MY_KEY"), "sk-mine");
});
